import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadTestFlow } from "@/test/runtime-harness";
import { countingListener } from "@/test/counting-listener";
import { pgTestServer, preparePgCase, recordPgCase, TEST_CLIENT, type RecordedPgCase } from "@/test/postgresql";
import { createOutboundRules } from "@/server/runtime/outbound";
import { cases, type PgCase } from "./pg-cases";
import { postgresqlConfigNode, postgresqlNode } from "./definition";
import { messageClientConfig } from "./behaviour";

/**
 * Each case of pg-cases.ts through our postgresql node against the machine's PostgreSQL, compared
 * with what Node-RED 5.0 with node-red-contrib-postgresql did against the same server
 * (pg-cases.recorded.json): the messages out, those a catch node saw, and what the database held.
 */
const recorded = JSON.parse(readFileSync(path.join(__dirname, "pg-cases.recorded.json"), "utf8")) as { cases: Record<string, RecordedPgCase> };
const seal = (value: string) => `sealed:${Buffer.from(value).toString("base64")}`;
const services = {
  outbound: createOutboundRules({ allowPrivate: true }),
  openCredential: (sealed: string) => Buffer.from(sealed.slice("sealed:".length), "base64").toString("utf8"),
};
const server = pgTestServer();
const base = `fppg_${process.pid}_${Date.now().toString(36)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const databases: string[] = [];

afterAll(async () => {
  for (const d of databases) await server.dropDatabase(d);
  await server.close();
});

function configOf(database: string, port: number = server.port) {
  return postgresqlConfigNode.configSchema.parse(
    postgresqlConfigNode.nodeRed!.fromNodeRed({ host: server.host, hostFieldType: "str", port, portFieldType: "num", database, databaseFieldType: "str", ssl: false, sslFieldType: "bool", max: 10, idle: 1000, connectionTimeout: 10000 }, []),
  );
}

async function flowOf(database: string, node: Record<string, unknown>, using: Record<string, unknown> = services, port?: number, extra: { nodes?: Array<{ id: string; type: string; config?: Record<string, unknown> }>; wires?: Array<{ source: string; target: string }> } = {}) {
  const config = configOf(database, port);
  return loadTestFlow(
    [{ id: "n", type: postgresqlNode.type, config: postgresqlNode.configSchema.parse(postgresqlNode.nodeRed!.fromNodeRed({ postgreSQLConfig: "cfg", ...node }, [])) }, { id: "c", type: "catch", config: { scope: ["n"] } }, { id: "out", type: "sink" }, { id: "err", type: "sink" }, ...(extra.nodes ?? [])],
    [{ source: "n", target: "out" }, { source: "c", target: "err" }, ...(extra.wires ?? [])],
    using,
    {},
    { configNodes: { cfg: { id: "cfg", type: "postgresql-config", name: "", config, revision: 1, sealed_credentials: { user: seal(server.user), ...(server.password ? { password: seal(server.password) } : {}) } } } },
  );
}

async function runOurs(c: PgCase, i: number) {
  const database = `${base}_${i}`;
  databases.push(database);
  await preparePgCase(server, database, c);
  const flow = await flowOf(c.database ?? database, c.node);
  // As the recording (the first message 600 ms after the deploy, each next 200 ms later), but on a
  // loaded machine each next one also waits for what the one before brings (up to 2 s), so a slow
  // query cannot meet the next tick out of order.
  await sleep(600);
  for (const [k, msg] of c.msgs.entries()) {
    const before = flow.arrivals.length;
    flow.send("n", { _msgid: `m${k}`, ...structuredClone(msg) });
    const sent = Date.now();
    await sleep(200);
    while (flow.arrivals.length === before && Date.now() - sent < 2000) await sleep(20);
  }
  await sleep(500);
  const result = await recordPgCase(server, database, c, flow.arrivals.map((a) => ({ sink: a.sink, msg: a.msg as Record<string, unknown> })));
  await flow.close();
  await server.dropDatabase(database);
  return result;
}

describe("postgresql node, as Node-RED with node-red-contrib-postgresql runs it (a real PostgreSQL)", () => {
  it("has a recording for every case", () => {
    expect(Object.keys(recorded.cases).sort()).toEqual(cases.map((c) => c.name).sort());
  });

  for (const [i, c] of cases.entries()) {
    it(c.name, async () => {
      expect(await runOurs(c, i)).toEqual(recorded.cases[c.name]);
    }, 20_000);
  }
});

describe("postgresql node: what JSON cannot show, and the shared runtime's limits", () => {
  it("rows carry dates as Date and bytea as Buffer; a split query waiting for ticks is ended when the flow stops", async () => {
    const database = `${base}_own`;
    databases.push(database);
    await preparePgCase(server, database, { name: "", node: { query: "" }, msgs: [], setup: ["CREATE TABLE t (at TIMESTAMPTZ, b BYTEA)", "INSERT INTO t VALUES ('2026-12-07 10:00:00+00', '\\x0102'), (NULL, NULL), (NULL, NULL)"] });
    const flow = await flowOf(database, { query: "SELECT at, b FROM t ORDER BY at" });
    flow.send("n", {});
    await flow.waitFor(1, 5000);
    const row = (flow.arrivals[0]!.msg.payload as Array<Record<string, unknown>>)[0]!;
    expect(row.at).toBeInstanceOf(Date);
    expect(Buffer.isBuffer(row.b)).toBe(true);
    await flow.close();

    const split = await flowOf(database, { query: "SELECT * FROM t", split: true, rowsPerMsg: 1 });
    split.send("n", {});
    await split.waitFor(1, 5000);
    const held = async () => Number((await server.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = '${database}' AND application_name <> '${TEST_CLIENT}'`))[0]!.n);
    expect(await held()).toBeGreaterThan(0);
    await split.close();
    // The cursor's connection is given back and the pool ended: nothing of ours stays on the database.
    await expect.poll(held, { timeout: 5000 }).toBe(0);
  }, 20_000);

  it("an error shows in the status: the queue, red with Error!", async () => {
    const flow = await flowOf(`${base}_none`, { query: "SELECT 1" });
    flow.send("n", {});
    await flow.waitFor(1, 5000);
    await expect.poll(() => flow.statuses.filter((s) => s.status?.text?.startsWith("Queue")).at(-1)?.status, { timeout: 5000 }).toMatchObject({ fill: "red", shape: "ring", text: "Queue: 0 Error!" });
    await flow.close();
  }, 20_000);

  it("the outbound rules apply to the pool and to msg.pgConfig: a private address and a Unix socket are refused, and nothing hears", async () => {
    const listener = await countingListener();
    const port = listener.port;
    try {
      const strict = { ...services, outbound: createOutboundRules({ allowPrivate: false }) };
      const flow = await flowOf("postgres", { query: "SELECT 1" }, strict, port);
      flow.send("n", {});
      flow.send("n", { pgConfig: { host: "127.0.0.1", port, user: "postgres", database: "postgres" } });
      flow.send("n", { pgConfig: { host: "/var/run/postgresql", port: 5432, user: "postgres", database: "postgres" } });
      await flow.waitFor(3, 10_000);
      const errors = flow.arrivals.map((a) => String(a.msg.payload)).sort();
      expect(errors).toHaveLength(3);
      expect(errors.filter((e) => /127\.0\.0\.1 is a private or reserved address/.test(e))).toHaveLength(2);
      expect(errors.filter((e) => /is a Unix socket; connections there are not allowed/.test(e))).toHaveLength(1);
      await flow.close();
      expect(listener.accepted()).toBe(0);
      // Allowed, the same pool reaches the listener (so the check above could not pass vacuously).
      const allowed = await flowOf("postgres", { query: "SELECT 1" }, services, port);
      allowed.send("n", {});
      await expect.poll(() => listener.accepted(), { timeout: 5000 }).toBeGreaterThan(0);
      await allowed.close();
    } finally {
      listener.close();
    }
  }, 30_000);

  it("a message's query must be text and its pgConfig plain settings: what pg would take beyond them is refused or left out, and the process goes on", async () => {
    const flow = await flowOf("postgres", { query: "SELECT 1 AS one" });
    // A query object with type parsers that throw inside pg's socket handler (it ended the process).
    flow.send("n", { query: { text: "SELECT 1", types: {} } });
    flow.send("n", { pgConfig: { connectionString: "postgresql://postgres@127.0.0.1/postgres?sslcert=/etc/passwd" } });
    await flow.waitFor(2, 5000);
    const errors = flow.arrivals.map((a) => String(a.msg.payload)).sort();
    expect(errors[0]).toMatch(/^Error: msg\.pgConfig\.connectionString is not taken here/);
    expect(errors[1]).toMatch(/^Error: msg\.query must be text/);
    // The node goes on: a plain query after them.
    flow.send("n", {});
    await flow.waitFor(3, 5000);
    expect(flow.arrivals[2]!.msg.payload).toEqual([{ one: 1 }]);
    await flow.close();
    // Only plain settings reach pg: no stream, socket, types or file paths; no fallback to the server's environment.
    const config = messageClientConfig({ host: "db.example.com", port: "6543", user: "", ssl: { rejectUnauthorized: false, socket: null, host: "10.0.0.1", port: 22, path: "/var/run/x" }, types: {}, stream: {}, lookup: "x" });
    expect(Object.keys(config).sort()).toEqual(["database", "host", "password", "port", "ssl", "user"]);
    expect(config).toMatchObject({ host: "db.example.com", port: 6543, database: "postgres", user: "postgres", ssl: { rejectUnauthorized: false } });
    expect(Object.keys(config.ssl as object)).toEqual(["rejectUnauthorized"]);
    expect((config.password as () => string)()).toBe("");
  }, 20_000);

  it("a new message drops the split query waiting for ticks without an error, and its connection goes back", async () => {
    const database = `${base}_drop`;
    databases.push(database);
    await preparePgCase(server, database, { name: "", node: { query: "" }, msgs: [], setup: ["CREATE TABLE t (v INT)", "INSERT INTO t SELECT generate_series(1, 10)"] });
    const flow = await flowOf(database, { query: "SELECT v FROM t ORDER BY v", split: true, rowsPerMsg: 2 });
    flow.send("n", {});
    await flow.waitFor(1, 5000);
    flow.send("n", {});
    await flow.waitFor(2, 5000);
    // Two queries, one dropped: the queue is 1 (the second, waiting for ticks) and never an error.
    await expect.poll(() => flow.statuses.filter((x) => x.status?.text?.startsWith("Queue")).at(-1)?.status?.text, { timeout: 5000 }).toBe("Queue: 1");
    expect(flow.statuses.some((x) => x.status?.text?.includes("Error"))).toBe(false);
    await flow.close();
  }, 20_000);

  it("a pooled connection carries no more error listeners after many queries than after one", async () => {
    // A listener left per query on a pooled client would pass Node's 10 and warn (MaxListenersExceededWarning).
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      const flow = await flowOf("postgres", { query: "SELECT pg_backend_pid() AS pid" });
      for (let i = 0; i < 30; i++) {
        flow.send("n", {});
        await flow.waitFor(i + 1, 5000);
      }
      // One connection served them all, one at a time.
      expect(new Set(flow.arrivals.map((a) => (a.msg.payload as Array<{ pid: number }>)[0]!.pid)).size).toBe(1);
      await flow.close();
      await new Promise((r) => setImmediate(r));
      expect(warnings).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
    }
  }, 20_000);
});
