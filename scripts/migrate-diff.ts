/**
 * Writes a new migration from the difference between the schema the last migration was made
 * from (prisma/migrations/schema.snapshot.prisma) and prisma/schema.prisma.
 *
 *   npm run migrate:diff -- add_flows
 *
 * Prisma's own `migrate dev` needs a native schema engine that cannot be downloaded on our
 * machines, so this uses @prisma/schema-engine-wasm's `diff` between two datamodels (no database
 * needed). The generated SQL is reviewed and committed; src/server/migrate.ts applies it.
 */
import { readFileSync, writeFileSync, mkdirSync, existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run migrate:diff -- <snake_case_name>");
  process.exit(2);
}

const root = process.cwd();
const migrationsDir = path.join(root, "prisma/migrations");
const snapshotPath = path.join(migrationsDir, "schema.snapshot.prisma");
const schemaPath = path.join(root, "prisma/schema.prisma");
const next = readFileSync(schemaPath, "utf8");
const prev = existsSync(snapshotPath) ? readFileSync(snapshotPath, "utf8") : null;

// The package's main module imports the .wasm as an ES module, which Node 20 cannot do: load the
// bindings and instantiate the wasm by hand.
const require = createRequire(import.meta.url);
const bgPath = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
const bg = await import(bgPath);
const wasmBytes = readFileSync(path.join(path.dirname(bgPath), "schema_engine_bg.wasm"));
const { instance } = await WebAssembly.instantiate(wasmBytes, { "./schema_engine_bg.js": bg });
bg.__wbg_set_wasm(instance.exports);
(instance.exports as { __wbindgen_start?: () => void }).__wbindgen_start?.();

const pglite = new PGlite();
const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaPGlite(pglite));
const engine = await bg.SchemaEngine.new({ datamodels: [["schema.prisma", next]] }, () => {}, adapter);

const result = await engine.diff({
  from: prev ? { tag: "schemaDatamodel", files: [{ path: "schema.prisma", content: prev }] } : { tag: "empty" },
  to: { tag: "schemaDatamodel", files: [{ path: "schema.prisma", content: next }] },
  script: true,
  exitCode: null,
  filters: { externalTables: [], externalEnums: [] },
});
const sql: string = result.stdout ?? "";
if (!sql.trim() || /^-- This is an empty migration/.test(sql.trim())) {
  console.log("schema.prisma matches the last migration: nothing to write");
  process.exit(0);
}

const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
const existing = readdirSync(migrationsDir).filter((d) => /^\d{14}_/.test(d));
const dir = path.join(migrationsDir, `${stamp}_${name}`);
if (existing.some((d) => d.endsWith(`_${name}`))) {
  console.error(`a migration named ${name} exists already`);
  process.exit(2);
}
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, "migration.sql"), sql);
writeFileSync(snapshotPath, next);
if (!existsSync(path.join(migrationsDir, "migration_lock.toml"))) {
  writeFileSync(path.join(migrationsDir, "migration_lock.toml"), 'provider = "postgresql"\n');
}
console.log(`wrote ${path.relative(root, dir)}/migration.sql`);
await pglite.close();
