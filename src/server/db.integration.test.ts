import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { createHash, randomBytes } from "node:crypto";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { embeddedImage, openDatabase } from "./db";
import { readMigrations } from "./migrate";
import { isListening, proxiedUrl } from "@/test/tcp-proxy";
import { createTestApp, restClient } from "@/test/app";
import { newId } from "./ids";

const PG_URL = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const pgAvailable = process.env.DATABASE_URL ? true : await isListening(5432);

describe("an in-memory embedded database from an image (tests)", () => {
  it("starts migrated, with nothing to apply, and each one started from the image is its own", { timeout: 90_000 }, async () => {
    const image = await embeddedImage();
    const [a, b] = await Promise.all([openDatabase({ dataDir: "memory://", image }), openDatabase({ dataDir: "memory://", image })]);
    try {
      expect(a.migrations).toEqual({ applied: [], alreadyApplied: readMigrations().length });
      await a.prisma.organization.create({ data: { id: "org_image", name: "Only in a", slug: "only-in-a" } });
      expect(await a.prisma.organization.count({ where: { id: "org_image" } })).toBe(1);
      expect(await b.prisma.organization.count({ where: { id: "org_image" } })).toBe(0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe("embedded PostgreSQL under DATA_DIR", () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "fp-db-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("applies every migration on a fresh DATA_DIR, recorded as Prisma's CLI records them", { timeout: 90_000 }, async () => {
    const db = await openDatabase({ dataDir });
    const files = readMigrations();
    expect(db.migrations.applied).toEqual(files.map((f) => f.name));
    const rows = await db.prisma.$queryRawUnsafe<{ migration_name: string; checksum: string; finished_at: Date | null }[]>(
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" ORDER BY migration_name`,
    );
    expect(rows.map((r) => r.migration_name)).toEqual(files.map((f) => f.name));
    for (const [i, row] of rows.entries()) {
      expect(row.checksum).toBe(createHash("sha256").update(files[i]!.sql).digest("hex"));
      expect(row.finished_at).not.toBeNull();
    }
    await db.prisma.organization.create({ data: { id: "org_restart", name: "Kept", slug: "kept" } });
    await db.close();
  });

  it("keeps its data across a restart and applies nothing twice", async () => {
    const db = await openDatabase({ dataDir });
    expect(db.migrations.applied).toEqual([]);
    expect(db.migrations.alreadyApplied).toBe(readMigrations().length);
    const org = await db.prisma.organization.findUnique({ where: { id: "org_restart" } });
    expect(org?.name).toBe("Kept");
    await db.close();
  });
});

describe.skipIf(!pgAvailable)("real PostgreSQL (DATABASE_URL)", () => {
  it("applies the migrations to a fresh schema, once, even when two instances start together", async () => {
    const schema = `mig_${randomBytes(5).toString("hex")}`;
    const [a, b] = await Promise.all([
      openDatabase({ databaseUrl: PG_URL, dataDir: "unused", schema }),
      openDatabase({ databaseUrl: PG_URL, dataDir: "unused", schema }),
    ]);
    const names = readMigrations().map((f) => f.name);
    expect([...a.migrations.applied, ...b.migrations.applied].sort()).toEqual(names);
    await a.prisma.user.create({ data: { id: newId("usr"), email: "a@example.com", passwordHash: "x" } });
    expect(await b.prisma.user.count()).toBe(1);
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM "${schema}"."_prisma_migrations"`);
    expect(rows[0].n).toBe(names.length);
    await client.query(`DROP SCHEMA "${schema}" CASCADE`);
    await client.end();
    await Promise.all([a.close(), b.close()]);
  });

  it("a statement past the time limit is cancelled by the server, its transaction rolls back, and the pool goes on clean", async () => {
    const schema = `stmt_${randomBytes(5).toString("hex")}`;
    const db = await openDatabase({ databaseUrl: PG_URL, dataDir: "unused", schema });
    try {
      const email = `slow-${randomBytes(3).toString("hex")}@example.com`;
      const slow = db.prisma.$transaction(async (tx) => {
        await tx.user.create({ data: { id: newId("usr"), email, passwordHash: "x" } });
        await tx.$queryRawUnsafe("SELECT pg_sleep(5)");
      });
      // Cancelled by statement_timeout (2.5 s), before the client's own 3 s timeout.
      await expect(slow).rejects.toThrow(/statement timeout|canceling statement/);
      // Nothing of it was committed, and every connection of the pool is usable and outside any transaction.
      expect(await db.prisma.user.count({ where: { email } })).toBe(0);
      const states = await Promise.all(Array.from({ length: 10 }, () => db.sql<{ tx: string }>("SELECT txid_current_if_assigned()::text AS tx", [])));
      expect(states.every((r) => r[0]!.tx === null)).toBe(true);
    } finally {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA "${schema}" CASCADE`);
      await client.end();
      await db.close();
    }
  });

  it("answers 503 while PostgreSQL is unreachable and recovers when it is back", async () => {
    const { proxy, url: proxied } = await proxiedUrl(PG_URL, 5432);
    const app = await createTestApp({ DATABASE_URL: proxied });
    const request = restClient(app);
    try {
      expect((await request("GET", "/ready")).status).toBe(200);
      await proxy.stop();
      const started = Date.now();
      const down = await request("GET", "/ready");
      expect(down.status).toBe(503);
      expect(down.body.error.code).toBe("UNAVAILABLE");
      expect(down.body.error.details.map((d: { path: string }) => d.path)).toEqual(["database"]);
      // Fails closed within the ping timeout instead of hanging.
      expect(Date.now() - started).toBeLessThan(5000);
      await proxy.start(proxy.port);
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        status = (await request("GET", "/ready")).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 200));
      }
      expect(status).toBe(200);
    } finally {
      await app.close();
      await proxy.stop();
    }
  });
});

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const redisAvailable = process.env.REDIS_URL ? true : await isListening(6379);

describe.skipIf(!redisAvailable)("real Redis (REDIS_URL)", () => {
  it("answers 503 while Redis is unreachable and recovers when it is back", async () => {
    const { proxy, url: proxied } = await proxiedUrl(REDIS_URL, 6379);
    const app = await createTestApp({ REDIS_URL: proxied });
    const request = restClient(app);
    try {
      let status = 0;
      for (let i = 0; i < 25 && status !== 200; i++) {
        status = (await request("GET", "/ready")).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 200));
      }
      expect(status).toBe(200);
      await proxy.stop();
      const started = Date.now();
      const down = await request("GET", "/ready");
      expect(down.status).toBe(503);
      expect(down.body.error.details.map((d: { path: string }) => d.path)).toEqual(["store"]);
      expect(Date.now() - started).toBeLessThan(5000);
      await proxy.start(proxy.port);
      status = 0;
      for (let i = 0; i < 60 && status !== 200; i++) {
        status = (await request("GET", "/ready")).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 250));
      }
      expect(status).toBe(200);
    } finally {
      await app.close();
      await proxy.stop();
    }
  });
});
