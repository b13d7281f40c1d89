/**
 * node-red-contrib-influxdb's nodes through the doors a user uses: a Node-RED export of a
 * historian flow (an InfluxDB 2.0 server, a reading written, a query's rows to Debug) imported over
 * REST (the dry run reports every node supported), the server's token set as a credential (never
 * read back), deployed, injected; what InfluxDB got (the stand-in, src/test/fake-influxdb.ts) and
 * what Debug shows on the WebSocket. The server may reach private addresses here
 * (OUTBOUND_ALLOW_PRIVATE): the stand-in listens on 127.0.0.1; without it the write is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp } from "@/test/accounts";
import { setUpTestApp } from "@/test/set-up-test-app";
import { connect, setUpTestHub } from "@/test/ws";
import { startFakeInflux } from "@/test/fake-influxdb";

const testApp = setUpTestApp({ OUTBOUND_ALLOW_PRIVATE: "true" });
const hub = setUpTestHub(testApp);
const request = testApp.request;
let influx: Awaited<ReturnType<typeof startFakeInflux>>;
beforeAll(async () => {
  influx = await startFakeInflux();
});
afterAll(() => influx.close());

const CSV = ["#datatype,string,long,dateTime:RFC3339,double,string", "#group,false,false,false,false,true", "#default,_result,,,,", ",result,table,_time,_value,room", ",,0,2026-12-07T09:30:00Z,21.5,kitchen", ""].join("\r\n");

describe("influxdb nodes imported from Node-RED", () => {
  it("write a reading and query it back with the server's token; the token is a credential, never exported", async () => {
    const user = await signUp(request);
    const token = user.accessToken;
    const nodes = [
      { id: "ix-tab", type: "tab", label: "historian" },
      { id: "ix-server", type: "influxdb", hostname: "127.0.0.1", port: "8086", protocol: "http", database: "database", name: "cloud", usetls: false, tls: "", influxdbVersion: "2.0", url: `http://127.0.0.1:${influx.port}`, timeout: "10", rejectUnauthorized: true },
      { id: "ix-read", type: "inject", z: "ix-tab", props: [{ p: "payload" }], payload: '{"temp":21.5,"room":"kitchen","count":"3i"}', payloadType: "json", repeat: "", once: false, x: 100, y: 40, wires: [["ix-out"]] },
      { id: "ix-out", type: "influxdb out", z: "ix-tab", influxdb: "ix-server", name: "", measurement: "climate", precision: "", retentionPolicy: "", database: "database", precisionV18FluxV20: "s", retentionPolicyV18Flux: "", org: "home", bucket: "sensors", x: 300, y: 40, wires: [] },
      { id: "ix-ask", type: "inject", z: "ix-tab", props: [{ p: "payload" }], payload: "", payloadType: "date", repeat: "", once: false, x: 100, y: 100, wires: [["ix-in"]] },
      { id: "ix-in", type: "influxdb in", z: "ix-tab", influxdb: "ix-server", name: "", query: 'from(bucket: "sensors") |> range(start: -1h)', rawOutput: false, precision: "", retentionPolicy: "", org: "home", x: 300, y: 100, wires: [["ix-debug"]] },
      { id: "ix-debug", type: "debug", z: "ix-tab", active: true, tosidebar: true, console: false, tostatus: false, complete: "payload", targetType: "msg", x: 500, y: 100, wires: [] },
    ];
    const dry = await request("POST", "/flows/import?dry_run=true", { token, body: { flows: nodes } });
    expect(dry.status, dry.text).toBe(200);
    for (const id of ["ix-server", "ix-out", "ix-in"]) expect((dry.body.report as Array<{ node_id: string; support: string }>).find((r) => r.node_id === id)).toMatchObject({ support: "supported" });
    const imported = await request("POST", "/flows/import", { token, body: { flows: nodes } });
    expect(imported.status, imported.text).toBe(201);
    const flow = imported.body.flows[0] as { id: string; nodes: Array<{ id: string; type: string }> };
    expect(flow.nodes.map((n) => n.type).sort()).toEqual(["debug", "influxdb-in", "influxdb-out", "inject", "inject"]);

    // The token: a credential of the organization's server node.
    const servers = (await request("GET", "/config-nodes?type=influxdb", { token })).body.config_nodes as Array<{ id: string; config: Record<string, unknown> }>;
    expect(servers).toHaveLength(1);
    expect(servers[0]!.config).toMatchObject({ influxdbVersion: "2.0", url: `http://127.0.0.1:${influx.port}`, timeout: 10 });
    const put = await request("PUT", `/config-nodes/${servers[0]!.id}`, { token, body: { credentials: { token: "tok-secret-1" } } });
    expect(put.status, put.text).toBe(200);
    expect(JSON.stringify(put.body)).not.toContain("tok-secret-1");
    expect(put.body.config_node.credentials).toMatchObject({ token: { set: true } });
    // A token of the wrong shape is refused with the field named, and changes nothing.
    const bad = await request("PUT", `/config-nodes/${servers[0]!.id}`, { token, body: { config: { url: "ftp://influx.example" } } });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("url");

    expect((await request("POST", `/flows/${flow.id}/deploy`, { token })).status).toBe(200);
    const ui = connect(hub.url, { authorization: `Bearer ${token}` });
    try {
      await ui.next((f) => f.type === "ready");
      const injectOf = (nodeRedId: string) => flow.nodes.filter((n) => n.type === "inject")[nodeRedId === "ix-read" ? 0 : 1]!.id;
      expect((await request("POST", `/nodes/${injectOf("ix-read")}/inject`, { token, body: {} })).status).toBe(200);
      await expect.poll(() => influx.requests.length, { timeout: 5000 }).toBe(1);
      expect(influx.requests[0]).toMatchObject({
        method: "POST",
        path: "/api/v2/write?org=home&bucket=sensors&precision=s",
        headers: { authorization: "Token tok-secret-1", "content-type": "text/plain; charset=utf-8" },
      });
      expect(influx.requests[0]!.body).toMatch(/^climate count=3i,room="kitchen",temp=21\.5 \d{10}$/);

      influx.answer((r) => (r.path.startsWith("/api/v2/query") ? { status: 200, type: "text/csv; charset=utf-8", body: CSV } : undefined));
      expect((await request("POST", `/nodes/${injectOf("ix-ask")}/inject`, { token, body: {} })).status).toBe(200);
      const debugId = flow.nodes.find((n) => n.type === "debug")!.id;
      const frame = await ui.next((f) => f.topic === "debug" && f.data?.node_id === debugId);
      expect(frame.data.msg).toEqual([{ result: "_result", table: 0, _time: "2026-12-07T09:30:00Z", _value: 21.5, room: "kitchen" }]);
      expect(influx.requests[1]).toMatchObject({ method: "POST", path: "/api/v2/query?org=home", headers: { authorization: "Token tok-secret-1" } });
    } finally {
      ui.ws.close();
    }

    // Exported, they are node-red-contrib-influxdb's nodes again, without the token.
    const exported = (await request("GET", `/flows/${flow.id}/export`, { token })).body as Array<Record<string, unknown>>;
    expect(exported.map((n) => n.type)).toEqual(expect.arrayContaining(["influxdb out", "influxdb in", "influxdb"]));
    expect(exported.find((n) => n.type === "influxdb out")).toMatchObject({ measurement: "climate", org: "home", bucket: "sensors", precisionV18FluxV20: "s" });
    expect(JSON.stringify(exported)).not.toContain("tok-secret-1");
  });
});
