/**
 * node-red-node-sqlite 1.1.1's `sqlite` node (node-sqlite3 5.1.7, SQLite 3.44), run by Node-RED
 * 5.0 (bench/node-red-5 holds the package), against ours (SQLite 3.54 in WebAssembly). Every case
 * has its own `:memory:` database (its own configuration node id): Node-RED's on no disk, ours in no
 * file, empty at the start. A catch node collects the node's errors ("caught").
 *
 * node-sqlite3 runs the statements of messages that arrive together side by side (a CREATE and an
 * INSERT sent at once may run INSERT first, "no such table"); ours runs them in order. So a case
 * whose statements depend on each other sends one message down a chain of nodes (`chain`), each
 * step's answer also going to its own collector, and only independent statements go to one node
 * as several messages.
 */
import type { DiffCase } from "@/test/node-red-diff/types";

const memory = (id: string, mode = "RWC") => ({ id, type: "sqlitedb", db: ":memory:", mode });
const sqlite = (id: string, db: string, props: Record<string, unknown>, wires: string[][] = [["out"]]) => ({ id, type: "sqlite", name: "", mydb: db, sqlquery: "msg.topic", sql: "", wires, ...props });
const catchAll = { id: "c", type: "catch", name: "", scope: null, uncaught: false, wires: [["caught"]] };
/** A change node setting msg.topic, and msg.payload from JSON when given. */
const setTopic = (id: string, topic: string, payloadJson?: string) => ({
  id,
  type: "change",
  name: "",
  rules: [{ t: "set", p: "topic", pt: "msg", to: topic, tot: "str" }, ...(payloadJson !== undefined ? [{ t: "set", p: "payload", pt: "msg", to: payloadJson, tot: "json" }] : [])],
  wires: [] as string[][],
});

type Step = { topic: string; payload?: string } | { fixed: string } | { prepared: string };

/**
 * One message down a chain: a batch node runs `setup` (the message's topic), then each step (a new
 * topic for a msg.topic node, or a fixed or prepared node) runs in turn; step i's answer goes to
 * collector `s<i>` and on to the next.
 */
function chain(db: string, steps: Step[]): DiffCase["nodes"] {
  const nodes: DiffCase["nodes"] = [sqlite("setup", db, { sqlquery: "batch" }, [[steps.length ? "n0" : "s-setup"]])];
  steps.forEach((step, i) => {
    const next = i + 1 < steps.length ? [`n${i + 1}`] : [];
    const q = `q${i}`;
    if ("topic" in step) {
      nodes.push({ ...setTopic(`n${i}`, step.topic, step.payload), wires: [[q]] });
      nodes.push(sqlite(q, db, {}, [[`s${i}`, ...next]]));
    } else {
      const props = "fixed" in step ? { sqlquery: "fixed", sql: step.fixed } : { sqlquery: "prepared", sql: step.prepared };
      nodes.push({ ...setTopic(`n${i}`, `step ${i}`), wires: [[q]] });
      nodes.push(sqlite(q, db, props, [[`s${i}`, ...next]]));
    }
  });
  return nodes;
}

const CREATE = "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE, v REAL)";

export const cases: DiffCase[] = [
  {
    name: "via msg.topic: create, insert and select, rows as objects",
    nodes: [
      ...chain("db1", [
        { topic: "INSERT INTO t (name, v) VALUES ('a', 1.5), ('b', 2)" },
        { topic: "SELECT * FROM t ORDER BY id" },
        { topic: "SELECT name, v * 2 AS twice, NULL AS nothing_here, 7 / 2 AS div FROM t WHERE name = 'b'" },
      ]),
      catchAll,
    ],
    configNodes: [memory("db1")],
    input: "setup",
    send: [{ msg: { topic: CREATE, payload: "kept" } }],
    expect: 3,
  },
  {
    name: "via msg.topic: the payload is bound only when it has as many values as the SQL has $ signs",
    nodes: [
      ...chain("db2", [
        { topic: "INSERT INTO t (name, v) VALUES ($name, $v)", payload: '["x", 2.25]' },
        { topic: "INSERT INTO t (name, v) VALUES ($name, 3)", payload: '["too", "many"]' },
        { topic: "INSERT INTO t (name, v) VALUES (?, ?)", payload: '["question", 1]' },
        { topic: "INSERT INTO t (name, v) VALUES ($name, 5)", payload: '"not an array"' },
        { topic: "SELECT name, v FROM t ORDER BY id" },
      ]),
      catchAll,
    ],
    configNodes: [memory("db2")],
    input: "setup",
    send: [{ msg: { topic: CREATE } }],
    expect: 5,
  },
  {
    name: "via msg.topic: only the first statement of the topic runs",
    nodes: [...chain("db3", [{ topic: "INSERT INTO t (name) VALUES ('first'); INSERT INTO t (name) VALUES ('second')" }, { topic: "SELECT name FROM t" }]), catchAll],
    configNodes: [memory("db3")],
    input: "setup",
    send: [{ msg: { topic: CREATE } }],
    expect: 2,
  },
  {
    name: "an error goes to catch with SQLite's code: no such table",
    nodes: [sqlite("q", "db4", {}), catchAll],
    configNodes: [memory("db4")],
    send: [{ msg: { topic: "SELECT * FROM nope", payload: 1 } }],
    expect: 1,
  },
  {
    name: "an error goes to catch with SQLite's code: a syntax error",
    nodes: [sqlite("q", "db4b", {}), catchAll],
    configNodes: [memory("db4b")],
    send: [{ msg: { topic: "SELEC 1" } }],
    expect: 1,
  },
  {
    name: "via msg.topic: an empty topic does nothing, one not a string is an error",
    nodes: [sqlite("q", "db4c", {}), catchAll],
    configNodes: [memory("db4c")],
    send: [{ msg: { topic: "" } }, { msg: { topic: 42, payload: "p" } }],
    expect: 1,
  },
  {
    name: "a constraint fails with SQLITE_CONSTRAINT, and the chain stops there",
    nodes: [...chain("db5", [{ topic: "INSERT INTO t (id, name) VALUES (1, 'a')" }, { topic: "INSERT INTO t (id, name) VALUES (2, 'a')" }, { topic: "SELECT 'never'" }]), catchAll],
    configNodes: [memory("db5")],
    input: "setup",
    send: [{ msg: { topic: CREATE } }],
    expect: 2,
  },
  {
    name: "fixed statement: runs for any message, texts, numbers, NULL and blobs",
    nodes: [sqlite("q", "db6", { sqlquery: "fixed", sql: "SELECT 1 AS one, 'x' AS s, NULL AS n, 2.5 AS r, x'01ff02' AS b, 9007199254740993 AS big, length('héllo') AS len" }), catchAll],
    configNodes: [memory("db6")],
    send: [{ msg: { topic: "SELECT 'not me'", payload: "anything" } }],
    expect: 1,
  },
  {
    name: "fixed statement with none set does nothing",
    nodes: [sqlite("q", "db7", { sqlquery: "fixed", sql: "" }), catchAll],
    configNodes: [memory("db7")],
    send: [{ msg: { payload: 1 } }],
    settleMs: 300,
  },
  {
    name: "prepared statement: msg.params by name, $ included",
    nodes: [sqlite("setup", "db8", { sqlquery: "batch" }, [["q"]]), sqlite("q", "db8", { sqlquery: "prepared", sql: "SELECT id, name FROM t WHERE id = $id OR name = $name ORDER BY id" }), catchAll],
    configNodes: [memory("db8")],
    input: "setup",
    send: [{ msg: { topic: `${CREATE}; INSERT INTO t (name) VALUES ('a'), ('b'), ('c')`, params: { $id: 1, $name: "c" } } }],
    expect: 1,
  },
  {
    name: "prepared statement: a name without $ is out of range",
    nodes: [sqlite("q", "db9", { sqlquery: "prepared", sql: "SELECT $a AS a, $b AS b" }), catchAll],
    configNodes: [memory("db9")],
    send: [{ msg: { params: { a: 1 } } }],
    expect: 1,
  },
  {
    name: "prepared statement: an array binds in order",
    nodes: [sqlite("q", "db9b", { sqlquery: "prepared", sql: "SELECT $a AS a, $b AS b" }), catchAll],
    configNodes: [memory("db9b")],
    send: [{ msg: { params: [3, "x"] } }],
    expect: 1,
  },
  {
    name: "prepared statement: a name msg.params lacks is NULL",
    nodes: [sqlite("q", "db9c", { sqlquery: "prepared", sql: "SELECT $a AS a, $b AS b" }), catchAll],
    configNodes: [memory("db9c")],
    send: [{ msg: { params: { $b: 2 } } }],
    expect: 1,
  },
  {
    name: "prepared statement: how values bind (booleans, large numbers, objects, null)",
    nodes: [
      sqlite("q", "db10", { sqlquery: "prepared", sql: "SELECT $t AS t, typeof($t) AS tt, $i AS i, typeof($i) AS ti, $big AS big, typeof($big) AS tbig, $o AS o, $a AS a, $n AS n, typeof($n) AS tn, $s AS s" }),
      catchAll,
    ],
    configNodes: [memory("db10")],
    send: [{ msg: { params: { $t: true, $i: 3, $big: 2 ** 40, $o: { x: 1 }, $a: [1, 2], $n: null, $s: "text" } } }],
    expect: 1,
  },
  {
    name: "batch: every statement runs and the payload is []; an error stops the batch after what ran",
    nodes: [
      sqlite("setup", "db11", { sqlquery: "batch" }, [["s-setup", "n0"]]),
      { ...setTopic("n0", "INSERT INTO t (name) VALUES ('three'); INSERT INTO nope VALUES (1); INSERT INTO t (name) VALUES ('four')"), wires: [["q0"]] },
      sqlite("q0", "db11", { sqlquery: "batch" }, [["s0"]]),
      { id: "after", type: "sqlite", name: "", mydb: "db11", sqlquery: "fixed", sql: "SELECT name FROM t ORDER BY id", wires: [["rows"]] },
      { id: "c", type: "catch", name: "", scope: null, uncaught: false, wires: [["caught", "after"]] },
    ],
    configNodes: [memory("db11")],
    input: "setup",
    send: [{ msg: { topic: `${CREATE}; INSERT INTO t (name) VALUES ('one'); SELECT * FROM t; INSERT INTO t (name) VALUES ('two')` } }],
    expect: 3,
  },
  {
    name: "read-only: reading works, a change is refused",
    nodes: [sqlite("q", "db12", {}), catchAll],
    configNodes: [memory("db12", "RO")],
    send: [{ msg: { topic: "SELECT 1 + 1 AS two" } }, { msg: { topic: CREATE } }],
    expect: 2,
    orderPerCollector: "node-sqlite3 answers the messages' statements side by side, in whichever order they finish",
  },
  {
    name: "SQLite's own SQL: RETURNING, upsert, window and JSON functions, dates",
    nodes: [
      ...chain("db13", [
        { topic: "INSERT INTO t (name, v) VALUES ('a', 1), ('b', 2), ('c', 3) RETURNING id, name" },
        { topic: "INSERT INTO t (name, v) VALUES ('a', 10) ON CONFLICT(name) DO UPDATE SET v = v + excluded.v RETURNING name, v" },
        { topic: "SELECT name, sum(v) OVER (ORDER BY id) AS running, json_object('n', name) AS j FROM t ORDER BY id" },
        { topic: "SELECT datetime('2026-12-02 10:00:00', '+1 day') AS d, json_extract('{\"a\":[1,2]}', '$.a[1]') AS x, strftime('%Y-%W', '2026-12-02') AS week" },
      ]),
      catchAll,
    ],
    configNodes: [memory("db13")],
    input: "setup",
    send: [{ msg: { topic: CREATE } }],
    expect: 4,
  },
];
