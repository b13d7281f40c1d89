/**
 * The postgresql node's cases (node-red-contrib-postgresql 0.16, as Node-RED runs it) against a
 * real PostgreSQL (127.0.0.1:5432 as postgres, or PG_TEST_URL): a `postgreSQLConfig`, one
 * `postgresql` node, the SQL that prepares the case's database, and the messages sent (the first
 * 600 ms after the deploy, each next 200 ms later). Recorded from Node-RED 5.0 by `npx tsx
 * scripts/postgresql-record.ts` into pg-cases.recorded.json: the messages out and those a catch node
 * saw (as JSON, `parts.id` written as its order of appearance, the run's database as `fpcases`), and
 * what the database holds afterwards. `postgresql.test.ts` runs each against ours.
 */
export interface PgCase {
  name: string;
  /** The configuration node's Node-RED properties beyond host, port and database. */
  config?: Record<string, unknown>;
  /** The database's name instead of the case's own (one that does not exist). */
  database?: string;
  /** The node's Node-RED properties beyond its configuration reference. */
  node: { query: string; split?: boolean; rowsPerMsg?: number };
  setup?: string[];
  msgs: Array<Record<string, unknown>>;
  after?: string;
}

export const PG_CASES_DATABASE = "fpcases";

const TABLE = [
  "DROP TABLE IF EXISTS fruit",
  "CREATE TABLE fruit (id SERIAL PRIMARY KEY, name TEXT NOT NULL, price NUMERIC(10,2), ratio DOUBLE PRECISION, big BIGINT, ripe BOOLEAN, picked TIMESTAMPTZ, day DATE, tags TEXT[], info JSONB, photo BYTEA)",
  "INSERT INTO fruit (name, price, ratio, big, ripe, picked, day, tags, info, photo) VALUES " +
    "('apple', 1.25, 0.5, 9007199254740993, true, '2026-12-07 10:30:00+00', '2026-12-07', '{red,crisp}', '{\"origin\": \"NZ\", \"grade\": 1}', '\\x00ff10'), " +
    "('pear', 2.00, NULL, -5, false, NULL, NULL, NULL, NULL, NULL)",
];
const FIVE = [...TABLE, "INSERT INTO fruit (name) VALUES ('fig'), ('kiwi'), ('plum')"];

export const cases: PgCase[] = [
  { name: "a SELECT's rows: int8 and numeric as text, booleans, dates, arrays, json, bytea, NULLs", setup: TABLE, node: { query: "SELECT * FROM fruit ORDER BY id" }, msgs: [{ topic: "t" }] },
  { name: "no rows: an empty list, rowCount 0", setup: TABLE, node: { query: "SELECT name FROM fruit WHERE id > 100" }, msgs: [{}] },
  {
    name: "msg.params bind $1 and $2: an INSERT … RETURNING",
    setup: TABLE,
    node: { query: "INSERT INTO fruit (name, price, ripe) VALUES ($1, $2, $3) RETURNING id, name, price" },
    msgs: [{ params: ["plum", 3.5, true] }],
    after: "SELECT id, name, price, ripe FROM fruit ORDER BY id",
  },
  {
    name: "msg.queryParameters bind $names, sorted into $1 …; other properties stay",
    setup: TABLE,
    node: { query: "SELECT id, name FROM fruit WHERE name = $name OR id = $id ORDER BY id" },
    msgs: [{ queryParameters: { name: "pear", id: 1 }, keep: "me" }],
  },
  { name: "a $name msg.queryParameters lacks: Missing Parameters", setup: TABLE, node: { query: "SELECT id FROM fruit WHERE name = $name AND id = $id" }, msgs: [{ queryParameters: { name: "apple" } }] },
  {
    name: "the query is a Mustache template of the message: {{ }} escapes HTML, {{{ }}} does not",
    node: { query: "SELECT '{{msg.topic}}' AS escaped, '{{{msg.topic}}}' AS raw, {{msg.payload.n}} AS n" },
    msgs: [{ topic: "a<b&c", payload: { n: 42 } }],
  },
  { name: "msg.query wins over the node's query", setup: TABLE, node: { query: "SELECT 1 AS one" }, msgs: [{ query: "SELECT name FROM fruit WHERE id = 2" }] },
  {
    name: "an UPDATE: command and rowCount, no rows",
    setup: TABLE,
    node: { query: "UPDATE fruit SET price = price + 1 WHERE ripe = $1" },
    msgs: [{ params: [true] }],
    after: "SELECT name, price FROM fruit ORDER BY id",
  },
  {
    name: "several statements at once: their rows together, pgsql a list with each one's rows",
    setup: TABLE,
    node: { query: "SELECT 1 AS a; UPDATE fruit SET ripe = true WHERE id = 2; SELECT name FROM fruit WHERE ripe ORDER BY id" },
    msgs: [{}],
  },
  { name: "an SQL syntax error: the payload is the error and the query, parts abort", setup: TABLE, node: { query: "SELEKT * FROM fruit" }, msgs: [{ payload: 1 }] },
  { name: "a table that does not exist", node: { query: "SELECT * FROM nowhere" }, msgs: [{}] },
  {
    name: "split, 2 rows per message: parts, count and complete on the last; each next part after a tick",
    setup: FIVE,
    node: { query: "SELECT id, name FROM fruit ORDER BY id", split: true, rowsPerMsg: 2 },
    msgs: [{ topic: "all" }, { tick: true }, { tick: true }, { tick: true }],
  },
  {
    name: "split, 1 row per message: the row itself; after the last row an empty part completes",
    setup: TABLE,
    node: { query: "SELECT id, name FROM fruit ORDER BY id", split: true, rowsPerMsg: 1 },
    msgs: [{}, { tick: true }, { tick: true }, { tick: true }],
  },
  { name: "split without a tick: only the first part", setup: FIVE, node: { query: "SELECT id FROM fruit ORDER BY id", split: true, rowsPerMsg: 2 }, msgs: [{}] },
  {
    name: "split, a message while another's parts wait: the first is dropped, the second runs",
    setup: FIVE,
    node: { query: "SELECT id FROM fruit WHERE id <= {{msg.payload}} ORDER BY id", split: true, rowsPerMsg: 2 },
    msgs: [{ payload: 5 }, { payload: 3 }, { tick: true }, { tick: true }],
  },
  { name: "a database that does not exist: the error, the query in the payload", database: "fpcases_none", node: { query: "SELECT 1" }, msgs: [{}] },
];
