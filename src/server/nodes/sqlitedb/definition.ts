import { z } from "zod";
import { defineNode } from "../types";
import { normalizeFilePath } from "../../../shared/file-paths";

/** Node-RED's name for a database that lives in memory only. */
export const MEMORY_DATABASE = ":memory:";

const HELP = `A SQLite database (node-red-node-sqlite's *sqlitedb*) that **SQLite** nodes query: one of the organization's files, or \`:memory:\`.

### Inputs

None: a configuration node has no wires.

### Outputs

None.

### Details

- **Database**: the database's file, a path inside the organization's files (\`data/plant.db\`),
  the same files the **file** nodes and the **Files** page (\`/files\`) read and write: download a
  database there, or upload one made elsewhere. An absolute path (\`/home/pi/plant.db\`) is taken
  relative to them; an import of a flow says so in its report.
  \`:memory:\` is a database in memory only, empty at each start of the flow, private to this
  configuration node.
- **Mode**: *Read-Write-Create* creates the database when its file does not exist (on the first
  change), *Read-Write* and *Read-Only* need the file to exist (\`SQLITE_CANTOPEN: unable to open
  database file\` otherwise); with *Read-Only* every change fails (\`SQLITE_READONLY\`).
- The SQLite nodes that name this configuration share one connection to the database on an
  instance, as in Node-RED. Other configurations, flows on other instances, **file** nodes and
  uploads may use the same file at once: every change is written to the file before the message
  that made it goes on, and each query sees the changes written before it.

### Differences from Node-RED

- The database is one of the organization's files, not a file on a server's disk: it may grow as
  large as one file may (\`FILES_MAX_UPLOAD_BYTES\`, 10 MiB unless the platform sets more), and it
  counts toward the organization's files (\`FILES_MAX_BYTES\`). Past either a change fails with
  \`SQLITE_FULL: database or disk is full\`, and nothing of it is kept.
- A database is loaded into memory where it is used and written back whole after a change; it
  suits the tables flows keep (readings, orders, logs), not a data warehouse.
- A transaction begun with \`BEGIN\` in one message and ended in a later one keeps its changes
  from the file until \`COMMIT\`; a change to the file by someone else meanwhile (another
  instance, an upload) rolls it back, and the next statement fails with \`SQLITE_ABORT\` saying so.
- A \`:memory:\` database is lost if the instance's SQLite worker restarts (a statement that
  stopped answering): the next statement fails with \`SQLITE_ABORT\` saying so, and the database
  is empty again, as Node-RED's is after a restart.`;

export const sqlitedbConfig = z
  .object({
    db: z.string().trim().min(1).max(1024).default("sqlite.db").meta({ title: "Database", description: "A path inside the organization's files (data/plant.db), or :memory:" }),
    mode: z
      .enum(["RWC", "RW", "RO"])
      .default("RWC")
      .meta({ title: "Mode", description: "Read-Write and Read-Only need the database to exist", enumLabels: { RWC: "Read-Write-Create", RW: "Read-Write", RO: "Read-Only" } }),
  })
  .superRefine((c, ctx) => {
    if (c.db === MEMORY_DATABASE) return;
    const normalized = normalizeFilePath(c.db);
    if (!normalized.ok) ctx.addIssue({ code: "custom", path: ["db"], message: normalized.problem });
  });
export type SqlitedbConfig = z.infer<typeof sqlitedbConfig>;

export const sqlitedbNode = defineNode({
  type: "sqlitedb",
  version: 1,
  category: "config",
  kind: "config",
  name: "SQLite database",
  description: "A SQLite database, one of the organization's files (or :memory:), that SQLite nodes query.",
  help: HELP,
  inputs: 0,
  outputs: 0,
  configSchema: sqlitedbConfig,
  nodeRed: {
    type: "sqlitedb",
    toNodeRed: (c) => ({ db: c.db, mode: c.mode }),
    fromNodeRed: (p) => ({
      db: typeof p.db === "string" ? p.db : "",
      mode: p.mode === "RW" || p.mode === "RO" ? p.mode : "RWC",
    }),
    importNotes: (p) => {
      if (typeof p.db !== "string" || p.db === MEMORY_DATABASE) return [];
      const normalized = normalizeFilePath(p.db);
      if (!normalized.ok || !normalized.absolute) return [];
      return [`database "${p.db.slice(0, 200)}" is taken relative to the organization's files: "${normalized.path.slice(0, 200)}"`];
    },
  },
});
