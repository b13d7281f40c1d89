import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { WebSocketServer } from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { createTestApp, restClient } from "@/test/app";
import { connect, startUpgrades } from "@/test/ws";
import { signUp } from "@/test/accounts";

/**
 * websocket-client (SPEC §23) through the doors a user uses: Node-RED's two websocket examples
 * imported as a user would (POST /flows/import), the client's URL pointed at this app's listener,
 * deployed and injected, their debug output over the hub; a client to an outside server (headers,
 * subprotocol, whole messages, the 3 s reconnect); and the outbound rules: a private address is
 * refused by default (the node's status and warning say why) and reached with OUTBOUND_ALLOW_PRIVATE.
 */

const EXAMPLES = path.resolve(import.meta.dirname, "../../../test/fixtures/node-red-examples/network/websocket");
const testApp = setUpTestApp({ OUTBOUND_ALLOW_PRIVATE: "true" });
const request = testApp.request;
let upgrades: Awaited<ReturnType<typeof startUpgrades>>;

beforeAll(async () => {
  upgrades = await startUpgrades(testApp.app);
});
afterAll(async () => {
  await upgrades.close();
});

type NrNode = Record<string, unknown> & { id: string; type: string };

async function owner(req = request, app = testApp.app) {
  const user = await signUp(req);
  const org = await app.db.prisma.organization.findUniqueOrThrow({ where: { id: user.organizationId } });
  return { ...user, token: user.accessToken, slug: org.slug };
}

/** Imports a Node-RED export as a new flow (a tab of its own), as the import dialog does. */
async function importFlows(token: string, flows: NrNode[], req = request) {
  const tab = { id: `tab${Math.random().toString(36).slice(2, 10)}`, type: "tab", label: "example" };
  const res = await req("POST", "/flows/import", { token, body: { flows: [tab, ...flows.map((n) => ("wires" in n || "z" in n ? { ...n, z: tab.id } : n))] } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { flows: Array<{ id: string; nodes: Array<{ id: string; type: string; disabled: boolean; config: Record<string, unknown> }> }>; warnings: string[] };
}

/** Edits a configuration node's config as the editor's dialog does (GET, change, PUT with its revision). */
async function editConfigNode(token: string, id: string, change: Record<string, unknown>, req = request) {
  const current = await req("GET", `/config-nodes/${id}`, { token });
  expect(current.status, current.text).toBe(200);
  const node = current.body.config_node as { config: Record<string, unknown>; revision: number };
  const res = await req("PUT", `/config-nodes/${id}`, { token, body: { config: { ...node.config, ...change }, revision: node.revision } });
  expect(res.status, res.text).toBe(200);
}

const example = (file: string) => JSON.parse(readFileSync(path.join(EXAMPLES, file), "utf8")) as NrNode[];

describe("Node-RED's websocket examples, imported and run", () => {
  it("01: a client's websocket out reaches this app's listener, whose websocket in gives the debug output", async () => {
    const me = await owner();
    const flows = example("01 - Connect to websocket in server.json");
    const { flows: [flow], warnings } = await importFlows(me.token, flows);
    expect(warnings.filter((w) => /websocket/i.test(w))).toEqual([]);
    expect(flow!.nodes.filter((n) => n.type.startsWith("websocket")).map((n) => [n.type, n.disabled])).toEqual([
      ["websocket-in", false],
      ["websocket-out", false],
    ]);
    // The example's client points at Node-RED's own port; here the listener is under /ws/hooks/{organization}.
    await editConfigNode(me.token, "63620788-bda128", { path: `${upgrades.base}/ws/hooks/${me.slug}/ws1` });
    const hub = connect(upgrades.url, { authorization: `Bearer ${me.token}` });
    await hub.next((f) => f.type === "ready");
    expect((await request("POST", `/flows/${flow!.id}/deploy`, { token: me.token })).status).toBe(200);
    const out = flow!.nodes.find((n) => n.type === "websocket-out")!;
    const inject = flow!.nodes.find((n) => n.type === "inject")!;
    await expect.poll(async () => (await testApp.app.flowRuntime.nodeStatuses(flow!.id)).get(out.id)?.text, { timeout: 10_000 }).toBe("connected");
    expect((await request("POST", `/nodes/${inject.id}/inject`, { token: me.token, body: {} })).status).toBe(200);
    const debug = await hub.next((f) => f.topic === "debug");
    expect(debug.data.msg).toBe("Hello, World!");
    hub.ws.close();
  });

  it("01 as Node-RED 0.x wrote it: a websocket-listener whose path is a ws:// URL is a client (imported as one, its out node naming it as client), and it runs", async () => {
    const me = await owner();
    const url = `${upgrades.base}/ws/hooks/${me.slug}/ws1`;
    const flows = example("01 - Connect to websocket in server.json").map((n) =>
      n.type === "websocket-client" ? { id: n.id, type: "websocket-listener", path: url, wholemsg: "false" } : n.type === "websocket out" ? { ...n, server: n.client, client: "" } : n,
    );
    expect(flows.filter((n) => n.type === "websocket-listener").map((n) => n.path).sort()).toEqual(["/ws1", url]);
    const { flows: [flow], warnings } = await importFlows(me.token, flows);
    expect(warnings).toContain("configuration node 63620788.bda128: a websocket-listener with a ws:// path is a client in Node-RED; imported as a websocket-client");
    const client = await request("GET", "/config-nodes/63620788-bda128", { token: me.token });
    expect(client.body.config_node).toMatchObject({ type: "websocket-client", config: { path: url } });
    const out = flow!.nodes.find((n) => n.type === "websocket-out")!;
    expect(out.config).toMatchObject({ client: "63620788-bda128", server: "" });
    const hub = connect(upgrades.url, { authorization: `Bearer ${me.token}` });
    await hub.next((f) => f.type === "ready");
    expect((await request("POST", `/flows/${flow!.id}/deploy`, { token: me.token })).status).toBe(200);
    await expect.poll(async () => (await testApp.app.flowRuntime.nodeStatuses(flow!.id)).get(out.id)?.text, { timeout: 10_000 }).toBe("connected");
    const inject = flow!.nodes.find((n) => n.type === "inject")!;
    expect((await request("POST", `/nodes/${inject.id}/inject`, { token: me.token, body: {} })).status).toBe(200);
    expect((await hub.next((f) => f.topic === "debug")).data.msg).toBe("Hello, World!");
    hub.ws.close();
  });

  it("02: this app's listener broadcasts to the client, whose websocket in gives the debug output", async () => {
    const me = await owner();
    const { flows: [flow] } = await importFlows(me.token, example("02 - Connect to websocket out server.json"));
    await editConfigNode(me.token, "1d80bd86-93f372", { path: `${upgrades.base}/ws/hooks/${me.slug}/ws2` });
    const hub = connect(upgrades.url, { authorization: `Bearer ${me.token}` });
    await hub.next((f) => f.type === "ready");
    expect((await request("POST", `/flows/${flow!.id}/deploy`, { token: me.token })).status).toBe(200);
    const wsIn = flow!.nodes.find((n) => n.type === "websocket-in")!;
    const inject = flow!.nodes.find((n) => n.type === "inject")!;
    // The client connects once the flow runs (the listener is in the same flow: it may take one reconnect).
    await expect.poll(async () => (await testApp.app.flowRuntime.nodeStatuses(flow!.id)).get(wsIn.id)?.text, { timeout: 10_000 }).toBe("connected");
    // The listener counted the client: the edge subscribed to its channel before it told the listener.
    const wsOut = flow!.nodes.find((n) => n.type === "websocket-out")!;
    await expect.poll(async () => (await testApp.app.flowRuntime.nodeStatuses(flow!.id)).get(wsOut.id)?.text).toBe("connected 1");
    expect((await request("POST", `/nodes/${inject.id}/inject`, { token: me.token, body: {} })).status).toBe(200);
    const debug = await hub.next((f) => f.topic === "debug");
    expect(debug.data.msg).toBe("Goodbye, World!");
    hub.ws.close();
  });
});

describe("websocket client to an outside server", () => {
  let server: http.Server;
  let wss: WebSocketServer;
  let port = 0;
  const seen: Array<{ headers: http.IncomingHttpHeaders; protocol: string }> = [];
  beforeAll(async () => {
    server = http.createServer();
    wss = new WebSocketServer({ server, handleProtocols: (protocols) => (protocols.has("chat") ? "chat" : false) });
    wss.on("connection", (ws, req) => {
      seen.push({ headers: req.headers, protocol: ws.protocol });
      ws.on("message", (data, isBinary) => {
        const text = data.toString();
        if (text === "drop") ws.terminate();
        else ws.send(isBinary ? data : `echo:${text}`, { binary: isBinary });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const c of wss.clients) c.terminate();
    wss.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("sends headers and the subprotocol, exchanges entire messages, and reconnects 3 s after the server drops it", async () => {
    const me = await owner();
    expect((await request("POST", "/variables", { token: me.token, body: { name: "WS_TOKEN", value: "t0ken" } })).status).toBe(201);
    const client = await request("POST", "/config-nodes", {
      token: me.token,
      body: {
        type: "websocket-client",
        name: "outside",
        config: {
          path: `ws://127.0.0.1:${port}/feed`,
          wholemsg: "false",
          subprotocol: "chat, other",
          headers: [
            { keyType: "other", keyValue: "X-Token", valueType: "env", valueValue: "WS_TOKEN" },
            { keyType: "User-Agent", keyValue: "", valueType: "other", valueValue: "flowplane-test" },
          ],
        },
      },
    });
    expect(client.status, client.text).toBe(201);
    const id = client.body.config_node.id as string;
    const created = await request("POST", "/flows", {
      token: me.token,
      body: {
        name: "client",
        nodes: [
          { id: "oc_inj", type: "inject", position: { x: 0, y: 0 }, config: { payload: "ping", payload_type: "string" } },
          { id: "oc_out", type: "websocket-out", position: { x: 100, y: 0 }, config: { client: id } },
          { id: "oc_in", type: "websocket-in", position: { x: 0, y: 100 }, config: { client: id } },
          { id: "oc_dbg", type: "debug", position: { x: 100, y: 100 }, config: { property: "msg" } },
        ],
        connections: [
          { source: "oc_inj", target: "oc_out" },
          { source: "oc_in", target: "oc_dbg" },
        ],
      },
    });
    const flowId = created.body.flow.id as string;
    const hub = connect(upgrades.url, { authorization: `Bearer ${me.token}` });
    await hub.next((f) => f.type === "ready");
    expect((await request("POST", `/flows/${flowId}/deploy`, { token: me.token })).status).toBe(200);
    await expect.poll(async () => (await testApp.app.flowRuntime.nodeStatuses(flowId)).get("oc_in")).toEqual({ fill: "green", shape: "dot", text: "connected" });
    // One connection for both nodes (the pool), with the headers and the protocol.
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers).toMatchObject({ "x-token": "t0ken", "user-agent": "flowplane-test" });
    expect(seen[0]!.protocol).toBe("chat");

    expect((await request("POST", "/nodes/oc_inj/inject", { token: me.token, body: {} })).status).toBe(200);
    const echoed = await hub.next((f) => f.topic === "debug" && f.data?.node_id === "oc_dbg");
    expect(echoed.data.msg).toMatchObject({ payload: "echo:ping", _session: { type: "websocket" } });

    // The server drops the connection: disconnected, then connected again about 3 s later.
    expect((await request("POST", "/nodes/oc_inj/inject", { token: me.token, body: { payload: "drop" } })).status).toBe(200);
    await expect.poll(async () => (await testApp.app.flowRuntime.nodeStatuses(flowId)).get("oc_in")?.text).toBe("disconnected");
    const droppedAt = Date.now();
    await expect.poll(async () => (await testApp.app.flowRuntime.nodeStatuses(flowId)).get("oc_in")?.text, { timeout: 8000 }).toBe("connected");
    expect(Date.now() - droppedAt).toBeGreaterThan(2000);
    expect(seen).toHaveLength(2);
    hub.ws.close();
  });

  it("refuses a private address by default: the node shows an error and warns why, and nothing connects", async () => {
    const strict = await createTestApp();
    const strictUpgrades = await startUpgrades(strict);
    try {
      const req = restClient(strict);
      const me = await owner(req, strict);
      const client = await req("POST", "/config-nodes", { token: me.token, body: { type: "websocket-client", name: "private", config: { path: `ws://127.0.0.1:${port}/private` } } });
      expect(client.status, client.text).toBe(201);
      const before = seen.length;
      const created = await req("POST", "/flows", {
        token: me.token,
        body: { name: "private", nodes: [{ id: "pv_in", type: "websocket-in", position: { x: 0, y: 0 }, config: { client: client.body.config_node.id } }], connections: [] },
      });
      const flowId = created.body.flow.id as string;
      const hub = connect(strictUpgrades.url, { authorization: `Bearer ${me.token}` });
      await hub.next((f) => f.type === "ready");
      expect((await req("POST", `/flows/${flowId}/deploy`, { token: me.token })).status).toBe(200);
      await expect.poll(async () => (await strict.flowRuntime.nodeStatuses(flowId)).get("pv_in")).toEqual({ fill: "red", shape: "ring", text: "error" });
      const warning = await hub.next((f) => JSON.stringify(f).includes("private or reserved address"));
      expect(JSON.stringify(warning)).toContain("websocket error: 127.0.0.1 is a private or reserved address");
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(seen.length).toBe(before);
      hub.ws.close();
    } finally {
      await strictUpgrades.close();
      await strict.close();
    }
  });
});
