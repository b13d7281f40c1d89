/**
 * node-red-contrib-postgresql's nodes through the doors a user uses: a flow exported from Node-RED
 * with the package before 0.16 (the user and password written in the configuration node's
 * properties) imported over REST: the dry run reports every node supported and says the password
 * became a credential; deployed, injected with msg.params; the row the real server holds and what
 * Debug shows on the WebSocket; the export without the password. The server may reach private
 * addresses here (OUTBOUND_ALLOW_PRIVATE): PostgreSQL listens on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp } from "@/test/accounts";
import { setUpTestApp } from "@/test/set-up-test-app";
import { connect, setUpTestHub } from "@/test/ws";
import { pgTestServer } from "@/test/postgresql";

const testApp = setUpTestApp({ OUTBOUND_ALLOW_PRIVATE: "true" });
const hub = setUpTestHub(testApp);
const request = testApp.request;
const server = pgTestServer();
const database = `fppg_int_${process.pid}_${Date.now().toString(36)}`;
const USER = `fp_int_${process.pid}_${Date.now().toString(36)}`;
const PASSWORD = "pw-secret-9c1e";

beforeAll(async () => {
  await server.createDatabase(database);
  await server.query(`CREATE ROLE "${USER}" LOGIN PASSWORD '${PASSWORD}'`);
  await server.query(`GRANT ALL ON DATABASE "${database}" TO "${USER}"`);
  await server.query(`CREATE TABLE readings (id SERIAL PRIMARY KEY, room TEXT, temp NUMERIC(4,1), at TIMESTAMPTZ DEFAULT '2026-12-07T09:30:00Z'); ALTER TABLE readings OWNER TO "${USER}"`, database);
});
afterAll(async () => {
  await server.dropDatabase(database);
  await server.query(`DROP ROLE IF EXISTS "${USER}"`);
  await server.close();
});

describe("postgresql nodes imported from Node-RED", () => {
  it("a flow of the package before 0.16: its plain password becomes a credential; insert with params, select to Debug; the export has no password", async () => {
    const user = await signUp(request);
    const token = user.accessToken;
    const nodes = [
      { id: "pg-tab", type: "tab", label: "readings" },
      { id: "pg-db", type: "postgreSQLConfig", name: "", host: server.host, hostFieldType: "str", port: server.port, portFieldType: "num", database, databaseFieldType: "str", ssl: "false", sslFieldType: "bool", max: "10", maxFieldType: "num", idle: "1000", idleFieldType: "num", connectionTimeout: "10000", connectionTimeoutFieldType: "num", user: USER, userFieldType: "str", password: PASSWORD, passwordFieldType: "str" },
      { id: "pg-write", type: "inject", z: "pg-tab", props: [{ p: "params", v: '["kitchen", 21.5]', vt: "json" }], repeat: "", once: false, x: 100, y: 40, wires: [["pg-insert"]] },
      { id: "pg-insert", type: "postgresql", z: "pg-tab", name: "", query: "INSERT INTO readings (room, temp) VALUES ($1, $2) RETURNING id", postgreSQLConfig: "pg-db", split: false, rowsPerMsg: 1, outputs: 1, x: 300, y: 40, wires: [["pg-debug"]] },
      { id: "pg-read", type: "inject", z: "pg-tab", props: [{ p: "topic", vt: "str" }], topic: "kitchen", repeat: "", once: false, x: 100, y: 100, wires: [["pg-select"]] },
      { id: "pg-select", type: "postgresql", z: "pg-tab", name: "", query: "SELECT room, temp, at, current_user AS who FROM readings WHERE room = '{{msg.topic}}'", postgreSQLConfig: "pg-db", split: false, rowsPerMsg: 1, outputs: 1, x: 300, y: 100, wires: [["pg-debug"]] },
      { id: "pg-debug", type: "debug", z: "pg-tab", active: true, tosidebar: true, console: false, tostatus: false, complete: "true", targetType: "full", x: 500, y: 70, wires: [] },
    ];
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows: nodes } });
    expect(dry.status, dry.text).toBe(200);
    for (const id of ["pg-db", "pg-insert", "pg-select"]) expect((dry.body.report as Array<{ node_id: string; support: string }>).find((r) => r.node_id === id)).toMatchObject({ support: "supported" });
    expect(JSON.stringify(dry.body)).not.toContain(PASSWORD);
    const imported = await request("POST", "/flows/import", { token, body: { flows: nodes } });
    expect(imported.status, imported.text).toBe(201);
    expect(JSON.stringify(imported.body.warnings)).toContain("became its credentials");
    const flow = imported.body.flows[0] as { id: string; nodes: Array<{ id: string; type: string }> };

    const dbs = (await request("GET", "/config-nodes?type=postgresql-config", { token })).body.config_nodes as Array<{ id: string; config: Record<string, unknown>; credentials: Record<string, { set: boolean }> }>;
    expect(dbs).toHaveLength(1);
    expect(dbs[0]!.config).toMatchObject({ host: server.host, port: server.port, database, ssl: false, max: 10 });
    expect(dbs[0]!.config).not.toHaveProperty("password");
    expect(dbs[0]!.credentials).toMatchObject({ user: { set: true }, password: { set: true } });
    expect(JSON.stringify(dbs)).not.toContain(PASSWORD);
    // Bad settings are refused with the field named, and change nothing.
    for (const config of [{ port: 0 }, { max: 50 }, { host: "" }]) {
      const bad = await request("PUT", `/config-nodes/${dbs[0]!.id}`, { token, body: { config } });
      expect(bad.status, JSON.stringify(config)).toBe(400);
      expect(bad.text).toContain(Object.keys(config)[0]!);
    }

    const ui = connect(hub.url, { authorization: `Bearer ${token}` });
    try {
      await ui.next((f) => f.type === "ready");
      expect((await request("POST", `/flows/${flow.id}/deploy`, { token })).status).toBe(200);
      const injects = flow.nodes.filter((n) => n.type === "inject");
      const debugId = flow.nodes.find((n) => n.type === "debug")!.id;
      expect((await request("POST", `/nodes/${injects[0]!.id}/inject`, { token, body: {} })).status).toBe(200);
      const inserted = await ui.next((f) => f.topic === "debug" && f.data?.node_id === debugId);
      expect(inserted.data.msg).toMatchObject({ payload: [{ id: 1 }], pgsql: { command: "INSERT", rowCount: 1 } });
      expect(await server.query("SELECT room, temp FROM readings", database)).toEqual([{ room: "kitchen", temp: "21.5" }]);

      expect((await request("POST", `/nodes/${injects[1]!.id}/inject`, { token, body: {} })).status).toBe(200);
      const rows = await ui.next((f) => f.topic === "debug" && f.data?.node_id === debugId && (f.data?.msg as { pgsql?: { command?: string } })?.pgsql?.command === "SELECT");
      expect(rows.data.msg).toMatchObject({ topic: "kitchen", payload: [{ room: "kitchen", temp: "21.5", at: expect.stringMatching(/^2026-12-07T09:30:00/), who: USER }], pgsql: { rowCount: 1 } });
    } finally {
      ui.ws.close();
    }

    // Exported, they are the package's nodes again (credentials as its editor writes them), without the password.
    const exported = (await request("GET", `/flows/${flow.id}/export`, { token })).body as Array<Record<string, unknown>>;
    expect(exported.find((n) => n.type === "postgreSQLConfig")).toMatchObject({ host: server.host, hostFieldType: "str", port: server.port, database, userFieldType: "cred", passwordFieldType: "cred" });
    expect(exported.find((n) => n.type === "postgresql")).toMatchObject({ query: "INSERT INTO readings (room, temp) VALUES ($1, $2) RETURNING id", split: false, rowsPerMsg: 1 });
    expect(JSON.stringify(exported)).not.toContain(PASSWORD);
    expect(JSON.stringify(exported)).not.toContain(USER);
  });
});
