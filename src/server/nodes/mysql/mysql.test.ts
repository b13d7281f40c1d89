import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTestFlow } from "@/test/runtime-harness";
import { countingListener } from "@/test/counting-listener";
import { mysqlTestServer, prepareCase, recordCase, type RecordedMysqlCase } from "@/test/mysql";
import { createOutboundRules } from "@/server/runtime/outbound";
import { cases, type MysqlCase } from "./mysql-cases";
import { mysqlDatabaseNode, mysqlNode } from "./definition";

/**
 * Each case of mysql-cases.ts through our mysql node against the machine's MySQL or MariaDB,
 * compared with what Node-RED 5.0 with node-red-node-mysql did against the same server
 * (mysql-cases.recorded.json): the messages out, the errors a catch node saw, the statuses after
 * the first message, and what the database held afterwards.
 */
const recorded = JSON.parse(readFileSync(path.join(__dirname, "mysql-cases.recorded.json"), "utf8")) as { cases: Record<string, RecordedMysqlCase> };
const seal = (value: string) => `sealed:${Buffer.from(value).toString("base64")}`;
const services = {
  outbound: createOutboundRules({ allowPrivate: true }),
  openCredential: (sealed: string) => Buffer.from(sealed.slice("sealed:".length), "base64").toString("utf8"),
};
const server = mysqlTestServer();
const database = `fpcases_${process.pid}_${Date.now().toString(36)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

afterAll(async () => {
  await server.dropDatabase(database);
  await server.close();
});

async function runOurs(c: MysqlCase, using: Record<string, unknown> = services, settle = 700) {
  await prepareCase(server, database, c);
  const config = mysqlDatabaseNode.configSchema.parse(
    mysqlDatabaseNode.nodeRed!.fromNodeRed({ host: server.host, port: String(server.port), db: c.database ?? database, tz: "", charset: "UTF8", ...c.config }, []),
  );
  const creds = c.credentials ?? { user: server.user, password: server.password };
  const flow = await loadTestFlow(
    [
      { id: "n", type: mysqlNode.type, config: { mydb: "cfg" } },
      { id: "c", type: "catch", config: { scope: ["n"] } },
      { id: "s", type: "status", config: { scope: ["n"] } },
      { id: "out", type: "sink" },
      { id: "err", type: "sink" },
      { id: "st", type: "sink" },
    ],
    [
      { source: "n", target: "out" },
      { source: "c", target: "err" },
      { source: "s", target: "st" },
    ],
    using,
    {},
    { configNodes: { cfg: { id: "cfg", type: "mysql-database", name: "", config, revision: 1, sealed_credentials: Object.fromEntries(Object.entries(creds).map(([k, v]) => [k, seal(v)])) } } },
  );
  // As the recording: the first message 600 ms after the deploy (later if the pool has not tested its
  // connection by then, on a loaded machine), each next 200 ms later; statuses from the first message on.
  const deployed = Date.now();
  await expect.poll(() => flow.statuses.some((x) => x.status?.text === "connected" || x.status?.fill === "red"), { timeout: 10_000 }).toBe(true);
  await sleep(Math.max(0, 600 - (Date.now() - deployed)));
  const statusesBefore = flow.arrivals.filter((a) => a.sink === "st").length;
  for (const [k, msg] of c.msgs.entries()) {
    if (k > 0) await sleep(200);
    flow.send("n", { _msgid: `m${k}`, ...structuredClone(msg) });
  }
  await sleep(settle);
  const arrivals = flow.arrivals.filter((a, i) => a.sink !== "st" || flow.arrivals.slice(0, i + 1).filter((b) => b.sink === "st").length > statusesBefore);
  const result = await recordCase(server, database, c, arrivals.map((a) => ({ sink: a.sink, msg: a.msg as Record<string, unknown> })));
  await flow.close();
  return { result, flow };
}

describe("mysql node, as Node-RED with node-red-node-mysql runs it (a real MySQL or MariaDB)", () => {
  beforeAll(async () => {
    await server.query("SELECT 1");
  });

  it("has a recording for every case", () => {
    expect(Object.keys(recorded.cases).sort()).toEqual(cases.map((c) => c.name).sort());
  });

  for (const c of cases) {
    it(c.name, async () => {
      const { result } = await runOurs(c);
      expect(result).toEqual(recorded.cases[c.name]);
    });
  }
});

describe("mysql node: what a message cannot show, and the shared runtime's limits", () => {
  const own = `fpmysql_${process.pid}_${Date.now().toString(36)}`;
  beforeAll(async () => {
    await server.query(`CREATE DATABASE \`${own}\``);
    await server.query("CREATE TABLE t (at DATETIME, b VARBINARY(4))", own);
    await server.query("INSERT INTO t VALUES ('2026-12-07 10:00:00', X'0102')", own);
  });
  afterAll(() => server.dropDatabase(own));

  async function flowOn(db: string, using: Record<string, unknown> = services, extra: Array<{ id: string; type: string; config?: Record<string, unknown> }> = [], port = server.port, wires: Array<{ source: string; target: string }> = []) {
    const config = mysqlDatabaseNode.configSchema.parse({ host: server.host, port, db, tz: "Z", charset: "UTF8MB4" });
    return loadTestFlow(
      [{ id: "n", type: mysqlNode.type, config: { mydb: "cfg" } }, { id: "c", type: "catch", config: { scope: ["n"] } }, { id: "out", type: "sink" }, { id: "err", type: "sink" }, ...extra],
      [
        { source: "n", target: "out" },
        { source: "c", target: "err" },
        ...wires,
      ],
      using,
      {},
      { configNodes: { cfg: { id: "cfg", type: "mysql-database", name: "", config, revision: 1, sealed_credentials: { user: seal(server.user), password: seal(server.password) } } } },
    );
  }
  const connectionsTo = async (db: string) => Number(((await server.query(`SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = '${db}' AND ID <> CONNECTION_ID()`)) as Array<{ n: number }>)[0]!.n);

  it("rows carry dates as Date and bytes as Buffer; the pool's connections end when the flow stops", async () => {
    const flow = await flowOn(own);
    await expect.poll(() => flow.statuses.some((s) => s.status?.text === "connected"), { timeout: 5000 }).toBe(true);
    flow.send("n", { topic: "SELECT at, b FROM t" });
    await flow.waitFor(1, 5000);
    const row = (flow.arrivals[0]!.msg.payload as Array<Record<string, unknown>>)[0]!;
    expect(row.at).toBeInstanceOf(Date);
    expect((row.at as Date).toISOString()).toBe("2026-12-07T10:00:00.000Z");
    expect(Buffer.isBuffer(row.b)).toBe(true);
    expect(await connectionsTo(own)).toBeGreaterThan(0);
    await flow.close();
    await expect.poll(() => connectionsTo(own), { timeout: 5000 }).toBe(0);
  }, 20_000);

  it("an answer past the limit is refused, reading stops there (the query would send a terabyte), and the next query runs", async () => {
    const flow = await flowOn(own);
    await expect.poll(() => flow.statuses.some((s) => s.status?.text === "connected"), { timeout: 5000 }).toBe(true);
    // A million rows of 1 MB: were the answer read to its end, this test would time out.
    flow.send("n", { topic: "WITH RECURSIVE a(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM a WHERE i < 1000) SELECT REPEAT('x', 1000000) AS big FROM a AS x, a AS y" });
    await flow.waitFor(1, 20_000);
    expect(flow.arrivals[0]!.sink).toBe("err");
    expect((flow.arrivals[0]!.msg.error as { message: string }).message).toContain("larger than 32 MiB");
    expect(flow.statuses.map((s) => s.status?.text)).toContain("Error: ER_RESULT_TOO_LARGE");
    flow.send("n", { topic: "SELECT 2 AS two" });
    await flow.waitFor(2, 5000);
    expect(flow.arrivals[1]).toMatchObject({ sink: "out", msg: { payload: [{ two: 2 }] } });
    await flow.close();
  }, 30_000);

  it("a failed query reaches catch and complete nodes, as Node-RED's node.error(err, msg) then done()", async () => {
    const flow = await flowOn(own, services, [
      { id: "k", type: "complete", config: { scope: ["n"] } },
      { id: "fin", type: "sink" },
    ], server.port, [{ source: "k", target: "fin" }]);
    await expect.poll(() => flow.statuses.some((s) => s.status?.text === "connected"), { timeout: 5000 }).toBe(true);
    flow.send("n", { topic: "SELEKT 1", tag: "bad" });
    await expect.poll(() => flow.arrivals.map((a) => a.sink).sort(), { timeout: 5000 }).toEqual(["err", "fin"]);
    expect(flow.arrivals.find((a) => a.sink === "fin")!.msg).toMatchObject({ tag: "bad", topic: "SELEKT 1" });
    await flow.close();
  }, 20_000);

  it("the outbound rules apply: a database on a private address is refused unless the operator allows it, and the server hears nothing", async () => {
    // A listener of the test's own stands for the database: nothing may connect to it.
    const listener = await countingListener();
    const port = listener.port;
    try {
      const flow = await flowOn(own, { ...services, outbound: createOutboundRules({ allowPrivate: false }) }, [], port);
      await expect.poll(() => flow.errors.length, { timeout: 5000 }).toBeGreaterThan(0);
      expect(flow.errors[0]!.error).toMatch(/private|loopback|not allowed/i);
      expect(flow.statuses.at(-1)?.status).toMatchObject({ fill: "red", shape: "ring" });
      flow.send("n", { topic: "SELECT 1" });
      await flow.waitFor(1, 5000);
      expect((flow.arrivals[0]!.msg.error as { message: string }).message).toBe("Database not connected");
      await flow.close();
      expect(listener.accepted()).toBe(0);
      // The same database with the rules allowing it: the listener hears the connection (the check above could not pass vacuously).
      const allowed = await flowOn(own, services, [], port);
      await expect.poll(() => listener.accepted(), { timeout: 5000 }).toBeGreaterThan(0);
      await allowed.close();
    } finally {
      listener.close();
    }
  }, 20_000);
});
