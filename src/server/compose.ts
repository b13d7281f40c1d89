/**
 * The composition root: builds the process's one AppServices (app-services.ts holds the types)
 * from the environment. Only the custom server (src/server.ts), the tests and the benchmarks call
 * it; nothing under src/server imports it (eslint.layers.js), so no part it builds can import
 * its builder back.
 */
import path from "node:path";
import { getEnv, outboundAllowsPrivate, type Env } from "../env";
import { openDatabase } from "./db";
import { createStore } from "./store";
import { createLogger, type Logger } from "./logger";
import { AccessCache } from "./auth/access-cache";
import { createFlowReads } from "./services/flows/flow-reads";
import { resolveSecrets } from "./secrets";
import { createMailer } from "./mail/mailer";
import { createNodeRegistry } from "./nodes/registry";
import { OrgEventPublisher } from "./realtime/org-events";
import { VariableCache } from "./flow-runtime/variable-cache";
import { loadVariableSet } from "./services/variables/variables";
import { createFlowRuntime, resolveInstanceId } from "./flow-runtime";
import { DeviceBus } from "./realtime/device-bus";
import { WebhookRegistry } from "./runtime/webhooks";
import { socketRouteChannel } from "./runtime/socket-hooks";
import { createSafeFetch } from "./runtime/safe-fetch";
import { createOutboundRules } from "./runtime/outbound";
import { DEFAULT_WORK_LIMITS, WorkLimits } from "./runtime/work-limits";
import { createHttpDispatcher } from "./runtime/http-dispatchers";
import { openCredential } from "./services/config-nodes/credentials";
import { SandboxPool } from "./runtime/sandbox/sandbox-pool";
import { jwtKeys } from "./auth/jwt";
import { deriveKey } from "./auth/crypto";
import { advertisedPeerUrl } from "./flow-runtime/peer-link";
import { variableKeyring } from "./services/variables/variable-keys";
import { createAuthLimiters } from "./auth/limits";
import { createAppMetrics } from "./metrics";
import { ContextHub } from "./flow-runtime/context-hub";
import { deleteFile, fileVersion, readFile, writeFile } from "./services/files/file-store";
import { createMqttBroker } from "./mqtt/broker";
import { DashboardBus } from "./dashboards/bus";
import { DashboardStateStore } from "./persistence/dashboard-state";
import { DASHBOARD_LIMITS } from "../shared/dashboard";
import type { AppConfig, AppServices } from "./app-services";
import type { OrgFiles } from "./runtime/types";
import { SqliteHost } from "./runtime/sqlite/sqlite-host";

export const APP_VERSION = "0.1.0";

export function resolveConfig(env: Env): AppConfig {
  const dataDir = path.resolve(env.DATA_DIR);
  const secrets = resolveSecrets({ dataDir, jwtSecret: env.JWT_SECRET, encryptionKey: env.ENCRYPTION_KEY });
  return {
    env,
    secrets,
    keys: {
      jwt: jwtKeys(secrets.jwtSecret),
      mfa: deriveKey(secrets.encryptionKey, "mfa-secret-v1"),
      backupPepper: deriveKey(secrets.encryptionKey, "backup-code-pepper-v1"),
      variables: variableKeyring(secrets.encryptionKey, env.ENCRYPTION_KEY_PREVIOUS?.split(",").map((k) => k.trim()) ?? []),
    },
    publicUrl: (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, ""),
    dataDir,
    version: APP_VERSION,
  };
}

export interface CreateAppServicesOptions {
  env?: Env;
  /** Overrides for tests: an in-memory database, a schema of their own, a quiet logger. */
  dataDirForDb?: string;
  dbSchema?: string;
  /** An in-memory database's starting image (db.ts, embeddedImage): tests skip initdb with it. */
  dbImage?: Blob;
  storeKeyPrefix?: string;
  logger?: Logger;
  /**
   * Tests (and benchmarks) build several AppServices in one process to stand for several
   * instances; they say so here. Anything else gets one per process (see claimProcessSlot).
   */
  allowSeveralPerProcess?: boolean;
}

// Held on globalThis, not in this module: Next bundles its own copy of this module, and a second
// AppServices built through that copy (a second database pool, a second runtime running every
// flow again) is exactly what this guard is for.
const LIVE_APPS = Symbol.for("flowplane.liveApps");
type LiveApps = { [LIVE_APPS]?: number };

/** Throws if this process already has a live AppServices, unless the caller allows several. */
function claimProcessSlot(allowSeveral: boolean): () => void {
  const slot = globalThis as LiveApps;
  const live = slot[LIVE_APPS] ?? 0;
  if (live > 0 && !allowSeveral) {
    throw new Error(
      "a second AppServices was created in this process: there must be exactly one (the custom server builds it; Next's code reaches it through services-slot.ts)",
    );
  }
  slot[LIVE_APPS] = live + 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    slot[LIVE_APPS] = Math.max(0, (slot[LIVE_APPS] ?? 1) - 1);
  };
}

export async function createAppServices(options: CreateAppServicesOptions = {}): Promise<AppServices> {
  const release = claimProcessSlot(options.allowSeveralPerProcess ?? false);
  try {
    return await buildAppServices(options, release);
  } catch (err) {
    release();
    throw err;
  }
}

async function buildAppServices(options: CreateAppServicesOptions, release: () => void): Promise<AppServices> {
  const env = options.env ?? getEnv();
  const config = resolveConfig(env);
  const logger = options.logger ?? createLogger({ level: env.LOG_LEVEL });
  const db = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: options.dataDirForDb ?? config.dataDir,
    schema: options.dbSchema,
    image: options.dbImage,
  });
  if (db.migrations.applied.length > 0) {
    logger.info({ applied: db.migrations.applied }, "database migrations applied");
  }
  const store = createStore({ redisUrl: env.REDIS_URL, keyPrefix: options.storeKeyPrefix ?? env.REDIS_KEY_PREFIX });
  const mailer = createMailer({ dataDir: config.dataDir, smtpUrl: env.SMTP_URL, from: env.MAIL_FROM, logger });
  const nodes = createNodeRegistry();
  const devices = new DeviceBus(store, logger);
  const webhooks = new WebhookRegistry();
  // Dashboards (SPEC §21): widget updates and viewer inputs over the store's pub/sub, state written behind.
  const dashboards = new DashboardBus(store, logger, new DashboardStateStore(db.prisma, logger, { maxStateBytes: DASHBOARD_LIMITS.maxStateBytes }));
  // Outbound rules for every client node (SPEC §20): one policy, http-request's fetch included.
  const outbound = createOutboundRules({ allowPrivate: outboundAllowsPrivate(env) });
  const httpRequest = createSafeFetch({ allowPrivate: outbound.allowPrivate });
  // Per flow and organization: JSONata turns and download bytes (issue 40; runtime/work-limits.ts).
  const workLimits = new WorkLimits({ ...DEFAULT_WORK_LIMITS, responseBytesPerOrganization: env.HTTP_REQUEST_BYTES_PER_ORGANIZATION });
  // The function nodes' worker pool belongs to this app: its workers start at the first function node.
  // The organization's files (SPEC §23) in the database: the same rows /files serves.
  const fileLimits = { maxBytes: env.FILES_MAX_BYTES, maxFileBytes: env.FILES_MAX_UPLOAD_BYTES, maxCount: env.FILES_MAX_COUNT };
  const orgFiles: OrgFiles = {
    read: async (organizationId, path) => (await readFile(db.prisma, organizationId, path))?.content ?? null,
    write: async (organizationId, path, content, { append }) => {
      await writeFile(db.prisma, organizationId, path, content, { append, limits: fileLimits });
    },
    delete: (organizationId, path) => deleteFile(db.prisma, organizationId, path),
    version: (organizationId, path) => fileVersion(db.prisma, organizationId, path),
    readVersioned: async (organizationId, path) => {
      const file = await readFile(db.prisma, organizationId, path);
      return file ? { content: file.content, version: file.updatedAt.getTime() } : null;
    },
    replaceIf: async (organizationId, path, content, expected) => {
      const written = await writeFile(db.prisma, organizationId, path, content, { append: false, limits: fileLimits, ifVersion: expected });
      return "conflict" in written ? false : written.updatedAt.getTime();
    },
  };
  // Started on first use (a flow's sqlite node): an instance without SQLite flows holds no worker.
  const sqlite = new SqliteHost({
    files: orgFiles,
    log: (err, message) => logger.warn({ err }, message),
    heapLimitBytes: env.SQLITE_MEMORY_BYTES,
    limits: {
      statementMs: env.SQLITE_STATEMENT_MS,
      // A database is one of the organization's files: it may grow as large as one file may.
      maxDatabaseBytes: env.FILES_MAX_UPLOAD_BYTES,
      maxValueBytes: Math.min(env.FILES_MAX_UPLOAD_BYTES, 16 * 1024 * 1024),
      maxResultBytes: 32 * 1024 * 1024,
    },
  });
  const sandboxes = new SandboxPool({ limits: { maxSandboxes: env.FUNCTION_NODES_MAX, maxPerOwner: env.FUNCTION_NODES_PER_ORGANIZATION }, spinUs: env.FUNCTION_SPIN_US });
  const flowReads = createFlowReads(store);
  const variables = new VariableCache({
    store,
    logger,
    load: (organizationId) => loadVariableSet({ prisma: db.prisma, keyring: config.keys.variables, logger }, organizationId),
  });
  await variables.start();
  const events = new OrgEventPublisher(store, logger);
  const instanceId = resolveInstanceId(env.INSTANCE_ID);
  const context = new ContextHub({ prisma: db.prisma, store, logger, instanceId, maxBytes: env.CONTEXT_MAX_BYTES, maxKeys: env.CONTEXT_MAX_KEYS });
  // The built-in MQTT broker (SPEC §20): started below, once the app it authenticates against exists.
  const mqtt = createMqttBroker({
    prisma: db.prisma,
    store,
    logger,
    instanceId,
    redis: env.REDIS_URL ? { url: env.REDIS_URL, keyPrefix: options.storeKeyPrefix ?? env.REDIS_KEY_PREFIX } : undefined,
    limits: {
      connectionsPerOrganization: env.MQTT_MAX_CONNECTIONS_PER_ORGANIZATION,
      connectingPerAddress: env.MQTT_MAX_CONNECTING_PER_ADDRESS,
      subscriptionsPerClient: env.MQTT_MAX_SUBSCRIPTIONS_PER_CLIENT,
      messageBytes: env.MQTT_MAX_MESSAGE_BYTES,
      publishesPerSecondPerOrganization: env.MQTT_PUBLISH_RATE_PER_ORGANIZATION,
      queuedPerSession: env.MQTT_MAX_QUEUED_PER_SESSION,
      queuedBytesPerOrganization: env.MQTT_MAX_QUEUED_BYTES_PER_ORGANIZATION,
      sessionsPerOrganization: env.MQTT_MAX_SESSIONS_PER_ORGANIZATION,
      persistentSessionExpirySeconds: env.MQTT_PERSISTENT_SESSION_EXPIRY_SECONDS ?? 0,
      retainedPerOrganization: env.MQTT_MAX_RETAINED_PER_ORGANIZATION,
      retainedBytesPerOrganization: env.MQTT_MAX_RETAINED_BYTES_PER_ORGANIZATION,
    },
  });
  const flowRuntime = createFlowRuntime(store, {
    context,
    events,
    prisma: db.prisma,
    flowsChanged: (organizationId) => flowReads.changed(organizationId),
    logger,
    nodes,
    devices,
    instanceId,
    highWaterMark: env.FLOW_HIGH_WATER_MARK,
    // Calls to the instance running a flow go straight to it over HTTP, signed with a key all instances share.
    peer: { url: advertisedPeerUrl(env), key: deriveKey(config.secrets.encryptionKey, "cluster-peer-v1") },
    variables,
    executions: {
      enabled: env.EXECUTIONS_ENABLED,
      keepPerFlow: env.EXECUTIONS_KEEP_PER_FLOW,
      keepDays: env.EXECUTIONS_KEEP_DAYS,
      keepErrorDays: env.EXECUTIONS_KEEP_ERROR_DAYS,
      sampleAllPerSec: env.EXECUTIONS_SAMPLE_ALL_PER_SEC,
      sampleOneIn: env.EXECUTIONS_SAMPLE_ONE_IN,
      maxBytesEach: env.EXECUTIONS_MAX_BYTES_EACH,
      maxPerOrganization: env.EXECUTIONS_MAX_PER_ORGANIZATION,
      maxBytesPerOrganization: env.EXECUTIONS_MAX_BYTES_PER_ORGANIZATION,
    },
    services: {
      sendToDevices: (organizationId, message) => devices.sendToDevices(organizationId, message),
      onDeviceMessage: (organizationId, handler) => devices.onDeviceMessage(organizationId, handler),
      webhooks,
      // What websocket listeners send reaches their clients' instances over the store's pub/sub (socket-hooks.ts).
      socketHooks: {
        publish: (slug, path, out) =>
          void store.publish(socketRouteChannel(slug, path), JSON.stringify(out)).catch((err: unknown) => logger.warn({ err }, "a WebSocket listener's frame could not be published")),
        // The edges (instances holding a listener's sockets) still alive: a dead one's clients are forgotten.
        edgesAlive: (ids) => flowRuntime.liveInstances(ids),
      },
      dashboards,
      httpRequest,
      outbound,
      pingPorts: env.PING_PORTS,
      instanceId,
      httpDispatcher: createHttpDispatcher,
      // Configuration nodes' credentials, sealed in deployments, opened as their flow starts (SPEC §19).
      openCredential: (sealed) => openCredential(config.keys.variables, sealed),
      sandboxes,
      workLimits,
      files: orgFiles,
      sqlite,
      builtInMqtt: mqtt.builtIn,
    },
  });
  const metrics = createAppMetrics({
    flowRuntime,
    store,
    db,
    // A flow whose start failed (state "error") is its owner's to fix, not the cluster's: left out.
    flowsToRun: () =>
      db.prisma.flow.count({
        where: { deletedAt: null, enabled: true, currentDeploymentId: { not: null }, targetDeviceId: null, targetDeviceTag: null, state: { not: "error" }, organization: { deletedAt: null } },
      }),
  });
  const app: AppServices = {
    config,
    db,
    store,
    limits: createAuthLimiters(store, env),
    access: new AccessCache(store),
    flowReads,
    events,
    logger,
    mailer,
    nodes,
    flowRuntime,
    mqtt,
    context,
    variables,
    workLimits,
    metrics,
    dashboards,
    startedAt: new Date(),
    close: async () => {
      try {
        await flowRuntime.close();
        await mqtt.close();
        await dashboards.close();
        await variables.close();
        await sandboxes.close();
        await sqlite.close();
        await events.flush();
        await store.close();
        await db.close();
        metrics.close();
      } finally {
        release();
      }
    },
  };
  try {
    await mqtt.start(app);
  } catch (err) {
    await app.close().catch(() => undefined);
    throw err;
  }
  return app;
}
