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
});
