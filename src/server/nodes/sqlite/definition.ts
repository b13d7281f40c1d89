import { z } from "zod";
import { defineNode } from "../types";
import { configNodeRef, configRefFromNodeRed } from "../../../shared/config-nodes";

export const SQL_QUERY_MODES = ["msg.topic", "fixed", "prepared", "batch"] as const;

const HELP = `Queries a SQLite database (node-red-node-sqlite's *sqlite* node): the organization's own, in its files.

### Inputs

- \`topic\` (string): the SQL, with *SQL Query* set to *Via msg.topic* or *Batch without response*.
- \`payload\` (array): with *Via msg.topic*, values for the statement's parameters, in order
  (\`INSERT INTO t (name, surname) VALUES ($name, $surname)\` with \`["John", "Smith"]\`). They are
  bound only when the array holds as many values as the statement has \`$\` signs.
- \`params\` (object or array): with *Prepared Statement*, the parameters by name, \`$\` included
  (\`{$id: 1, $name: "John Doe"}\` for \`... VALUES ($id, $name)\`), or in order.

### Outputs

- \`payload\` (array): the result's rows, each an object of its columns (\`[{id: 1, name: "John"}]\`);
  \`[]\` for a statement that returns none (INSERT, UPDATE, CREATE …) and for *Batch without
  response*. Integers and reals are numbers, texts strings, blobs buffers, NULL \`null\`.

### Details

*SQL Query* sets where the SQL comes from:

- **Via msg.topic**: the message's \`topic\` is the statement. An empty topic does nothing; a topic
  that is not a string is an error.
- **Fixed Statement**: the statement typed in the node, run for every message.
- **Prepared Statement**: the statement typed in the node, with \`msg.params\` bound to its
  parameters: values never become SQL, so nothing a message carries can inject SQL. A parameter
  named in \`msg.params\` that the statement lacks fails with \`SQLITE_RANGE: column index out of
  range\`: keep the \`$\` on the names.
- **Batch without response**: every statement of \`msg.topic\`, separated by \`;\` (a script that
  creates tables, say); \`payload\` is \`[]\`.

With the first three, only the first statement of the SQL runs (SQLite's rule for a prepared
statement); put several in a batch. *Via msg.topic* and *Fixed Statement* run the SQL as written:
build it from a message's values and you invite SQL injection; bind them instead.

A failed statement is the node's error (\`SQLITE_ERROR: no such table: orders\`, with
\`msg.error.code\` the SQLite code), for a **catch** node; the message goes no further. Messages are
run one after the other, in the order they arrive; the node's status shows the database's mode.

SQLite's own SQL: \`CREATE TABLE IF NOT EXISTS\`, \`INSERT … RETURNING\`, \`datetime('now')\`,
JSON functions, window functions, full-text search (FTS5), \`PRAGMA table_info(t)\`.

### Differences from Node-RED

- The database is one of the organization's files (see the **SQLite database** configuration),
  shared by every instance of the platform.
- Loading extensions (\`msg.extension\`) is not offered: the message is an error and its query is
  not run. \`VACUUM\` works as a statement of its own. \`ATTACH\`, \`DETACH\`, \`VACUUM INTO\` and PRAGMAs that reach past the database
  (\`max_page_count\`, \`page_size\`, \`writable_schema\`, heap and cache sizes …) are refused (\`SQLITE_AUTH: not
  authorized\`); \`table_info\`, \`index_list\`, \`foreign_keys\`, \`user_version\` and the other
  PRAGMAs that read the schema or set a connection's behaviour work.
- A statement may run for at most \`SQLITE_STATEMENT_MS\` (5 seconds unless the platform sets
  more): past it, it is interrupted (\`SQLITE_INTERRUPT\`). A result may hold at most 32 MiB, a
  value 16 MiB, and the databases of an instance share \`SQLITE_MEMORY_BYTES\` (256 MiB):
  \`SQLITE_TOOBIG\` and \`SQLITE_NOMEM\` past them. Use \`LIMIT\` for large tables. An
  organization may hold 32 databases open on an instance.
- Messages that arrive together run one after the other, in order; Node-RED's node-sqlite3 runs
  them side by side, so there a CREATE and an INSERT sent at once may meet \`no such table\`.`;

export const sqliteConfig = z.object({
  mydb: configNodeRef("sqlitedb", { title: "Database", description: "The SQLite database configuration" }),
  sqlquery: z
    .enum(SQL_QUERY_MODES)
    .default("msg.topic")
    .meta({
      title: "SQL Query",
      description: "Where the SQL comes from",
      enumLabels: { "msg.topic": "Via msg.topic", fixed: "Fixed Statement", prepared: "Prepared Statement (msg.params)", batch: "Batch without response (msg.topic)" },
    }),
  sql: z.string().max(100_000).default("").meta({ title: "SQL Statement", description: "The statement of a Fixed or Prepared Statement" }),
});
export type SqliteConfig = z.infer<typeof sqliteConfig>;

export const sqliteNode = defineNode({
  type: "sqlite",
  version: 1,
  category: "storage",
  name: "SQLite",
  description: "Runs SQL against a SQLite database of the organization and sends the rows.",
  help: HELP,
  inputs: 1,
  outputs: 1,
  configSchema: sqliteConfig,
  form: { sql: { widget: "code", language: "sql" } },
  nodeRed: {
    type: "sqlite",
    toNodeRed: (c) => ({ mydb: c.mydb, sqlquery: c.sqlquery, sql: c.sql }),
    fromNodeRed: (p) => ({
      mydb: configRefFromNodeRed(p.mydb),
      // Node-RED runs a mode it does not know as none of its four: nothing happens; "msg.topic" is its default.
      sqlquery: (SQL_QUERY_MODES as readonly string[]).includes(String(p.sqlquery)) ? p.sqlquery : "msg.topic",
      sql: typeof p.sql === "string" ? p.sql : "",
    }),
  },
});
