import { readdirSync, readFileSync, existsSync } from "node:fs";
import path from "node:path";
import { createHash, randomUUID } from "node:crypto";

/**
 * Applies prisma/migrations/<name>/migration.sql in order, recording each in `_prisma_migrations`
 * exactly as Prisma's CLI does (same table, same sha256 checksum), so `prisma migrate deploy`
 * recognises the history wherever its native engine is available. Prisma's own migrate commands
 * cannot run on our machines (they download a native engine), hence this runner.
 */

export interface SqlExecutor {
  /** Runs one or more statements without parameters. */
  exec(sql: string): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export function defaultMigrationsDir(): string {
  return path.join(/*turbopackIgnore: true*/ process.cwd(), "prisma", "migrations");
}

export function readMigrations(dir = defaultMigrationsDir()): MigrationFile[] {
  if (!existsSync(dir)) throw new Error(`migrations directory not found: ${dir}`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

// Several instances may start at once against one database: the first takes this lock, the others
// wait and then find nothing left to apply.
const LOCK_KEY = 72707369;

export interface MigrateResult {
  applied: string[];
  alreadyApplied: number;
}

export async function applyMigrations(db: SqlExecutor, options: { dir?: string } = {}): Promise<MigrateResult> {
  const migrations = readMigrations(options.dir);
  await db.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
  try {
    await db.exec(CREATE_TABLE);
    const rows = await db.query<{ migration_name: string; checksum: string; finished_at: unknown }>(
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const done = new Map(rows.filter((r) => r.finished_at !== null).map((r) => [r.migration_name, r.checksum]));
    const failed = rows.filter((r) => r.finished_at === null).map((r) => r.migration_name);
    if (failed.length > 0) {
      throw new Error(`migration(s) ${failed.join(", ")} failed earlier and need attention before start-up`);
    }
    const applied: string[] = [];
    for (const m of migrations) {
      const existing = done.get(m.name);
      if (existing !== undefined) {
        if (existing !== m.checksum) {
          throw new Error(`migration ${m.name} was changed after it was applied (checksum mismatch)`);
        }
        continue;
      }
      // Each migration and its history row commit together: a crash leaves it wholly applied or not at all.
      await db.exec("BEGIN");
      try {
        await db.exec(m.sql);
        await db.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
           VALUES ($1, $2, $3, now(), now(), 1)`,
          [randomUUID(), m.checksum, m.name],
        );
        await db.exec("COMMIT");
      } catch (err) {
        await db.exec("ROLLBACK");
        throw new Error(`migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(m.name);
    }
    return { applied, alreadyApplied: done.size };
  } finally {
    await db.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]);
  }
}
