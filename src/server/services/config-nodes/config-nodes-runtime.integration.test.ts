import https from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { setUpTestHub, connect, type TestSocket } from "@/test/ws";
import { signUp } from "@/test/accounts";
import { makeTestCertificates, startTestProxy, type TestCertificates, type TestProxy } from "@/test/tls-fixtures";

/**
 * SPEC §19 at run time, through the doors a user uses: a tls-config and an http proxy created over
 * REST (the CA PEM and the proxy's password given as `${NAME}` secrets), an http-request flow naming
 * both, deployed and injected; the answer arrives over the WebSocket. A rotated secret in a
 * credential is used by the next connection without a redeploy, and never shows in a frame.
 */

const testApp = setUpTestApp({ HTTP_REQUEST_ALLOW_PRIVATE: "true" });
const hub = setUpTestHub(testApp);
const request = testApp.request;

let pem: TestCertificates;
let proxy: TestProxy;
let server: https.Server;
let port = 0;

const FIRST = "proxy-secret-first-81c2";
const SECOND = "proxy-secret-second-4d7e";
const basic = (password: string) => `Basic ${Buffer.from(`flows:${password}`).toString("base64")}`;

beforeAll(async () => {
  pem = makeTestCertificates();
  server = https.createServer({ cert: pem.serverCert, key: pem.serverKey }, (req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ secure: true, path: req.url })));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  proxy = await startTestProxy();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await proxy.close();
});

describe("http-request with configuration nodes, end to end", () => {
  it("reaches an HTTPS server through a proxy with the tls-config's CA; a rotated proxy secret is used without a redeploy", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const socket: TestSocket = connect(hub.url, { authorization: `Bearer ${token}` });
    await socket.next((f) => f.type === "ready");

    expect((await request("POST", "/variables", { token, body: { name: "TEST_CA", value: pem.ca, secret: true } })).status).toBe(201);
    expect((await request("POST", "/variables", { token, body: { name: "PROXY_PASS", value: FIRST, secret: true } })).status).toBe(201);
    const tls = await request("POST", "/config-nodes", { token, body: { type: "tls-config", name: "test CA", config: { servername: "localhost" }, credentials: { cadata: "${TEST_CA}" } } });
    expect(tls.status, tls.text).toBe(201);
    const px = await request("POST", "/config-nodes", {
      token,
      body: { type: "http-proxy", name: "corp proxy", config: { url: `http://127.0.0.1:${proxy.port}` }, credentials: { username: "flows", password: "${PROXY_PASS}" } },
    });
    expect(px.status, px.text).toBe(201);

    const created = await request("POST", "/flows", {
      token,
      body: {
        name: "through the proxy",
        nodes: [
          { id: "cr_in", type: "inject", position: { x: 0, y: 0 }, config: {} },
          { id: "cr_req", type: "http-request", position: { x: 200, y: 0 }, config: { url: `https://127.0.0.1:${port}/secure`, return: "obj", tls: tls.body.config_node.id, proxy: px.body.config_node.id } },
          { id: "cr_dbg", type: "debug", position: { x: 400, y: 0 }, config: { property: "msg" } },
        ],
        connections: [
          { source: "cr_in", target: "cr_req" },
          { source: "cr_req", target: "cr_dbg" },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const flowId = created.body.flow.id as string;
    proxy.wants = basic(FIRST);
    const deployed = await request("POST", `/flows/${flowId}/deploy`, { token });
    expect(deployed.status, deployed.text).toBe(200);
    expect(deployed.body.deployment).toMatchObject({ state: "running" });

    expect((await request("POST", "/nodes/cr_in/inject", { token, body: {} })).status).toBe(200);
    const first = await socket.next((f) => f.topic === "debug" && f.data?.node_id === "cr_dbg");
    expect(first.data.msg).toMatchObject({ statusCode: 200, payload: { secure: true, path: "/secure" } });
    expect(proxy.seen.at(-1)).toEqual({ method: "CONNECT", url: `127.0.0.1:${port}`, authorization: basic(FIRST) });

    // The proxy's password rotates: the next connection uses the new one, with no redeploy.
    proxy.wants = basic(SECOND);
    expect((await request("PUT", "/variables/PROXY_PASS", { token, body: { value: SECOND } })).status).toBe(200);
    const rotatedAt = Date.now();
    let status = 0;
    while (status !== 200) {
      expect(Date.now() - rotatedAt).toBeLessThan(2000);
      const before = socket.frames.length;
      await request("POST", "/nodes/cr_in/inject", { token, body: {} });
      const answer = await socket.next((f) => socket.frames.indexOf(f) >= before && ((f.topic === "debug" && f.data?.node_id === "cr_dbg") || (f.topic === "node.status" && f.data?.node_id === "cr_req" && !!f.data?.error)));
      status = answer.topic === "debug" ? answer.data.msg.statusCode : 0;
    }
    expect(proxy.seen.at(-1)!.authorization).toBe(basic(SECOND));
    expect((await request("GET", `/flows/${flowId}/deployments`, { token })).body.deployments).toHaveLength(1);

    // Neither secret, nor the CA held as one, ever reached a frame.
    const frames = JSON.stringify(socket.frames);
    for (const value of [FIRST, SECOND, pem.ca.split("\n")[1]!]) expect(frames.includes(value), value).toBe(false);
    socket.ws.close();
  });

  it("a deployment whose tls-config's CA does not match fails the request as the node's error, and the flow runs on", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const tls = await request("POST", "/config-nodes", { token, body: { type: "tls-config", name: "wrong CA", config: { servername: "localhost" }, credentials: { cadata: pem.otherCa } } });
    expect(tls.status, tls.text).toBe(201);
    const created = await request("POST", "/flows", {
      token,
      body: {
        name: "wrong CA",
        nodes: [
          { id: "wc_in", type: "inject", position: { x: 0, y: 0 }, config: {} },
          { id: "wc_req", type: "http-request", position: { x: 200, y: 0 }, config: { url: `https://127.0.0.1:${port}/`, tls: tls.body.config_node.id } },
        ],
        connections: [{ source: "wc_in", target: "wc_req" }],
      },
    });
    const flowId = created.body.flow.id as string;
    expect((await request("POST", `/flows/${flowId}/deploy`, { token })).body.deployment).toMatchObject({ state: "running" });
    const socket: TestSocket = connect(hub.url, { authorization: `Bearer ${token}` });
    await socket.next((f) => f.type === "ready");
    expect((await request("POST", "/nodes/wc_in/inject", { token, body: {} })).status).toBe(200);
    const failed = await socket.next((f) => f.topic === "node.status" && f.data?.node_id === "wc_req" && !!f.data?.error);
    expect(failed.data.error).toMatch(/self[- ]signed|unable to (verify|get)/i);
    socket.ws.close();
  });

  it("global-config's env reaches every deployed flow of the organization, the flow's own variables above it; an edit runs after its deploy", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const socket: TestSocket = connect(hub.url, { authorization: `Bearer ${token}` });
    await socket.next((f) => f.type === "ready");
    const flowWith = async (prefix: string) => {
      const created = await request("POST", "/flows", {
        token,
        body: {
          name: `${prefix} env`,
          nodes: [
            { id: `${prefix}_in`, type: "inject", position: { x: 0, y: 0 }, config: {} },
            { id: `${prefix}_fn`, type: "function", position: { x: 200, y: 0 }, config: { code: "msg.payload = { region: env.get('REGION'), limit: env.get('LIMIT'), text: msg.payload }; return msg;" } },
            { id: `${prefix}_ch`, type: "change", position: { x: 300, y: 0 }, config: { rules: [{ t: "set", p: "topic", p_type: "msg", to: "${REGION}-${LIMIT}", to_type: "env" }] } },
            { id: `${prefix}_dbg`, type: "debug", position: { x: 400, y: 0 }, config: { property: "msg" } },
          ],
          connections: [
            { source: `${prefix}_in`, target: `${prefix}_fn` },
            { source: `${prefix}_fn`, target: `${prefix}_ch` },
            { source: `${prefix}_ch`, target: `${prefix}_dbg` },
          ],
        },
      });
      expect(created.status, created.text).toBe(201);
      return created.body.flow.id as string;
    };
    const answer = async (prefix: string) => {
      const before = socket.frames.length;
      expect((await request("POST", `/nodes/${prefix}_in/inject`, { token, body: {} })).status).toBe(200);
      return (await socket.next((f) => socket.frames.indexOf(f) >= before && f.topic === "debug" && f.data?.node_id === `${prefix}_dbg`)).data.msg;
    };
    // A flow deployed before the global-config exists.
    const early = await flowWith("ge");
    expect((await request("POST", `/flows/${early}/deploy`, { token })).status).toBe(200);
    expect((await answer("ge")).payload.region).toBeUndefined();

    expect((await request("POST", "/variables", { token, body: { name: "REGION", value: "org-region" } })).status).toBe(201);
    const gc = await request("POST", "/config-nodes", {
      token,
      body: { type: "global-config", config: { env: [{ name: "REGION", type: "str", value: "eu-north" }, { name: "LIMIT", type: "num", value: "42" }] } },
    });
    expect(gc.status, gc.text).toBe(201);
    const gcId = gc.body.config_node.id as string;

    // Deployed now: the flow carries the global-config, named by no node.
    const later = await flowWith("gl");
    expect((await request("POST", `/flows/${later}/deploy`, { token })).status).toBe(200);
    expect(await answer("gl")).toMatchObject({ payload: { region: "eu-north", limit: 42 }, topic: "eu-north-42" });

    // The flow's own variable is above the global env.
    expect((await request("POST", "/variables", { token, body: { name: "REGION", value: "flow-region", flow_id: later } })).status).toBe(201);
    await expect.poll(async () => (await answer("gl")).topic, { timeout: 2000 }).toBe("flow-region-42");

    // An edit changes no running flow until POST /config-nodes/{id}/deploy, which redeploys every deployed flow (the early one too).
    const put = await request("PUT", `/config-nodes/${gcId}`, { token, body: { config: { env: [{ name: "REGION", type: "str", value: "ap-south" }, { name: "LIMIT", type: "num", value: "7" }] } } });
    expect(put.status, put.text).toBe(200);
    // The early flow runs without the global env until then: the organization's variable shows through.
    expect((await answer("ge")).payload).toMatchObject({ region: "org-region" });
    expect((await answer("gl")).payload).toMatchObject({ limit: 42 });
    const deployed = await request("POST", `/config-nodes/${gcId}/deploy`, { token });
    expect(deployed.status, deployed.text).toBe(200);
    expect(deployed.body.deployments.map((d: { flow_id: string }) => d.flow_id).sort()).toEqual([early, later].sort());
    expect(await answer("ge")).toMatchObject({ payload: { region: "ap-south", limit: 7 }, topic: "ap-south-7" });
    expect(await answer("gl")).toMatchObject({ payload: { region: "flow-region", limit: 7 } });
    socket.ws.close();
  });
});
