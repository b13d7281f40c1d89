import path from "node:path";
import { getEnv, type Env } from "../env";
import { openDatabase, type Database } from "./db";
import { createStore, type KeyValueStore } from "./store";
import { createLogger, type Logger } from "./logger";
import { resolveSecrets, type Secrets } from "./secrets";
import { createMailer, type Mailer } from "./mail/mailer";
import { createNodeRegistry, type NodeRegistry } from "./nodes/registry";
import { builtinBehaviours } from "./nodes/behaviours";
import { FlowRuntimeController } from "./services/flows/runtime-controller";
import { DeviceBus } from "./realtime/device-bus";
import { WebhookRegistry } from "./runtime/webhooks";
import { createSafeFetch } from "./runtime/safe-fetch";

export interface AppConfig {
  env: Env;
  secrets: Secrets;
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
  logger: Logger;
  mailer: Mailer;
  /** The node catalog. */
  nodes: NodeRegistry;
  /** The flows this instance runs. */
  flowRuntime: FlowRuntimeController;
  devices: DeviceBus;
  webhooks: WebhookRegistry;
  startedAt: Date;
  close(): Promise<void>;
}

export const APP_VERSION = "0.1.0";

export function resolveConfig(env: Env): AppConfig {
  const dataDir = path.resolve(env.DATA_DIR);
  return {
    env,
    secrets: resolveSecrets({ dataDir, jwtSecret: env.JWT_SECRET, encryptionKey: env.ENCRYPTION_KEY }),
    publicUrl: (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, ""),
    dataDir,
    version: APP_VERSION,
  };
}

export interface CreateAppOptions {
  env?: Env;
  /** Overrides for tests: an in-memory database, a schema of their own, a quiet logger. */
  dataDirForDb?: string;
  dbSchema?: string;
  storeKeyPrefix?: string;
  logger?: Logger;
}

export async function createApp(options: CreateAppOptions = {}): Promise<AppServices> {
  const env = options.env ?? getEnv();
  const config = resolveConfig(env);
  const logger = options.logger ?? createLogger({ level: env.LOG_LEVEL });
  const db = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: options.dataDirForDb ?? config.dataDir,
    schema: options.dbSchema,
  });
  if (db.migrations.applied.length > 0) {
    logger.info({ applied: db.migrations.applied }, "database migrations applied");
  }
  const store = createStore({ redisUrl: env.REDIS_URL, keyPrefix: options.storeKeyPrefix ?? (env.REDIS_KEY_PREFIX || undefined) });
  const mailer = createMailer({ dataDir: config.dataDir, smtpUrl: env.SMTP_URL, from: env.MAIL_FROM, logger });
  const nodes = createNodeRegistry();
  const devices = new DeviceBus(store, logger);
  const webhooks = new WebhookRegistry();
  const httpRequest = createSafeFetch({ allowPrivate: env.HTTP_REQUEST_ALLOW_PRIVATE });
  const flowRuntime = new FlowRuntimeController({
    prisma: db.prisma,
    store,
    logger,
    nodes,
    behaviours: builtinBehaviours(),
    services: {
      sendToDevices: (organizationId, message) => devices.sendToDevices(organizationId, message),
      onDeviceMessage: (organizationId, handler) => devices.onDeviceMessage(organizationId, handler),
      webhooks,
      httpRequest,
    },
  });
  return {
    config,
    db,
    store,
    logger,
    mailer,
    nodes,
    flowRuntime,
    devices,
    webhooks,
    startedAt: new Date(),
    close: async () => {
      await flowRuntime.close();
      await store.close();
      await db.close();
    },
  };
}
