import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { applyMigrations, type SqlExecutor } from "@/server/migrate";

const ALL = path.resolve("prisma/migrations");

/**
 * A data migration's test bench: an in-memory PGlite with every migration before `migration`
 * applied, so the test can store data in the earlier shape; `migrate()` then applies the rest
 * (this one included) and says which ran; `close()` ends it and removes the copied folder.
 */
export async function databaseBefore(migration: string) {
  const pg = new PGlite();
  const db: SqlExecutor = { exec: async (sql) => void (await pg.exec(sql)), query: async (sql, params) => (await pg.query(sql, params)).rows as never };
  const before = mkdtempSync(path.join(os.tmpdir(), "migrations-"));
  for (const name of readdirSync(ALL)) if (name < migration || !/^\d/.test(name)) cpSync(path.join(ALL, name), path.join(before, name), { recursive: true });
  await applyMigrations(db, { dir: before });
  return {
    pg,
    migrate: () => applyMigrations(db, { dir: ALL }),
    close: async () => {
      await pg.close();
      rmSync(before, { recursive: true, force: true });
    },
  };
}
