import type { Env } from "../env";
import type { Database } from "./db";
import type { KeyValueStore } from "./store";
import type { Logger } from "./logger";
import type { AccessCache } from "./auth/access-cache";
import type { FlowReads } from "./services/flows/flow-reads";
import type { Secrets } from "./secrets";
import type { Mailer } from "./mail/mailer";
import type { NodeRegistry } from "./nodes/registry";
import type { OrgEventPublisher } from "./realtime/org-events";
import type { VariableCache } from "./flow-runtime/variable-cache";
import type { FlowRuntime } from "./flow-runtime";
import type { JwtKeys } from "./auth/jwt";
import type { VariableKeyring } from "./services/variables/variable-keys";
import type { AuthLimiters } from "./auth/limits";
import type { AppMetrics } from "./metrics";
import type { ContextHub } from "./flow-runtime/context-hub";
import type { WorkLimits } from "./runtime/work-limits";
import type { MqttBroker } from "./mqtt/broker";
import type { DashboardBus } from "./dashboards/bus";

// Types only: the code that builds these is the composition root, compose.ts. Keeping the two
// apart lets auth/ and the services name the app (or, for auth/, the narrow part of it it uses:
// auth/auth-deps.ts) without importing what builds it.

export interface AppConfig {
  env: Env;
  secrets: Secrets;
  /** Keys derived from the secrets once, at start-up. */
  keys: AppKeys;
  /** The origin used in mails and by next-auth; never taken from a request's Host header. */
  publicUrl: string;
  dataDir: string;
  version: string;
}

/**
 * Everything a request needs that lives longer than the request: one instance per process, built
 * by the custom server at start-up and shared with Next's route handlers (which Next bundles as a
 * separate module graph) through a well-known global slot.
 */
export interface AppServices {
  config: AppConfig;
  db: Database;
  store: KeyValueStore;
  /** The rate limiters of the account and API paths, on the store. */
  limits: AuthLimiters;
  /** Memberships, roles and API keys as requests read them, valid for one access generation. */
  access: AccessCache;
  /** An organization's flows as reads see them, valid for one flows generation (services/flows/flow-reads.ts). */
  flowReads: FlowReads;
  /** Organization events out to every instance's WebSocket clients, batched per turn of the event loop. */
  events: OrgEventPublisher;
  logger: Logger;
  mailer: Mailer;
  /** The node catalog. */
  nodes: NodeRegistry;
  /**
   * The running flows: the one door to them for services, routers and the servers (deploy, stop,
   * inject, statuses, webhooks, device messages), wherever in the cluster a flow runs.
   */
  flowRuntime: FlowRuntime;
  /** The built-in MQTT broker (SPEC §20): /mqtt upgrades, MQTT_PORT, what flows publish and subscribe through. */
  mqtt: MqttBroker;
  /** Flow and global context on this instance (SPEC §13): the REST service tells it what it stored. */
  context: ContextHub;
  /** Variables and secrets of the organizations whose flows run here, current on every instance within 2 s (SPEC §14). */
  variables: VariableCache;
  /** Bounds on this instance's asynchronous flow work per flow and organization (JSONata turns, download bytes). */
  workLimits: WorkLimits;
  /** This instance's Prometheus registry (GET /metrics): here, not at module level (see "One process, two module graphs"). */
  metrics: AppMetrics;
  /** Dashboards (SPEC §21): widget updates and viewer inputs across instances, widgets' durable state. */
  dashboards: DashboardBus;
  startedAt: Date;
  close(): Promise<void>;
}

export interface AppKeys {
  /** Signs and verifies access tokens. */
  jwt: JwtKeys;
  /** Encrypts TOTP secrets at rest. */
  mfa: Buffer;
  /** Peppers backup-code hashes. */
  backupPepper: Buffer;
  /** Seals variables' secrets at rest (the current key, and earlier ones still read). */
  variables: VariableKeyring;
}
