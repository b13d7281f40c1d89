import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { joinAs, signUp } from "@/test/accounts";

/** SPEC §19: a Node-RED flows.json's configuration nodes, imported, imported again, and exported back. */
const testApp = setUpTestApp();
const request = testApp.request;
let owner: Awaited<ReturnType<typeof signUp>>;
let token: string;

beforeAll(async () => {
  owner = await signUp(request);
  token = owner.accessToken;
});

const MARKER = "marker-proxy-secret-9d2e";

/** As Node-RED 4.1 exports it: ids with dots, configuration nodes without z, credentials left out. */
function flowsJson(overrides: { servername?: string; credentials?: boolean } = {}) {
  return [
    { id: "f1a2b3c4.d5e6f7", type: "tab", label: "Weather station", disabled: false, info: "" },
    { id: "1c2d3e4f.5a6b7c", type: "inject", z: "f1a2b3c4.d5e6f7", name: "every minute", props: [{ p: "payload" }], repeat: "60", crontab: "", once: false, onceDelay: 0.1, topic: "", payload: "", payloadType: "date", x: 120, y: 80, wires: [["2d3e4f5a.6b7c8d"]] },
    {
      id: "2d3e4f5a.6b7c8d",
      type: "http request",
      z: "f1a2b3c4.d5e6f7",
      name: "fetch readings",
      method: "GET",
      ret: "obj",
      paytoqs: "ignore",
      url: "https://api.weather.example.com/v1/readings",
      tls: "a1b2c3d4.e5f6a7",
      persist: false,
      proxy: "b2c3d4e5.f6a7b8",
      insecureHTTPParser: false,
      authType: "",
      senderr: false,
      headers: [],
      x: 320,
      y: 80,
      wires: [["3e4f5a6b.7c8d9e"]],
    },
    { id: "3e4f5a6b.7c8d9e", type: "debug", z: "f1a2b3c4.d5e6f7", name: "", active: true, tosidebar: true, console: false, tostatus: false, complete: "payload", targetType: "msg", x: 520, y: 80, wires: [] },
    { id: "4f5a6b7c.8d9e0f", type: "serial in", z: "f1a2b3c4.d5e6f7", name: "", serial: "c3d4e5f6.a7b8c9", x: 120, y: 160, wires: [["3e4f5a6b.7c8d9e"]] },
    {
      id: "a1b2c3d4.e5f6a7",
      type: "tls-config",
      name: "weather api client cert",
      cert: "",
      key: "",
      ca: "",
      certname: "client.pem",
      keyname: "client.key",
      caname: "",
      servername: overrides.servername ?? "api.weather.example.com",
      verifyservercert: true,
      alpnprotocol: "",
      ...(overrides.credentials ? { credentials: { certdata: "-----BEGIN CERTIFICATE-----\nIMPORTED\n-----END CERTIFICATE-----" } } : {}),
    },
    { id: "b2c3d4e5.f6a7b8", type: "http proxy", name: "office proxy", url: "http://proxy.office.example.com:3128", noproxy: ["localhost", ".internal.example.com"] },
    { id: "c3d4e5f6.a7b8c9", type: "serial-port", name: "home broker", serialport: "/dev/ttyUSB0", serialbaud: "57600", databits: "8", parity: "none", stopbits: "1" },
  ];
}

const configNodes = async () => (await request("GET", "/config-nodes", { token })).body.config_nodes as Array<{ id: string; type: string; name: string; revision: number; config: Record<string, unknown>; credentials: Record<string, { set: boolean }> }>;

describe("importing Node-RED configuration nodes", () => {
  it("dry run: our configuration types are supported, a type we lack is unsupported with its reason, a file path is partial", async () => {
    const res = await request("POST", "/flows/import?dry_run=true", { token, body: { flows: flowsJson() } });
    expect(res.status).toBe(200);
    const byId = Object.fromEntries(res.body.report.map((r: { node_id: string }) => [r.node_id, r]));
    expect(byId["a1b2c3d4.e5f6a7"]).toEqual({ node_id: "a1b2c3d4.e5f6a7", type: "tls-config", support: "supported" });
    expect(byId["b2c3d4e5.f6a7b8"]).toEqual({ node_id: "b2c3d4e5.f6a7b8", type: "http proxy", support: "supported" });
    // Its tls and proxy are carried now (insecureHTTPParser is not, as before).
    expect(byId["2d3e4f5a.6b7c8d"]).toMatchObject({ type: "http request" });
    expect(byId["2d3e4f5a.6b7c8d"].reason ?? "").not.toMatch(/tls|proxy/);
    expect(byId["c3d4e5f6.a7b8c9"]).toMatchObject({ type: "serial-port", support: "unsupported", reason: expect.stringMatching(/serial-port is not available here; kept/) });
    expect(res.body.warnings.join("\n")).not.toMatch(/configuration nodes are not/);
    expect(await configNodes()).toEqual([]);

    const withPath = flowsJson().map((n) => (n.type === "tls-config" ? { ...n, cert: "/etc/ssl/client.pem", key: "/etc/ssl/client.key" } : n));
    const partial = await request("POST", "/flows/import?dry_run=true", { token, body: { flows: withPath } });
    expect(partial.body.report.find((r: { node_id: string }) => r.node_id === "a1b2c3d4.e5f6a7")).toMatchObject({ support: "partial", reason: expect.stringMatching(/certificate files \(cert, key\) are not read in the shared runtime/) });
  });

  it("imports them as the organization's, the nodes naming them by their new ids; re-importing updates instead of duplicating and keeps stored credentials", async () => {
    const res = await request("POST", "/flows/import", { token, body: { flows: flowsJson() } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.warnings.join("\n")).not.toMatch(/configuration nodes are not/);
    const ids = { tls: "a1b2c3d4-e5f6a7", proxy: "b2c3d4e5-f6a7b8", broker: "c3d4e5f6-a7b8c9" };
    expect(res.body.config_nodes.map((c: { id: string }) => c.id).sort()).toEqual([ids.tls, ids.proxy, ids.broker].sort());

    const nodes = await configNodes();
    expect(nodes).toHaveLength(3);
    const tls = nodes.find((c) => c.id === ids.tls)!;
    expect(tls).toMatchObject({ type: "tls-config", name: "weather api client cert", revision: 1, config: { servername: "api.weather.example.com", certname: "client.pem", verifyservercert: true } });
    expect(tls.credentials.certdata).toEqual({ set: false });
    expect(nodes.find((c) => c.id === ids.proxy)).toMatchObject({ type: "http-proxy", config: { url: "http://proxy.office.example.com:3128", noproxy: ["localhost", ".internal.example.com"] } });
    expect(nodes.find((c) => c.id === ids.broker)).toMatchObject({ type: "unknown", config: { original_type: "serial-port", properties: { serialport: "/dev/ttyUSB0" } } });
    const edit = await request("PUT", `/config-nodes/${ids.broker}`, { token, body: { name: "edited" } });
    expect(edit.status).toBe(400);
    expect(edit.body.error.message).toMatch(/serial-port, a type not available here/);

    const flow = res.body.flows[0];
    const req = flow.nodes.find((n: { type: string }) => n.type === "http-request");
    expect(req.config).toMatchObject({ tls: ids.tls, proxy: ids.proxy });
    const serial = flow.nodes.find((n: { type: string }) => n.type === "unknown");
    expect(serial.config.properties.serial).toBe(ids.broker);
    expect((await request("GET", `/config-nodes/${ids.tls}`, { token })).body.config_node.used_by).toEqual([{ flow_id: flow.id, name: "Weather station", node_ids: [req.id], deployed_revision: null }]);

    // The user adds the PEM and the proxy password; the same file imported again changes nothing and keeps them.
    expect((await request("PUT", `/config-nodes/${ids.tls}`, { token, body: { credentials: { certdata: "CERT", keydata: "KEY" } } })).status).toBe(200);
    expect((await request("PUT", `/config-nodes/${ids.proxy}`, { token, body: { credentials: { password: MARKER } } })).status).toBe(200);
    const again = await request("POST", "/flows/import", { token, body: { flows: flowsJson() } });
    expect(again.status, again.text).toBe(201);
    const after = await configNodes();
    expect(after).toHaveLength(3);
    expect(after.find((c) => c.id === ids.tls)).toMatchObject({ revision: 2, credentials: { certdata: { set: true }, keydata: { set: true } } });
    expect(after.find((c) => c.id === ids.proxy)!.credentials.password).toEqual({ set: true });

    // A changed file updates the node in place (a new revision), still keeping what it does not carry.
    const changed = await request("POST", "/flows/import", { token, body: { flows: flowsJson({ servername: "api2.weather.example.com", credentials: true }) } });
    expect(changed.status).toBe(201);
    const updated = (await configNodes()).find((c) => c.id === ids.tls)!;
    expect(updated).toMatchObject({ revision: 3, config: { servername: "api2.weather.example.com" }, credentials: { certdata: { set: true }, keydata: { set: true } } });
    expect(await configNodes()).toHaveLength(3);
  });

  it("exports the configuration nodes a flow uses, credentials left out, and the export imports back into another organization", async () => {
    const res = await request("POST", "/flows/import", { token, body: { flows: flowsJson() } });
    const flow = res.body.flows[0];
    await request("PUT", "/config-nodes/b2c3d4e5-f6a7b8", { token, body: { credentials: { username: "office", password: MARKER } } });
    const exported = await request("GET", `/flows/${flow.id}/export`, { token });
    expect(exported.status).toBe(200);
    expect(exported.text).not.toContain(MARKER);
    expect(exported.text).not.toContain('"credentials"');
    const items = exported.body as Array<Record<string, unknown>>;
    const byType = (t: string) => items.filter((n) => n.type === t);
    expect(byType("tls-config")).toEqual([
      { id: "a1b2c3d4-e5f6a7", type: "tls-config", name: "weather api client cert", cert: "", key: "", ca: "", certname: "client.pem", keyname: "client.key", caname: "", servername: "api.weather.example.com", verifyservercert: true, alpnprotocol: "" },
    ]);
    expect(byType("http proxy")).toEqual([{ id: "b2c3d4e5-f6a7b8", type: "http proxy", name: "office proxy", url: "http://proxy.office.example.com:3128", noproxy: ["localhost", ".internal.example.com"] }]);
    expect(byType("serial-port")[0]).toMatchObject({ id: "c3d4e5f6-a7b8c9", serialport: "/dev/ttyUSB0", serialbaud: "57600" });
    expect(byType("http request")[0]).toMatchObject({ tls: "a1b2c3d4-e5f6a7", proxy: "b2c3d4e5-f6a7b8" });
    expect(byType("serial in")[0]).toMatchObject({ serial: "c3d4e5f6-a7b8c9" });
    for (const c of [...byType("tls-config"), ...byType("http proxy"), ...byType("serial-port")]) expect(c).not.toHaveProperty("z");

    // Round trip: another organization imports the export whole, with the same ids.
    const other = await signUp(request);
    const into = await request("POST", "/flows/import", { token: other.accessToken, body: { flows: exported.body } });
    expect(into.status, into.text).toBe(201);
    expect(into.body.config_nodes.map((c: { id: string }) => c.id).sort()).toEqual(["a1b2c3d4-e5f6a7", "b2c3d4e5-f6a7b8", "c3d4e5f6-a7b8c9"]);
    const theirs = (await request("GET", "/config-nodes/b2c3d4e5-f6a7b8", { token: other.accessToken })).body.config_node;
    expect(theirs.credentials).toEqual({ password: { set: false }, username: { set: false } });
    const reexported = (await request("GET", `/flows/${into.body.flows[0].id}/export`, { token: other.accessToken })).body as Array<Record<string, unknown>>;
    const strip = (list: Array<Record<string, unknown>>) => list.filter((n) => n.z === undefined && n.type !== "tab").sort((a, b) => String(a.id).localeCompare(String(b.id)));
    expect(strip(reexported)).toEqual(strip(items));
  });

  it("a reference to a configuration node in neither the file nor the organization is cleared and said; a global-config needs an admin", async () => {
    // Its http request names a TLS configuration the file leaves out and the organization lacks.
    const flows = flowsJson()
      .filter((n) => n.type !== "tls-config")
      .map((n) => (n.type === "http request" ? { ...n, tls: "ffff0000.11112222" } : n));
    const onCanvas = (n: Record<string, unknown>) => n.z !== undefined;
    const res = await request("POST", "/flows/import", {
      token,
      body: { flows: flows.map((n) => (n.type === "tab" ? { ...n, id: "t-missing" } : onCanvas(n) ? { ...n, id: `${n.id}x`, z: "t-missing", wires: [] } : n)) },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.warnings.join("\n")).toMatch(/tls named configuration node ffff0000-11112222, which is not a tls-config of this file or organization; cleared/);

    const member = await joinAs(testApp.app, request, owner, "member");
    const global = [{ id: "g1.g2", type: "global-config", env: [{ name: "SITE", value: "north", type: "str" }], modules: {} }];
    const refused = await request("POST", "/flows/import", { token: member.token, body: { flows: global } });
    expect(refused.status).toBe(201);
    expect(refused.body.warnings.join("\n")).toMatch(/global-config.*only admins and owners/);
    expect((await configNodes()).some((c) => c.type === "global-config")).toBe(false);
    const ok = await request("POST", "/flows/import", { token, body: { flows: global } });
    expect(ok.status).toBe(201);
    expect((await configNodes()).find((c) => c.type === "global-config")).toMatchObject({ id: "g1-g2", config: { env: [{ name: "SITE", value: "north", type: "str" }] } });
  });
});
