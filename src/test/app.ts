import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import pg from "pg";
import os from "node:os";
import path from "node:path";
import { parseEnv } from "@/env";
import { createAppServices } from "@/server/compose";
import { embeddedImage } from "@/server/db";
import type { AppServices } from "@/server/app-services";
import { createLogger, type Logger } from "@/server/logger";
import { createRestHandler } from "@/server/api/rest/handler";
import { CLIENT_IP_HEADER } from "@/server/http/client-ip";
import { appRouter, createCaller } from "@/server/api/root";
import { createInnerContext } from "@/server/api/trpc";

/**
 * The embedded database every in-memory test app starts from: initialized and migrated once per
 * worker (a few seconds) instead of once per app, which was most of an app's start.
 */
let image: Promise<Blob> | undefined;
export function testDatabaseImage(): Promise<Blob> {
  image ??= embeddedImage().catch((err: unknown) => {
    image = undefined;
    throw err;
  });
  return image;
}

/**
 * The environment of a test app: test secrets, silent logs, bcrypt's cheapest cost (unless a test
 * measures the real one), then `values` (DATA_DIR, the backend, a test's own settings).
 */
export function testEnv(values: Record<string, string | undefined>) {
  return parseEnv({
    NODE_ENV: "test",
    JWT_SECRET: "test-jwt-secret-that-is-at-least-32-characters",
    ENCRYPTION_KEY: "test-encryption-key-at-least-32-characters",
    PUBLIC_URL: "http://app.test",
    LOG_LEVEL: "silent",
    BCRYPT_COST: "4",
    ...values,
  });
}

/**
 * A real application for integration tests: embedded PostgreSQL in memory (or the DATABASE_URL
 * server, in a schema of its own) and the in-process store (or REDIS_URL, under a key prefix of its
 * own), so test files can run in parallel against shared servers without seeing each other.
 */
export async function createTestApp(overrides: Record<string, string> = {}, options: { logger?: Logger; storeKeyPrefix?: string } = {}): Promise<AppServices> {
  const suffix = randomBytes(6).toString("hex");
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "fp-test-"));
  let app: AppServices;
  let schema: string | undefined;
  let env: ReturnType<typeof testEnv>;
  try {
    env = testEnv({ DATA_DIR: dataDir, DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: process.env.REDIS_URL, ...overrides });
    schema = env.DATABASE_URL ? `test_${suffix}` : undefined;
    app = await createAppServices({
      env,
      dataDirForDb: env.DATABASE_URL ? dataDir : "memory://",
      dbImage: env.DATABASE_URL ? undefined : await testDatabaseImage(),
      dbSchema: schema,
      storeKeyPrefix: options.storeKeyPrefix ?? `fp-test-${suffix}:`,
      logger: options.logger ?? createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
      // Test files stand up several apps in one worker to play several instances.
      allowSeveralPerProcess: true,
    });
  } catch (err) {
    // A test that expects the start to fail (a bad setting) leaves no directory behind.
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const close = app.close;
  app.close = async () => {
    await close().catch(() => {});
    if (schema && env.DATABASE_URL) {
      // Leave the shared database as we found it.
      const client = new pg.Client({ connectionString: env.DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  return app;
}

/**
 * An app on the embedded database kept on disk in `dataDir` (whatever DATABASE_URL says): start it
 * again on the same directory to test what survives a restart. The caller closes it and removes
 * the directory.
 */
export function startEmbeddedApp(dataDir: string, options: { dataDirForDb?: string; storeKeyPrefix?: string } = {}): Promise<AppServices> {
  return createAppServices({
    env: testEnv({ DATA_DIR: dataDir }),
    dataDirForDb: options.dataDirForDb ?? dataDir,
    ...(options.storeKeyPrefix ? { storeKeyPrefix: options.storeKeyPrefix } : {}),
    logger: createLogger({ level: "silent" }),
    allowSeveralPerProcess: true,
  });
}

/**
 * An app that restarts on the same state: the same database (a PGlite directory, or a PostgreSQL
 * schema of its own with DATABASE_URL) and the same store prefix (Redis with REDIS_URL) at each
 * `start()`. `cleanUp()` (an afterAll) drops the schema and removes the directory.
 */
export function restartableApp(label: string) {
  const suffix = randomBytes(6).toString("hex");
  // Made at the first start: a file whose tests are all skipped (no Redis, say) runs no afterAll.
  let made: string | undefined;
  const dir = () => (made ??= mkdtempSync(path.join(os.tmpdir(), `fp-${label}-`)));
  const schema = process.env.DATABASE_URL ? `test_${label.replace(/\W/g, "_")}_${suffix}` : undefined;
  return {
    /** The store's key prefix, `fp-test-<suffix>:`. */
    storeKeyPrefix: `fp-test-${suffix}:`,
    start(extra: Record<string, string> = {}): Promise<AppServices> {
      return createAppServices({
        env: testEnv({ ...extra, DATA_DIR: dir(), DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: process.env.REDIS_URL }),
        dataDirForDb: path.join(dir(), "db"),
        dbSchema: schema,
        storeKeyPrefix: `fp-test-${suffix}:`,
        // Warnings show in the test's output (a slow CONNECT is logged with the step it waited on).
        logger: createLogger({ level: process.env.TEST_LOG_LEVEL ?? "warn" }),
        allowSeveralPerProcess: true,
      });
    },
    async cleanUp() {
      if (schema && process.env.DATABASE_URL) {
        const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      }
      if (made) rmSync(made, { recursive: true, force: true });
    },
  };
}

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
  /** The body's bytes (GET /files/{path} answers bytes). */
  bytes: Buffer;
}

export interface TestRequestOptions {
  body?: unknown;
  /** A raw body sent as is (malformed JSON, wrong content type, a file's bytes). */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
  token?: string;
  ip?: string;
}

/** Sends a request through the same REST adapter the server uses, without opening a port. */
export function restClient(app: AppServices) {
  const handle = createRestHandler({ router: appRouter, getAppServices: async () => app });
  return async function request<T = any>(method: string, path: string, options: TestRequestOptions = {}): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { [CLIENT_IP_HEADER]: options.ip ?? "203.0.113.10", ...options.headers };
    let body: string | Uint8Array<ArrayBuffer> | undefined;
    if (options.rawBody !== undefined) body = typeof options.rawBody === "string" ? options.rawBody : new Uint8Array(options.rawBody);
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    if (body !== undefined) headers["content-length"] ??= String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength);
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const res = await handle(new Request(`http://app.test/api/v1${path}`, { method, headers, body }));
    const bytes = Buffer.from(await res.arrayBuffer());
    const text = bytes.toString("utf8");
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text, bytes };
  };
}

/** A tRPC caller with the same inner context the transports build. */
export function testCaller(app: AppServices, request: Parameters<typeof createInnerContext>[1] = {}) {
  return createCaller(createInnerContext(app, request));
}
