/**
 * `node dist/server/make-pgdata-template.js <dir>` (run by `node scripts/build.mjs pgdata`, part of
 * `npm run build`): makes the embedded database's data directory a new DATA_DIR starts from
 * (db.ts, embeddedTemplateDir): initdb with the embedded settings, then this build's migrations.
 */
import { mkdtempSync, renameSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "./db";

const target = path.resolve(process.argv[2] ?? "dist/pgdata-template");
const work = mkdtempSync(path.join(os.tmpdir(), "fp-pgdata-"));
try {
  const db = await openDatabase({ dataDir: work, templateDir: null });
  const applied = db.migrations.applied.length;
  await db.close();
  rmSync(target, { recursive: true, force: true });
  renameSync(path.join(work, "pgdata"), target);
  console.log(`embedded database template: ${applied} migrations, ${path.relative(process.cwd(), target)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
