/**
 * The mysql node's cases (node-red-node-mysql 3.0, as Node-RED runs it) against a real MySQL or
 * MariaDB server (127.0.0.1:3306, root without a password, or MYSQL_TEST_URL): a `MySQLdatabase`
 * configuration node, one `mysql` node, the SQL that prepares the case's database, and the
 * messages sent. Recorded from Node-RED 5.0 by `npx tsx scripts/mysql-record.ts` into
 * mysql-cases.recorded.json: the messages that came out (through JSON), the errors a catch node saw, the node's statuses after the first
 * message, and what the database holds afterwards. `mysql.test.ts` runs each against ours (not
 * `cases.ts`: those are the differential harness's message cases).
 */
export interface MysqlCase {
  name: string;
  /** The configuration node's Node-RED properties beyond host, port and db. */
  config?: Record<string, unknown>;
  /** Default: the server's user and password. */
  credentials?: { user?: string; password?: string };
  /** The database's name instead of the case's own (one that does not exist). */
  database?: string;
  /** SQL run on the case's database before the flow starts. */
  setup?: string[];
  /** Messages sent to the mysql node: the first 600 ms after the deploy (the node has connected by then), each next 200 ms after the one before (a pool's queries may finish out of order). */
  msgs: Array<Record<string, unknown>>;
  /** SQL whose rows are recorded afterwards (what the messages wrote). */
  after?: string;
}

/** The name the recording knows the case's database by (each run uses one of its own, written back as this). */
export const CASES_DATABASE = "fpcases";

/**
 * A value as the recording keeps it: through JSON, as Node-RED's collector kept it (a Date is its
 * ISO text, bytes `{ type: "Buffer", data }`). Types beyond JSON are asserted in mysql.test.ts.
 */
export const asJson = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

const TABLE = [
  "DROP TABLE IF EXISTS fruit",
  "CREATE TABLE fruit (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(50) NOT NULL, price DECIMAL(10,2), ratio DOUBLE, picked DATETIME, day DATE, ripe TINYINT(1), big BIGINT, note TEXT, photo BLOB, at TIMESTAMP NULL) CHARACTER SET utf8mb4",
  "INSERT INTO fruit (name, price, ratio, picked, day, ripe, big, note, photo, at) VALUES " +
    "('apple', 1.25, 0.5, '2026-12-07 10:30:00', '2026-12-07', 1, 9007199254740993, 'crisp', X'00ff10', '2026-12-07 08:00:00'), " +
    "('pear', 2.00, NULL, NULL, NULL, 0, -5, NULL, NULL, NULL)",
];

export const cases: MysqlCase[] = [
  { name: "a SELECT's rows: numbers, decimals as numbers, dates, bytes, NULLs", setup: TABLE, msgs: [{ topic: "SELECT * FROM fruit ORDER BY id" }] },
  { name: "no rows: an empty list", setup: TABLE, msgs: [{ topic: "SELECT name FROM fruit WHERE id > 100" }] },
  {
    name: "an INSERT with an array bound to ?: the result header (insertId, affectedRows)",
    setup: TABLE,
    msgs: [{ topic: "INSERT INTO fruit (name, price, ripe) VALUES (?, ?, ?)", payload: ["plum", 3.5, true] }],
    after: "SELECT id, name, price, ripe FROM fruit ORDER BY id",
  },
  {
    name: "an object binds :names (quoted and escaped), and other properties stay",
    setup: TABLE,
    msgs: [{ topic: "SELECT id, name FROM fruit WHERE name = :name OR note = :note", payload: { name: "pe'ar", note: "crisp" }, keep: "me" }],
  },
  {
    name: "an object's :name missing from it is left in the text (an SQL error)",
    setup: TABLE,
    msgs: [{ topic: "SELECT id FROM fruit WHERE name = :name AND id = :id", payload: { name: "apple" } }],
  },
  {
    name: "an object binds text, null and a number; ISO date text is no DATETIME to the server",
    setup: TABLE,
    msgs: [{ topic: "INSERT INTO fruit (name, picked, note, price) VALUES (:name, :when, :note, :price)", payload: { name: "fig", when: "2026-01-02T03:04:05.000Z", note: null, price: 4 } }],
    after: "SELECT name, picked, note, price FROM fruit WHERE name = 'fig'",
  },
  {
    name: "an UPDATE: affected and changed rows, and the server's info text",
    setup: TABLE,
    msgs: [{ topic: "UPDATE fruit SET price = price + 1 WHERE ripe = ?", payload: [1] }],
    after: "SELECT name, price FROM fruit ORDER BY id",
  },
  {
    name: "several statements at once: a list of results",
    setup: TABLE,
    msgs: [{ topic: "SELECT 1 AS a; UPDATE fruit SET ripe = 1 WHERE id = 2; SELECT name FROM fruit WHERE ripe = 1 ORDER BY id" }],
  },
  { name: "an SQL syntax error: the node's error, with the message", setup: TABLE, msgs: [{ topic: "SELEKT * FROM fruit", payload: 1 }] },
  { name: "a table that does not exist", setup: TABLE, msgs: [{ topic: "SELECT * FROM nowhere" }] },
  { name: "a duplicate key", setup: TABLE, msgs: [{ topic: "INSERT INTO fruit (id, name) VALUES (1, 'again')" }] },
  {
    name: "a topic that is not text: an error no catch node sees, and nothing runs",
    setup: TABLE,
    msgs: [{ topic: 42, payload: "DROP TABLE fruit" }, { payload: "SELECT 1" }],
    after: "SELECT COUNT(*) AS n FROM fruit",
  },
  {
    name: "a text payload binds nothing: a ? stays and fails",
    setup: TABLE,
    msgs: [{ topic: "SELECT ? AS x", payload: "hello" }],
  },
  {
    name: "a timezone: DATETIME read and written at +02:00",
    config: { tz: "+02:00" },
    setup: TABLE,
    msgs: [
      { topic: "SELECT picked, day, at FROM fruit WHERE id = 1" },
      { topic: "INSERT INTO fruit (name, picked) VALUES (?, ?)", payload: ["kiwi", new Date("2026-06-01T12:00:00.000Z")] },
    ],
    after: "SELECT name, CAST(picked AS CHAR) AS picked FROM fruit WHERE name = 'kiwi'",
  },
  {
    name: "UTF8MB4: an emoji written and read back",
    config: { charset: "UTF8MB4" },
    setup: TABLE,
    msgs: [{ topic: "INSERT INTO fruit (name) VALUES (?)", payload: ["melon 🍈"] }, { topic: "SELECT name FROM fruit WHERE id = 3" }],
  },
  {
    name: "a database that does not exist: every message is 'Database not connected'",
    database: "fpcases_none",
    msgs: [{ topic: "SELECT 1" }],
  },
  {
    name: "a wrong password: 'Database not connected'",
    credentials: { user: "fpcases_nobody", password: "wrong" },
    msgs: [{ topic: "SELECT 1" }],
  },
  {
    name: "messages one after another: what each wrote, the next reads",
    setup: TABLE,
    msgs: [
      { topic: "INSERT INTO fruit (name) VALUES (?)", payload: ["a"] },
      { topic: "INSERT INTO fruit (name) VALUES (?)", payload: ["b"] },
      { topic: "SELECT name FROM fruit ORDER BY id" },
    ],
  },
];
