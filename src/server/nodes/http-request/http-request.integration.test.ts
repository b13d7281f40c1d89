/**
 * http request as real flows write it (fourth survey, 2026-12-06), through the doors a user uses:
 * a Node-RED export imported over REST (the dry run reports it supported), deployed, injected, and
 * what the request carried read back from Debug on the WebSocket. The server may reach private
 * addresses here (OUTBOUND_ALLOW_PRIVATE): the echo server listens on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp } from "@/test/accounts";
import { setUpTestApp } from "@/test/set-up-test-app";
import { connect, setUpTestHub } from "@/test/ws";
import { startEchoServer } from "@/test/node-red-diff/echo-server";

const testApp = setUpTestApp({ OUTBOUND_ALLOW_PRIVATE: "true" });
const hub = setUpTestHub(testApp);
const request = testApp.request;
let user: Awaited<ReturnType<typeof signUp>>;
let echo: Awaited<ReturnType<typeof startEchoServer>>;
beforeAll(async () => {
  user = await signUp(request);
  echo = await startEchoServer(0);
});
afterAll(() => echo.close());

type ImportedFlow = { id: string; nodes: Array<{ id: string; type: string; config: Record<string, unknown> }> };

/**
 * A Node-RED export as a user brings it: its dry run says each of `supported` is supported, it is
 * imported and deployed, its inject node is pressed, and what its debug node shows comes back
 * from the WebSocket (with the flow as imported).
 */
async function importAndRun(nodes: Array<Record<string, unknown>>, supported: string[]): Promise<{ flow: ImportedFlow; shown: unknown }> {
  const dry = await request("POST", "/flows/import?dry_run=true", { token: user.accessToken, body: { flows: nodes } });
  expect(dry.status).toBe(200);
  for (const id of supported) expect((dry.body.report as Array<{ node_id: string; support: string }>).find((r) => r.node_id === id)).toMatchObject({ support: "supported" });
  const imported = await request("POST", "/flows/import", { token: user.accessToken, body: { flows: nodes } });
  expect(imported.status).toBe(201);
  const flow = imported.body.flows[0] as ImportedFlow;
  expect((await request("POST", `/flows/${flow.id}/deploy`, { token: user.accessToken })).status).toBe(200);
  const ui = connect(hub.url, { authorization: `Bearer ${user.accessToken}` });
  try {
    await ui.next((f) => f.type === "ready");
    expect((await request("POST", `/nodes/${flow.nodes.find((n) => n.type === "inject")!.id}/inject`, { token: user.accessToken, body: {} })).status).toBe(200);
    const debugId = flow.nodes.find((n) => n.type === "debug")!.id;
    const frame = await ui.next((f) => f.topic === "debug" && f.data?.node_id === debugId);
    return { flow, shown: frame.data.msg };
  } finally {
    ui.ws.close();
  }
}

describe("http request: the payload of a GET and headers from the message, imported from Node-RED", () => {
  it("appends the payload to the query string (paytoqs query), sends a header row read from the message, and drops the previous response's headers", async () => {
    const nodes = [
      { id: "hq-tab", type: "tab", label: "search" },
      { id: "hq-tick", type: "inject", z: "hq-tab", props: [{ p: "payload" }, { p: "token", v: "t-42", vt: "str" }], payload: "{\"q\":\"red nodes\",\"page\":2}", payloadType: "json", repeat: "", once: false, x: 100, y: 40, wires: [["hq-first"]] },
      // A first request whose response headers stay in msg.headers, as people's chains leave them.
      { id: "hq-first", type: "http request", z: "hq-tab", method: "GET", ret: "obj", paytoqs: "ignore", url: `${echo.url}/first`, tls: "", persist: false, proxy: "", insecureHTTPParser: false, authType: "", senderr: false, headers: [], x: 300, y: 40, wires: [["hq-restore"]] },
      { id: "hq-restore", type: "change", z: "hq-tab", rules: [{ t: "set", p: "payload", pt: "msg", to: "{\"q\":\"red nodes\",\"page\":2}", tot: "json" }], x: 450, y: 40, wires: [["hq-search"]] },
      {
        id: "hq-search", type: "http request", z: "hq-tab", method: "GET", ret: "obj", paytoqs: "query", url: `${echo.url}/search?lang=en`, tls: "", persist: false, proxy: "", insecureHTTPParser: false, authType: "", senderr: false,
        headers: [{ keyType: "other", keyValue: "X-Token", valueType: "msg", valueValue: "token" }, { keyType: "Accept-Language", keyValue: "", valueType: "other", valueValue: "en" }],
        x: 600, y: 40, wires: [["hq-debug"]],
      },
      { id: "hq-debug", type: "debug", z: "hq-tab", active: true, tosidebar: true, console: false, tostatus: false, complete: "payload", targetType: "msg", x: 800, y: 40, wires: [] },
    ];
    const dry = await request("POST", "/flows/import?dry_run=true", { token: user.accessToken, body: { flows: nodes } });
    expect(dry.status).toBe(200);
    const entry = (id: string) => (dry.body.report as Array<{ node_id: string; support: string; reason?: string }>).find((r) => r.node_id === id);
    // The URL names a loopback address: said, but the node is supported.
    expect(entry("hq-search")).toMatchObject({ support: "supported" });
    expect(entry("hq-search")?.reason ?? "").not.toContain("not carried over");
    const imported = await request("POST", "/flows/import", { token: user.accessToken, body: { flows: nodes } });
    expect(imported.status).toBe(201);
    const flow = imported.body.flows[0] as { id: string; nodes: Array<{ id: string; type: string; config: Record<string, unknown> }> };
    const search = flow.nodes.find((n) => n.config.get_payload !== undefined && n.config.url === `${echo.url}/search?lang=en`)!;
    expect(search.config).toMatchObject({ get_payload: "query", message_headers: [{ header: "X-Token", property: "token" }], headers: { "Accept-Language": "en" } });
    // Exported, it is Node-RED's node again.
    const exported = (await request("GET", `/flows/${flow.id}/export`, { token: user.accessToken })).body as Array<Record<string, unknown>>;
    expect(exported.find((n) => n.url === `${echo.url}/search?lang=en`)).toMatchObject({
      paytoqs: "query",
      headers: [
        { keyType: "other", keyValue: "Accept-Language", valueType: "other", valueValue: "en" },
        { keyType: "other", keyValue: "X-Token", valueType: "msg", valueValue: "token" },
      ],
    });

    expect((await request("POST", `/flows/${flow.id}/deploy`, { token: user.accessToken })).status).toBe(200);
    const ui = connect(hub.url, { authorization: `Bearer ${user.accessToken}` });
    try {
      await ui.next((f) => f.type === "ready");
      const tick = flow.nodes.find((n) => n.type === "inject")!;
      expect((await request("POST", `/nodes/${tick.id}/inject`, { token: user.accessToken, body: {} })).status).toBe(200);
      const debugId = flow.nodes.find((n) => n.type === "debug")!.id;
      const frame = await ui.next((f) => f.topic === "debug" && f.data?.node_id === debugId);
      // The first response's headers (content-type, x-echo, its length) were not sent again.
      expect(frame.data.msg).toEqual({ method: "GET", url: "/search?lang=en&q=red%20nodes&page=2", headers: { "accept-language": "en", "x-token": "t-42" }, body: null });
    } finally {
      ui.ws.close();
    }
  });

  it("keeps a session: the login's cookies (msg.responseCookies) sent with the next request, a form upload (multipart/form-data) in it", async () => {
    const nodes = [
      { id: "hc-tab", type: "tab", label: "session" },
      { id: "hc-tick", type: "inject", z: "hc-tab", props: [{ p: "payload" }], payload: "", payloadType: "str", repeat: "", once: false, x: 100, y: 40, wires: [["hc-login"]] },
      { id: "hc-login", type: "http request", z: "hc-tab", method: "POST", ret: "obj", paytoqs: "ignore", url: `${echo.url}/set-cookie`, tls: "", persist: false, proxy: "", insecureHTTPParser: false, authType: "", senderr: false, headers: [], x: 250, y: 40, wires: [["hc-next"]] },
      {
        id: "hc-next", type: "change", z: "hc-tab", x: 400, y: 40, wires: [["hc-upload"]],
        rules: [
          { t: "set", p: "cookies", pt: "msg", to: "responseCookies", tot: "msg" },
          { t: "set", p: "headers", pt: "msg", to: "{\"content-type\":\"multipart/form-data\"}", tot: "json" },
          { t: "set", p: "payload", pt: "msg", to: "{\"note\":\"hi\",\"file\":{\"value\":\"a,b\\n1,2\",\"options\":{\"filename\":\"x.csv\",\"contentType\":\"text/csv\"}}}", tot: "json" },
        ],
      },
      { id: "hc-upload", type: "http request", z: "hc-tab", method: "POST", ret: "obj", paytoqs: "ignore", url: `${echo.url}/echo`, tls: "", persist: false, proxy: "", insecureHTTPParser: false, authType: "", senderr: false, headers: [], x: 550, y: 40, wires: [["hc-debug"]] },
      { id: "hc-debug", type: "debug", z: "hc-tab", active: true, tosidebar: true, console: false, tostatus: false, complete: "payload", targetType: "msg", x: 700, y: 40, wires: [] },
    ];
    const { shown } = await importAndRun(nodes, ["hc-login", "hc-upload"]);
    const sent = shown as { method: string; headers: Record<string, string>; body: string };
    // The login's three cookies, each back with its value (a decoded one encoded again).
    expect(sent.headers.cookie).toBe("session=abc%20def; theme=dark; seen=yes");
    expect(sent.headers["content-type"]).toBe("multipart/form-data; boundary=BOUNDARY");
    expect(sent.body).toBe('--BOUNDARY\r\nContent-Disposition: form-data; name="note"\r\n\r\nhi\r\n--BOUNDARY\r\nContent-Disposition: form-data; name="file"; filename="x.csv"\r\nContent-Type: text/csv\r\n\r\na,b\n1,2\r\n--BOUNDARY--\r\n');
  });

  it("answers a camera's Digest challenge with the password from a secret, imported with Node-RED's authType digest", async () => {
    expect((await request("POST", "/variables", { token: user.accessToken, body: { name: "CAM_PASSWORD", value: "pass", secret: true } })).status).toBe(201);
    const nodes = [
      { id: "hd-tab", type: "tab", label: "camera" },
      { id: "hd-tick", type: "inject", z: "hd-tab", props: [{ p: "payload" }], payload: "", payloadType: "str", repeat: "", once: false, x: 100, y: 40, wires: [["hd-snap"]] },
      { id: "hd-snap", type: "http request", z: "hd-tab", method: "GET", ret: "obj", paytoqs: "ignore", url: `${echo.url}/digest?algorithm=SHA-256`, tls: "", persist: false, proxy: "", insecureHTTPParser: false, authType: "digest", senderr: false, headers: [], credentials: { user: "user", password: "${CAM_PASSWORD}" }, x: 250, y: 40, wires: [["hd-debug"]] },
      { id: "hd-debug", type: "debug", z: "hd-tab", active: true, tosidebar: true, console: false, tostatus: false, complete: "payload", targetType: "msg", x: 400, y: 40, wires: [] },
    ];
    const { flow, shown } = await importAndRun(nodes, ["hd-snap"]);
    expect(flow.nodes.find((n) => n.type === "http-request")!.config).toMatchObject({ auth_type: "digest", auth_user: "user" });
    // The echo server checked the answer against the password (a wrong one is its 403).
    expect(shown).toMatchObject({ valid: true, fields: { username: "user", algorithm: "SHA-256", qop: "auth" } });
  });

  it("a header row that takes its name from the message is said not to be carried over; its siblings are", async () => {
    const dry = await request("POST", "/flows/import?dry_run=true", {
      token: user.accessToken,
      body: {
        flows: [
          { id: "hn-tab", type: "tab", label: "named" },
          { id: "hn-req", type: "http request", z: "hn-tab", method: "GET", ret: "txt", paytoqs: "body", url: "https://api.example.com/x", headers: [{ keyType: "msg", keyValue: "headerName", valueType: "other", valueValue: "v" }, { keyType: "other", keyValue: "X-A", valueType: "other", valueValue: "1" }], x: 100, y: 40, wires: [[]] },
        ],
      },
    });
    expect(dry.status).toBe(200);
    expect((dry.body.report as Array<{ node_id: string }>).find((r) => r.node_id === "hn-req")).toMatchObject({ support: "partial", reason: "not carried over: headers (a row naming its header from the message)" });
  });
});
