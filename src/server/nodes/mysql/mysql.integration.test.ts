/**
 * node-red-node-mysql's nodes through the doors a user uses: a Node-RED export (a MySQL database,
 * an insert with bound values, a select to Debug) imported over REST (the dry run reports every
 * node supported), the user and password set as credentials (never read back), deployed, injected;
 * the row the real server holds and what Debug shows on the WebSocket. The server may reach
 * private addresses here (OUTBOUND_ALLOW_PRIVATE): the database listens on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp } from "@/test/accounts";
import { setUpTestApp } from "@/test/set-up-test-app";
import { connect, setUpTestHub } from "@/test/ws";
import { mysqlTestServer } from "@/test/mysql";

const testApp = setUpTestApp({ OUTBOUND_ALLOW_PRIVATE: "true" });
const hub = setUpTestHub(testApp);
const request = testApp.request;
const server = mysqlTestServer();
const database = `fpmysql_int_${process.pid}_${Date.now().toString(36)}`;
const PASSWORD = "pw-secret-7f3a";
const USER = `fp_int_${process.pid}`;

beforeAll(async () => {
  await server.query(`CREATE DATABASE \`${database}\``);
  await server.query("CREATE TABLE readings (id INT PRIMARY KEY AUTO_INCREMENT, room VARCHAR(20), temp DECIMAL(4,1), at DATETIME)", database);
  // A user of the test's own, so the password is a real one.
  await server.query(`CREATE USER IF NOT EXISTS '${USER}'@'%' IDENTIFIED BY '${PASSWORD}'`);
  await server.query(`GRANT ALL ON \`${database}\`.* TO '${USER}'@'%'`);
});
afterAll(async () => {
  await server.dropDatabase(database);
  await server.query(`DROP USER IF EXISTS '${USER}'@'%'`);
  await server.close();
});

describe("mysql nodes imported from Node-RED", () => {
  it("insert a reading with bound values and select it back; the password is a credential, never exported", async () => {
    const user = await signUp(request);
    const token = user.accessToken;
    const nodes = [
      { id: "my-tab", type: "tab", label: "readings" },
      { id: "my-db", type: "MySQLdatabase", name: "", host: server.host, port: String(server.port), db: database, tz: "", charset: "UTF8" },
      {
        id: "my-write",
        type: "inject",
        z: "my-tab",
        props: [{ p: "payload" }, { p: "topic", vt: "str" }],
        topic: "INSERT INTO readings (room, temp, at) VALUES (?, ?, '2026-12-07 09:30:00')",
        payload: '["kitchen", 21.5]',
        payloadType: "json",
        repeat: "",
        once: false,
        x: 100,
        y: 40,
        wires: [["my-sql"]],
      },
      {
        id: "my-read",
        type: "inject",
        z: "my-tab",
        props: [{ p: "payload" }, { p: "topic", vt: "str" }],
        topic: "SELECT room, temp, at FROM readings WHERE room = :room",
        payload: '{"room":"kitchen"}',
        payloadType: "json",
        repeat: "",
        once: false,
        x: 100,
        y: 100,
        wires: [["my-sql"]],
      },
      { id: "my-sql", type: "mysql", z: "my-tab", mydb: "my-db", name: "", x: 300, y: 70, wires: [["my-debug"]] },
      { id: "my-debug", type: "debug", z: "my-tab", active: true, tosidebar: true, console: false, tostatus: false, complete: "payload", targetType: "msg", x: 500, y: 70, wires: [] },
    ];
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows: nodes } });
    expect(dry.status, dry.text).toBe(200);
    for (const id of ["my-db", "my-sql"]) expect((dry.body.report as Array<{ node_id: string; support: string }>).find((r) => r.node_id === id)).toMatchObject({ support: "supported" });
    const imported = await request("POST", "/flows/import", { token, body: { flows: nodes } });
    expect(imported.status, imported.text).toBe(201);
    const flow = imported.body.flows[0] as { id: string; nodes: Array<{ id: string; type: string }> };
    expect(flow.nodes.map((n) => n.type).sort()).toEqual(["debug", "inject", "inject", "mysql"]);

    const dbs = (await request("GET", "/config-nodes?type=mysql-database", { token })).body.config_nodes as Array<{ id: string; config: Record<string, unknown> }>;
    expect(dbs).toHaveLength(1);
    expect(dbs[0]!.config).toMatchObject({ host: server.host, port: server.port, db: database, charset: "UTF8" });
    const put = await request("PUT", `/config-nodes/${dbs[0]!.id}`, { token, body: { credentials: { user: USER, password: PASSWORD } } });
    expect(put.status, put.text).toBe(200);
    expect(JSON.stringify(put.body)).not.toContain(PASSWORD);
    expect(put.body.config_node.credentials).toMatchObject({ password: { set: true } });
    // Bad settings are refused with the field named, and change nothing.
    for (const config of [{ port: 0 }, { host: "" }, { charset: "utf8; DROP" }, { db: "x".repeat(65) }]) {
      const bad = await request("PUT", `/config-nodes/${dbs[0]!.id}`, { token, body: { config } });
      expect(bad.status, JSON.stringify(config)).toBe(400);
      expect(bad.text).toContain(Object.keys(config)[0]!);
    }
    expect((await request("GET", `/config-nodes/${dbs[0]!.id}`, { token })).body.config_node.config).toMatchObject({ port: server.port, tz: "", charset: "UTF8", db: database });

    const ui = connect(hub.url, { authorization: `Bearer ${token}` });
    try {
      await ui.next((f) => f.type === "ready");
      expect((await request("POST", `/flows/${flow.id}/deploy`, { token })).status).toBe(200);
      const sqlId = flow.nodes.find((n) => n.type === "mysql")!.id;
      await ui.next((f) => f.topic === "node.status" && f.data?.node_id === sqlId && f.data?.status?.text === "connected");
      const [write, read] = flow.nodes.filter((n) => n.type === "inject");
      const debugId = flow.nodes.find((n) => n.type === "debug")!.id;
      expect((await request("POST", `/nodes/${write!.id}/inject`, { token, body: {} })).status).toBe(200);
      const header = await ui.next((f) => f.topic === "debug" && f.data?.node_id === debugId);
      expect(header.data.msg).toMatchObject({ affectedRows: 1, insertId: 1 });
      expect(await server.query("SELECT room, temp FROM readings", database)).toEqual([{ room: "kitchen", temp: "21.5" }]);

      expect((await request("POST", `/nodes/${read!.id}/inject`, { token, body: {} })).status).toBe(200);
      const rows = await ui.next((f) => f.topic === "debug" && f.data?.node_id === debugId && Array.isArray(f.data?.msg));
      expect(rows.data.msg).toEqual([{ room: "kitchen", temp: 21.5, at: expect.stringMatching(/^2026-12-07T09:30:00/) }]);
    } finally {
      ui.ws.close();
    }

    // Exported, they are node-red-node-mysql's nodes again, without the user and password.
    const exported = (await request("GET", `/flows/${flow.id}/export`, { token })).body as Array<Record<string, unknown>>;
    expect(exported.find((n) => n.type === "MySQLdatabase")).toMatchObject({ host: server.host, port: String(server.port), db: database, tz: "", charset: "UTF8" });
    expect(exported.find((n) => n.type === "mysql")).toMatchObject({ mydb: expect.any(String) });
    expect(JSON.stringify(exported)).not.toContain(PASSWORD);
    expect(JSON.stringify(exported)).not.toContain(USER);
  });
});
