import { z } from "zod";

/**
 * The one reader of process.env. Every setting is validated here; a bad value stops start-up with
 * a message that names the variable.
 */

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((v) => v === "true" || v === "1" || v === "yes");

const secret = z.string().min(32, "must be at least 32 characters");

const positiveInt = z.coerce.number().int().positive();

const envSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default("0.0.0.0"),
    DATA_DIR: z.string().min(1).default("./data"),
    PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
    DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: "must be a postgres:// or postgresql:// URL" }).optional(),
    REDIS_URL: z.url({ protocol: /^rediss?$/, error: "must be a redis:// or rediss:// URL" }).optional(),
    REDIS_KEY_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,64}$/, "must be 1-64 letters, digits or _ . : -")
      .default("fp:"),
    JWT_SECRET: secret.optional(),
    ENCRYPTION_KEY: secret.optional(),
    /**
     * Rotation of ENCRYPTION_KEY for variables' secrets: the key(s) used before, comma-separated.
     * Secrets sealed under one of them are still read, and sealed under the current key when written.
     */
    ENCRYPTION_KEY_PREVIOUS: z
      .string()
      .optional()
      .refine((v) => v === undefined || v.split(",").every((k) => k.trim().length >= 32), "each key must be at least 32 characters"),
    SMTP_URL: z.url({ protocol: /^smtps?$/, error: "must be an smtp:// or smtps:// URL" }).optional(),
    MAIL_FROM: z.string().min(3).default("Flowplane <no-reply@flowplane.local>"),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    REGISTRATION_ENABLED: bool.default(true),
    /** Where the operator's terms of service are: the registration form links to them, and GET /settings says it. */
    TERMS_URL: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).optional(),
    /** Trust X-Forwarded-For from this many proxy hops when recording client IPs. */
    TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
    /**
     * How long an idle keep-alive connection stays open (Node's default is 5 s). Longer than the
     * idle timeout of the proxies and clients in front (AWS ALB 60 s, nginx's upstream keepalive
     * 60 s): a server that closes first races their next request on that connection, which fails
     * with a reset (a 502 behind a balancer).
     */
    HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(240_000).default(65_000),
    RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT: positiveInt.default(10),
    RATE_LIMIT_LOGIN_PER_IP: positiveInt.default(300),
    RATE_LIMIT_REGISTER_PER_IP: positiveInt.default(100),
    RATE_LIMIT_MFA_FAILURES_PER_ACCOUNT: positiveInt.default(10),
    RATE_LIMIT_PASSWORD_RESET_PER_IP: positiveInt.default(30),
    RATE_LIMIT_API_PER_CREDENTIAL: positiveInt.default(1200),
    RATE_LIMIT_WEBHOOK_PER_ORG: positiveInt.default(6000),
    RATE_LIMIT_WEBHOOK_PER_IP: positiveInt.default(1200),
    /**
     * Backpressure: messages that may wait in one flow before it counts as busy (inject and webhooks
     * answer 429, devices are told, timers wait or skip) until half of them are done.
     */
    FLOW_HIGH_WATER_MARK: z.coerce.number().int().min(2).max(1_000_000).default(10_000),
    /** Executions (SPEC §15): record what happens to each message (off: nothing is recorded, replay answers 409). */
    EXECUTIONS_ENABLED: bool.default(true),
    /** Executions kept per flow (the newest). */
    EXECUTIONS_KEEP_PER_FLOW: positiveInt.default(10_000),
    /** Days successful executions are kept. */
    EXECUTIONS_KEEP_DAYS: positiveInt.default(7),
    /** Days failed executions are kept. */
    EXECUTIONS_KEEP_ERROR_DAYS: positiveInt.default(30),
    /** Successful executions kept in full per flow and second; past them one in EXECUTIONS_SAMPLE_ONE_IN (errors are always kept). */
    EXECUTIONS_SAMPLE_ALL_PER_SEC: z.coerce.number().int().min(0).default(100),
    EXECUTIONS_SAMPLE_ONE_IN: positiveInt.default(100),
    /** Bytes one stored execution may take (its steps' inputs and errors are cut to fit, then its trigger message dropped). */
    EXECUTIONS_MAX_BYTES_EACH: z.coerce.number().int().min(64 * 1024).default(2 * 1024 * 1024),
    /** Executions one organization may keep stored, and their bytes; past either, new ones are counted as unrecorded until retention frees room. */
    EXECUTIONS_MAX_PER_ORGANIZATION: positiveInt.default(100_000),
    EXECUTIONS_MAX_BYTES_PER_ORGANIZATION: positiveInt.default(512 * 1024 * 1024),
    /** Bytes of flow and global context (UTF-8 of keys and JSON values) one organization may hold (SPEC §13). */
    CONTEXT_MAX_BYTES: positiveInt.default(10 * 1024 * 1024),
    /** Context keys one organization may hold, deleted ones included until they are swept (SPEC §13). */
    CONTEXT_MAX_KEYS: positiveInt.default(50_000),
    /** Bytes of files one organization may hold (SPEC §23: `file` nodes and /files); past it a write is refused (507 FILES_QUOTA_EXCEEDED, a node error in a flow). */
    FILES_MAX_BYTES: positiveInt.default(100 * 1024 * 1024),
    /** Largest body of PUT /files/{path} (413), and largest one file may grow to, by upload or by a flow's writes and appends. */
    FILES_MAX_UPLOAD_BYTES: positiveInt.default(10 * 1024 * 1024),
    /** How many files one organization may hold (a new one past it: 507 FILES_QUOTA_EXCEEDED, a node error in a flow); empty files count too. */
    FILES_MAX_COUNT: positiveInt.default(10_000),
    /** How long one SQLite statement of a flow's `sqlite` node may run before it is interrupted (SQLITE_INTERRUPT). */
    SQLITE_STATEMENT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
    /** The TCP ports a flow's `ping` node asks a host on (an accepted connection on one of them is its answer). */
    PING_PORTS: z
      .string()
      .default("443,80")
      .transform((v) => v.split(",").map((p) => Number(p.trim())))
      .refine((ports) => ports.length >= 1 && ports.length <= 8 && ports.every((p) => Number.isInteger(p) && p >= 1 && p <= 65_535), "a comma-separated list of 1 to 8 TCP ports, e.g. 443,80"),
    /** The memory SQLite may use for every database open on this instance together (past it a statement fails, SQLITE_NOMEM). */
    SQLITE_MEMORY_BYTES: z.coerce.number().int().min(16 * 1024 * 1024).max(2 * 1024 * 1024 * 1024).default(256 * 1024 * 1024),
    /**
     * The largest file a dashboard's ui-file-input takes (SPEC §21; Dashboard 2.0's maxHttpBufferSize, default 1 MB).
     * At most 16 MiB: a file crosses the store's pub/sub as one message (Redis's pub/sub client buffer is 32 MB).
     */
    DASHBOARD_MAX_FILE_BYTES: z.coerce.number().int().min(1024).max(16 * 1024 * 1024).default(1_000_000),
    /** Function nodes (sandboxes) this instance runs at once, in all and per organization (past them a deploy's flow goes into error). */
    FUNCTION_NODES_MAX: positiveInt.default(4000),
    /** How long the host and a sandbox worker wait for each other's answer before sleeping (sandbox/spin.ts); 0: never. */
    FUNCTION_SPIN_US: z.coerce.number().int().min(0).max(1000).default(50),
    FUNCTION_NODES_PER_ORGANIZATION: positiveInt.default(500),
    /**
     * Let client nodes (http-request, MQTT, websocket, tcp, udp) reach private, loopback and
     * link-local addresses (off: SSRF protection, SPEC §20). HTTP_REQUEST_ALLOW_PRIVATE is its older
     * name and still works: either set to true allows.
     */
    OUTBOUND_ALLOW_PRIVATE: bool.default(false),
    /** Alias of OUTBOUND_ALLOW_PRIVATE (its name before client nodes other than http-request existed). */
    HTTP_REQUEST_ALLOW_PRIVATE: bool.default(false),
    /** WebSocket listeners (/ws/hooks, SPEC §23): the largest frame a client may send (bigger: closed with 1009). */
    WS_HOOK_MAX_FRAME_BYTES: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
    /** Sockets one organization may hold open on the listeners of one instance (past it the upgrade answers 429). */
    WS_HOOK_SOCKETS_PER_ORGANIZATION: positiveInt.default(1000),
    /** Of those, how many one client address may hold (past it the upgrade answers 429). */
    WS_HOOK_SOCKETS_PER_IP: positiveInt.default(100),
    /** Bytes that may wait to be sent to one listener client; a client that lets more pile up is closed (1013). */
    WS_HOOK_SEND_QUEUE_BYTES: z.coerce.number().int().min(1024).default(4 * 1024 * 1024),
    HTTP_REQUEST_BYTES_PER_ORGANIZATION: z.coerce.number().int().min(1024 * 1024).max(4 * 1024 * 1024 * 1024).default(64 * 1024 * 1024),
    BCRYPT_COST: z.coerce.number().int().min(4).max(15).default(12),
    /**
     * GET /metrics: when set, scrapes must send `Authorization: Bearer <token>`; when unset, only
     * loopback clients (as TRUST_PROXY_HOPS resolves the client) may scrape.
     */
    METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
    /**
     * The built-in MQTT broker (SPEC §20; src/server/mqtt/README.md, "Built-in MQTT broker"): always at
     * /mqtt (WebSocket) on PORT; on MQTT_PORT over TCP when set, over TLS when MQTT_TLS_CERT and
     * MQTT_TLS_KEY are set too (each PEM text, or the path of a PEM file).
     */
    MQTT_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    MQTT_TLS_CERT: z.string().min(1).optional(),
    MQTT_TLS_KEY: z.string().min(1).optional(),
    /** Open MQTT connections per organization, all instances together (CONNACK 3 beyond it). */
    MQTT_MAX_CONNECTIONS_PER_ORGANIZATION: positiveInt.default(100),
    /**
     * MQTT connections one client address may have open before their CONNECT is admitted (more are
     * refused at once). Raise it behind a TCP load balancer that hides the devices' addresses.
     */
    MQTT_MAX_CONNECTING_PER_ADDRESS: positiveInt.default(20),
    /** Subscriptions per MQTT connection (SUBACK 0x80 beyond it). */
    MQTT_MAX_SUBSCRIPTIONS_PER_CLIENT: positiveInt.default(100),
    /** Largest MQTT payload in bytes (a bigger publish disconnects). */
    MQTT_MAX_MESSAGE_BYTES: z.coerce.number().int().min(1024).max(256 * 1024 * 1024).default(256 * 1024),
    /** QoS 1/2 messages one persistent MQTT session may have waiting (Mosquitto's max_queued_messages); more are dropped for it. */
    MQTT_MAX_QUEUED_PER_SESSION: positiveInt.default(1000),
    /** Payload bytes an organization's persistent MQTT sessions may have waiting, all together and all instances together (64 MiB by default); newer messages are dropped for sessions without room. */
    MQTT_MAX_QUEUED_BYTES_PER_ORGANIZATION: positiveInt.default(64 * 1024 * 1024),
    /** Seconds an MQTT 3.1.1 persistent session (clean session false) is kept after its client leaves, with its queue (as Mosquitto's persistent_client_expiration); unset: until the client returns with a clean session. MQTT 5 clients give their own Session Expiry Interval. */
    MQTT_PERSISTENT_SESSION_EXPIRY_SECONDS: positiveInt.optional(),
    /** MQTT sessions one organization may have on the built-in broker: its connected clients' and the persistent ones kept while away (a new persistent session past it: CONNACK 3, MQTT 5 0x97). */
    MQTT_MAX_SESSIONS_PER_ORGANIZATION: positiveInt.default(1000),
    /** Messages per second an organization's clients and flows may publish, all instances together with Redis (burst: one second's worth). */
    MQTT_PUBLISH_RATE_PER_ORGANIZATION: positiveInt.default(1000),
    /** Retained messages an organization may keep on the built-in broker, all instances together (a retained publish beyond is refused; MQTT 5: 0x97). */
    MQTT_MAX_RETAINED_PER_ORGANIZATION: positiveInt.default(10_000),
    /** Bytes of retained payloads an organization may keep on the built-in broker (64 MiB by default). */
    MQTT_MAX_RETAINED_BYTES_PER_ORGANIZATION: positiveInt.default(64 * 1024 * 1024),
    /** This instance's name in a cluster (GET /health, flow placement); default: host name, process id and a random suffix. */
    // Where the other instances reach this one over HTTP (forwarded calls, flow-runtime/peer-link.ts):
    // by default http://HOST:PORT (for 0.0.0.0, this machine's first non-internal IPv4 address);
    // "none": only over Redis.
    CLUSTER_URL: z.union([z.literal("none"), z.url({ protocol: /^https?$/ })]).optional(),
    INSTANCE_ID: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "must be 1-64 letters, digits, '.', '_' or '-'").optional(),
  })
  .superRefine((env, ctx) => {
    // With a shared database several instances must sign and decrypt with the same keys, so the
    // keys cannot be generated into one instance's DATA_DIR.
    if (Boolean(env.MQTT_TLS_CERT) !== Boolean(env.MQTT_TLS_KEY)) {
      ctx.addIssue({ code: "custom", path: [env.MQTT_TLS_CERT ? "MQTT_TLS_KEY" : "MQTT_TLS_CERT"], message: "MQTT_TLS_CERT and MQTT_TLS_KEY go together" });
    }
    if (env.MQTT_TLS_CERT && env.MQTT_PORT === undefined) {
      ctx.addIssue({ code: "custom", path: ["MQTT_PORT"], message: "is required when MQTT_TLS_CERT is set (the port that speaks MQTT over TLS)" });
    }
    if (env.DATABASE_URL) {
      for (const key of ["JWT_SECRET", "ENCRYPTION_KEY"] as const) {
        if (!env[key]) {
          ctx.addIssue({ code: "custom", path: [key], message: "is required when DATABASE_URL is set" });
        }
      }
    }
  });

export type Env = z.infer<typeof envSchema>;

/** Whether client nodes may reach private addresses: OUTBOUND_ALLOW_PRIVATE or its alias. */
export function outboundAllowsPrivate(env: Pick<Env, "OUTBOUND_ALLOW_PRIVATE" | "HTTP_REQUEST_ALLOW_PRIVATE">): boolean {
  return env.OUTBOUND_ALLOW_PRIVATE || env.HTTP_REQUEST_ALLOW_PRIVATE;
}

export class EnvError extends Error {
  override name = "EnvError";
}

/** Parses an environment; empty strings count as unset, as shells make it easy to export them. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const result = envSchema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".") || "(environment)"}: ${i.message}`);
    throw new EnvError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  return result.data;
}

let cached: Env | undefined;

export function getEnv(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}
