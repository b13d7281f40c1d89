import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { handleWebhookUrl } from "@/server/api/rest/webhook-handler";

/**
 * The sqlite node as people's flows use it (node-red-node-sqlite; FlowFuse's blueprints, forum
 * flows with a database on a Windows or Raspberry Pi path): imported through POST /flows/import,
 * deployed, driven over REST and /hooks, the database then one of the organization's files
 * (GET /files), another organization's flows never seeing it.
 */

const testApp = setUpTestApp();
const request = testApp.request;
type NrNode = Record<string, unknown> & { id: string; type: string };

async function member() {
  const user = await signUp(request);
  const slug = (await testApp.app.db.prisma.organization.findUniqueOrThrow({ where: { id: user.organizationId } })).slug;
  return { token: user.accessToken, slug };
}

/** A logger's flow: create the table at start, insert readings, list them over HTTP. */
function loggerFlow(s: string, db: string): NrNode[] {
  const z = `tab${s}`;
  return [
    { id: z, type: "tab", label: "readings" },
    { id: `db${s}`, type: "sqlitedb", db, mode: "RWC" },
    {
      id: `create${s}`,
      type: "inject",
      z,
      name: "create",
      props: [{ p: "topic", vt: "str" }],
      topic: "CREATE TABLE IF NOT EXISTS dhtreadings(id INTEGER PRIMARY KEY AUTOINCREMENT, temperature NUMERIC, humidity NUMERIC, device TEXT)",
      repeat: "",
      once: false,
      wires: [[`sql${s}`]],
    },
    { id: `insert${s}`, type: "inject", z, name: "insert", props: [{ p: "payload" }], payload: '{"t": 21.5, "h": 40}', payloadType: "json", repeat: "", once: false, wires: [[`fn${s}`]] },
    {
      id: `fn${s}`,
      type: "function",
      z,
      name: "to insert",
      func: 'msg.topic = "INSERT INTO dhtreadings (temperature, humidity, device) VALUES ($t, $h, $d)";\nmsg.payload = [msg.payload.t, msg.payload.h, "esp32"];\nreturn msg;',
      outputs: 1,
      wires: [[`sql${s}`]],
    },
    { id: `sql${s}`, type: "sqlite", z, name: "logger", mydb: `db${s}`, sqlquery: "msg.topic", sql: "", wires: [[]] },
    { id: `in${s}`, type: "http in", z, name: "", url: `/readings${s}`, method: "get", upload: false, wires: [[`params${s}`]] },
    { id: `params${s}`, type: "function", z, name: "params", func: "msg.params = { $device: msg.req.query.device };\nreturn msg;", outputs: 1, wires: [[`list${s}`]] },
    { id: `list${s}`, type: "sqlite", z, name: "list", mydb: `db${s}`, sqlquery: "prepared", sql: "SELECT temperature, humidity, device FROM dhtreadings WHERE device = $device ORDER BY id", wires: [[`res${s}`]] },
    { id: `res${s}`, type: "http response", z, name: "", statusCode: "", headers: {}, wires: [] },
  ];
}

async function importAndDeploy(token: string, flows: NrNode[]) {
  const imported = await request("POST", "/flows/import", { token, body: { flows } });
  expect(imported.status, imported.text).toBe(201);
  const flow = imported.body.flows[0] as { id: string; nodes: Array<{ id: string; type: string; name: string; config: Record<string, unknown> }> };
  const deployed = await request("POST", `/flows/${flow.id}/deploy`, { token });
  expect(deployed.status, deployed.text).toBe(200);
  return { flow, warnings: imported.body.warnings as string[] };
}

const injectNode = async (token: string, nodeId: string) => expect((await request("POST", `/nodes/${nodeId}/inject`, { token, body: {} })).status).toBe(200);

describe("sqlite as people's flows use it", () => {
  let alice: { token: string; slug: string };
  let bob: { token: string; slug: string };
  beforeAll(async () => {
    alice = await member();
    bob = await member();
  });

  it("imports a flow whose database is a Windows path, writes to it, and serves its rows; the database is one of the organization's files", async () => {
    const s = Date.now().toString(36);
    const flows = loggerFlow(s, "C:\\code\\node-red\\sql.db");
    const dry = await request("POST", "/flows/import?dry_run=true", { token: alice.token, body: { flows } });
    expect(dry.status).toBe(200);
    const report = dry.body.report as Array<{ type: string; support: string }>;
    expect(report.filter((r) => r.type === "sqlite" || r.type === "sqlitedb").map((r) => r.support)).toEqual(["supported", "supported", "supported"]);
    const { flow, warnings } = await importAndDeploy(alice.token, flows);
    expect(warnings).toContain(`configuration node db${s} (sqlitedb): database "C:\\code\\node-red\\sql.db" is taken relative to the organization's files: "code/node-red/sql.db"`);
    const ids = Object.fromEntries(flow.nodes.map((n) => [n.name || n.type, n.id]));
    await injectNode(alice.token, ids.create!);
    // The table exists once the file holds it (the node wrote it back before going on).
    await expect.poll(async () => (await request("GET", "/files", { token: alice.token })).body.files.map((f: { path: string }) => f.path), { timeout: 8000 }).toContain("code/node-red/sql.db");
    await injectNode(alice.token, ids.insert!);
    await injectNode(alice.token, ids.insert!);
    const hook = (path: string) => handleWebhookUrl(testApp.app, new Request(`http://app.test/hooks/${alice.slug}${path}`));
    const rows = async (device: string) => {
      const res = await hook(`/readings${s}?device=${device}`);
      return res.status === 200 ? ((await res.json()) as unknown[]) : res.status;
    };
    await expect.poll(() => rows("esp32"), { timeout: 8000 }).toEqual([
      { temperature: 21.5, humidity: 40, device: "esp32" },
      { temperature: 21.5, humidity: 40, device: "esp32" },
    ]);
    // Bound, not spliced: a device name that is SQL finds nothing and harms nothing.
    expect(await rows(encodeURIComponent("x' OR '1'='1"))).toEqual([]);
    const file = await request("GET", "/files/code/node-red/sql.db", { token: alice.token });
    expect(file.status).toBe(200);
    expect(file.bytes.subarray(0, 16).toString("latin1")).toBe("SQLite format 3\u0000");
    // The export gives the path as the flow had it.
    const exported = (await request("GET", `/flows/${flow.id}/export`, { token: alice.token })).body as NrNode[];
    expect(exported.find((n) => n.type === "sqlitedb")).toMatchObject({ db: "C:\\code\\node-red\\sql.db", mode: "RWC" });
  });

  it("another organization's database of the same path is its own", async () => {
    const s = `${Date.now().toString(36)}b`;
    const z = `tab${s}`;
    const flows: NrNode[] = [
      { id: z, type: "tab", label: "peek" },
      { id: `db${s}`, type: "sqlitedb", db: "/code/node-red/sql.db", mode: "RWC" },
      { id: `in${s}`, type: "http in", z, name: "", url: `/peek${s}`, method: "get", upload: false, wires: [[`q${s}`]] },
      { id: `q${s}`, type: "sqlite", z, name: "", mydb: `db${s}`, sqlquery: "fixed", sql: "SELECT count(*) AS tables FROM sqlite_schema", wires: [[`res${s}`]] },
      { id: `res${s}`, type: "http response", z, name: "", statusCode: "", headers: {}, wires: [] },
    ];
    await importAndDeploy(bob.token, flows);
    const res = await handleWebhookUrl(testApp.app, new Request(`http://app.test/hooks/${bob.slug}/peek${s}`));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([{ tables: 0 }]);
    // Read-write-create made the file at first use, in Bob's files: a database of his own.
    expect((await request("GET", "/files", { token: bob.token })).body.files).toEqual([expect.objectContaining({ path: "code/node-red/sql.db" })]);
  });

  it("FlowFuse's Store and Forward blueprint buffers readings: its table made at deploy, its prepared insert of a stringified JSONata payload, its unsent records read back", async () => {
    const s = `${Date.now().toString(36)}sf`;
    const z = `tab${s}`;
    // The blueprint's nodes as its flow.json has them (getting-started/store-and-forward), the
    // simulated sensor not repeating (the test injects it), and an http-in to read the buffer.
    const flows: NrNode[] = [
      { id: z, type: "tab", label: "Store and Forward" },
      { id: `db${s}`, type: "sqlitedb", db: "sqlite", mode: "RWC" },
      { id: `deploy${s}`, type: "inject", z, name: "Trigger on deploy", props: [], repeat: "", crontab: "", once: true, onceDelay: 0.1, topic: "", wires: [[`create${s}`]] },
      {
        id: `create${s}`,
        type: "sqlite",
        z,
        mydb: `db${s}`,
        sqlquery: "fixed",
        sql: "CREATE TABLE IF NOT EXISTS data_buffer (\n    id INTEGER PRIMARY KEY AUTOINCREMENT,\n    timestamp INTEGER NOT NULL,\n    sent INTEGER DEFAULT 0,\n    payload TEXT,\n    created_at INTEGER DEFAULT (strftime('%s','now') * 1000)\n);\n",
        name: "Create Table ",
        wires: [[]],
      },
      {
        id: `sim${s}`,
        type: "inject",
        z,
        name: "Simulate Sensor",
        props: [{ p: "payload" }],
        repeat: "",
        crontab: "",
        once: false,
        onceDelay: 0.1,
        topic: "",
        payload:
          '{\t   "device_id": "machine_A12",\t   "location": "factory_floor_2",\t   "measurements": {\t       "temperature": 45 + $random() * 30,\t       "pressure": 100 + $random() * 50,\t       "vibration": $random() * 10,\t       "rpm": 1500 + $random() * 500     \t   },\t   "timestamp": $moment() \t}',
        payloadType: "jsonata",
        wires: [[`json${s}`]],
      },
      { id: `json${s}`, type: "json", z, name: "stringify JSON", property: "payload", action: "str", pretty: false, wires: [[`params${s}`]] },
      {
        id: `params${s}`,
        type: "change",
        z,
        name: "Set Params",
        rules: [
          { t: "set", p: "params", pt: "msg", to: "{}", tot: "json" },
          { t: "set", p: "params.$ts", pt: "msg", to: "", tot: "date" },
          { t: "set", p: "params.$payload", pt: "msg", to: "payload", tot: "msg" },
        ],
        action: "",
        property: "",
        from: "",
        to: "",
        reg: false,
        wires: [[`store${s}`]],
      },
      { id: `store${s}`, type: "sqlite", z, mydb: `db${s}`, sqlquery: "prepared", sql: "INSERT INTO data_buffer (timestamp, payload,sent) \nVALUES ($ts, $payload,0);", name: "Store Data", wires: [[]] },
      { id: `in${s}`, type: "http in", z, name: "", url: `/buffer${s}`, method: "get", upload: false, wires: [[`unsent${s}`]] },
      { id: `unsent${s}`, type: "sqlite", z, mydb: `db${s}`, sqlquery: "fixed", sql: "SELECT * FROM data_buffer \nWHERE sent = 0 \nORDER BY timestamp ASC \nLIMIT 50", name: "Retrieve unsent records", wires: [[`res${s}`]] },
      { id: `res${s}`, type: "http response", z, name: "", statusCode: "", headers: {}, wires: [] },
    ];
    const { flow, warnings } = await importAndDeploy(alice.token, flows);
    expect(warnings.filter((w) => !/was renamed|was imported as/.test(w))).toEqual([]);
    const sim = flow.nodes.find((n) => n.name === "Simulate Sensor")!;
    // The table exists once the database file does (the once-inject ran the CREATE at deploy).
    await expect.poll(async () => (await request("GET", "/files", { token: alice.token })).body.files.map((f: { path: string }) => f.path), { timeout: 8000 }).toContain("sqlite");
    const before = Date.now();
    await injectNode(alice.token, sim.id);
    await injectNode(alice.token, sim.id);
    const read = async () => {
      const res = await handleWebhookUrl(testApp.app, new Request(`http://app.test/hooks/${alice.slug}/buffer${s}`));
      return res.status === 200 ? ((await res.json()) as Array<Record<string, unknown>>) : [];
    };
    await expect.poll(async () => (await read()).length, { timeout: 8000 }).toBe(2);
    const rows = await read();
    for (const row of rows) {
      expect(row).toMatchObject({ sent: 0 });
      expect(row.timestamp as number).toBeGreaterThanOrEqual(before - 1000);
      expect(typeof row.created_at).toBe("number");
      expect(JSON.parse(row.payload as string)).toMatchObject({ device_id: "machine_A12", location: "factory_floor_2", measurements: { rpm: expect.any(Number) } });
    }
    expect(rows[0]!.id).toBe(1);
  });
});

