/**
 * The debug node's button (Node-RED's POST /debug/{id}/enable|disable): POST /nodes/{id}/active
 * switches a running debug node off and on at once, without a deploy, and only that node; what a
 * bad request gets (not a debug node, not running, a viewer, another organization, a body that is
 * not a switch) and that it changes nothing. Through REST and the WebSocket's debug topic. And
 * POST /flows/{id}/debug/active, Node-RED's "activate / deactivate all debug nodes": every debug
 * node of the running version, or the ones named, at once.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { joinAs, signUp } from "@/test/accounts";
import { setUpTestApp } from "@/test/set-up-test-app";
import { connect, setUpTestHub } from "@/test/ws";

const testApp = setUpTestApp();
const hub = setUpTestHub(testApp);
const request = testApp.request;
let owner: Awaited<ReturnType<typeof signUp>>;
beforeAll(async () => {
  owner = await signUp(request);
});

let seq = 0;
/** inject → two debug nodes (the one switched, and a witness that the message passed). */
async function deployed(token: string) {
  const s = `da${++seq}${Date.now().toString(36)}`;
  const ids = { tick: `${s}-tick`, shown: `${s}-shown`, witness: `${s}-witness` };
  const created = await request("POST", "/flows", {
    token,
    body: {
      name: `debug button ${s}`,
      nodes: [
        { id: ids.tick, type: "inject", config: { payload_type: "string", payload: "hello" } },
        { id: ids.shown, type: "debug", name: "shown", config: { to_status: true, status_type: "counter" } },
        { id: ids.witness, type: "debug", name: "witness" },
      ],
      connections: [
        { source: ids.tick, target: ids.shown },
        { source: ids.tick, target: ids.witness },
      ],
    },
  });
  expect(created.status, created.text).toBe(201);
  const flowId = created.body.flow.id as string;
  return { flowId, ids, deploy: async () => expect((await request("POST", `/flows/${flowId}/deploy`, { token })).status).toBe(200) };
}

/** An inject of the flow's message reaches the switched debug node's output (on the WebSocket). */
async function expectShown(flow: Awaited<ReturnType<typeof deployed>>) {
  const ui = connect(hub.url, { authorization: `Bearer ${owner.accessToken}` });
  try {
    await ui.next((f) => f.type === "ready");
    expect((await request("POST", `/nodes/${flow.ids.tick}/inject`, { token: owner.accessToken, body: {} })).status).toBe(200);
    await expect.poll(() => ui.frames.some((f) => f.topic === "debug" && f.data?.node_id === flow.ids.shown)).toBe(true);
  } finally {
    ui.ws.close();
  }
}

/** A deployed flow, a WebSocket watching its debug messages (how many each node showed), and its inject. */
async function watchedFlow() {
  const flow = await deployed(owner.accessToken);
  await flow.deploy();
  const ui = connect(hub.url, { authorization: `Bearer ${owner.accessToken}` });
  await ui.next((f) => f.type === "ready");
  const shownBy = (id: string) => ui.frames.filter((f) => f.topic === "debug" && f.data?.node_id === id).length;
  const inject = async () => expect((await request("POST", `/nodes/${flow.ids.tick}/inject`, { token: owner.accessToken, body: {} })).status).toBe(200);
  return { flow, ui, shownBy, inject };
}

describe("POST /nodes/{id}/active", () => {
  it("switches the running debug node off and on without a deploy: the witness keeps showing, the switched one shows only while on, its counter counts throughout", async () => {
    const { flow, ui, shownBy, inject } = await watchedFlow();
    try {
      await inject();
      await expect.poll(() => shownBy(flow.ids.witness)).toBe(1);
      await expect.poll(() => shownBy(flow.ids.shown)).toBe(1);

      const off = await request("POST", `/nodes/${flow.ids.shown}/active`, { token: owner.accessToken, body: { active: false } });
      expect(off.status, off.text).toBe(200);
      expect(off.body).toEqual({ node_id: flow.ids.shown, flow_id: flow.flowId, active: false });
      await inject();
      await expect.poll(() => shownBy(flow.ids.witness)).toBe(2);
      // The witness's message came; the switched node's never does. Its status still counts (as in Node-RED).
      await expect.poll(() => ui.frames.some((f) => f.topic === "node.status" && f.data?.node_id === flow.ids.shown && f.data?.status?.text === "2")).toBe(true);
      expect(shownBy(flow.ids.shown)).toBe(1);

      expect((await request("POST", `/nodes/${flow.ids.shown}/active`, { token: owner.accessToken, body: { active: true } })).status).toBe(200);
      await inject();
      await expect.poll(() => shownBy(flow.ids.shown)).toBe(2);
      expect(shownBy(flow.ids.witness)).toBe(3);
      // No deploy happened: the flow's deployment and saved setting are as they were.
      const got = await request("GET", `/flows/${flow.flowId}`, { token: owner.accessToken });
      expect(got.body.flow.revision).toBe(1);
      expect(got.body.flow.nodes.find((n: { id: string }) => n.id === flow.ids.shown).config.active).toBe(true);
    } finally {
      ui.ws.close();
    }
  });

  it("a redeploy that changes the node starts it with its saved setting again", async () => {
    const flow = await deployed(owner.accessToken);
    await flow.deploy();
    expect((await request("POST", `/nodes/${flow.ids.shown}/active`, { token: owner.accessToken, body: { active: false } })).status).toBe(200);
    const got = (await request("GET", `/flows/${flow.flowId}`, { token: owner.accessToken })).body.flow;
    const nodes = got.nodes.map((n: { id: string; name: string }) => (n.id === flow.ids.shown ? { ...n, name: "renamed" } : n));
    expect((await request("PUT", `/flows/${flow.flowId}`, { token: owner.accessToken, body: { nodes, connections: got.connections, revision: got.revision } })).status).toBe(200);
    await flow.deploy();
    await expectShown(flow);
  });

  it("refuses what is not a running debug node of the caller's organization, a viewer, and a body that is not a switch, with a clear error", async () => {
    const flow = await deployed(owner.accessToken);
    const call = (nodeId: string, body: unknown, token = owner.accessToken) => request("POST", `/nodes/${nodeId}/active`, { token, body });
    // Not deployed yet.
    expect(await call(flow.ids.shown, { active: false })).toMatchObject({ status: 409, body: { error: { code: "FLOW_NOT_RUNNING" } } });
    await flow.deploy();
    expect(await call(flow.ids.tick, { active: false })).toMatchObject({ status: 400, body: { error: { code: "NOT_SWITCHABLE", message: expect.stringContaining("inject") } } });
    expect(await call("no-such-node", { active: false })).toMatchObject({ status: 404 });
    for (const body of [{}, { active: "false" }, { active: 0 }, null]) expect((await call(flow.ids.shown, body)).status, JSON.stringify(body)).toBe(400);
    const viewer = await joinAs(testApp.app, request, owner, "viewer");
    expect(await call(flow.ids.shown, { active: false }, viewer.token)).toMatchObject({ status: 403 });
    const stranger = await signUp(request);
    expect(await call(flow.ids.shown, { active: false }, stranger.accessToken)).toMatchObject({ status: 404 });
    // None of these switched it: the next message shows.
    await expectShown(flow);
  });
});

describe("POST /flows/{id}/debug/active", () => {
  it("switches every debug node of the running flow off and on at once, or only the ones named; no deploy", async () => {
    const { flow, ui, shownBy, inject } = await watchedFlow();
    try {
      const switchAll = (body: unknown) => request("POST", `/flows/${flow.flowId}/debug/active`, { token: owner.accessToken, body });

      const off = await switchAll({ active: false });
      expect(off.status, off.text).toBe(200);
      expect(off.body).toEqual({ flow_id: flow.flowId, active: false, node_ids: [flow.ids.shown, flow.ids.witness] });
      await inject();
      // Both silent; the counter of the first still counts, so the message did pass.
      await expect.poll(() => ui.frames.some((f) => f.topic === "node.status" && f.data?.node_id === flow.ids.shown && f.data?.status?.text === "1")).toBe(true);
      expect([shownBy(flow.ids.shown), shownBy(flow.ids.witness)]).toEqual([0, 0]);

      const one = await switchAll({ active: true, node_ids: [flow.ids.witness] });
      expect(one.body).toEqual({ flow_id: flow.flowId, active: true, node_ids: [flow.ids.witness] });
      await inject();
      await expect.poll(() => shownBy(flow.ids.witness)).toBe(1);
      expect(shownBy(flow.ids.shown)).toBe(0);

      expect((await switchAll({ active: true })).status).toBe(200);
      await inject();
      await expect.poll(() => [shownBy(flow.ids.shown), shownBy(flow.ids.witness)]).toEqual([1, 2]);
      const got = (await request("GET", `/flows/${flow.flowId}`, { token: owner.accessToken })).body.flow;
      expect(got.revision).toBe(1);
    } finally {
      ui.ws.close();
    }
  });

  it("refuses a node that is not one of the running version's debug nodes, a flow not running, a viewer, another organization and a bad body; none switches anything", async () => {
    const flow = await deployed(owner.accessToken);
    const call = (body: unknown, token = owner.accessToken, flowId = flow.flowId) => request("POST", `/flows/${flowId}/debug/active`, { token, body });
    expect(await call({ active: false })).toMatchObject({ status: 409, body: { error: { code: "FLOW_NOT_RUNNING" } } });
    await flow.deploy();
    const notDebug = await call({ active: false, node_ids: [flow.ids.shown, flow.ids.tick, "no-such-node"] });
    expect(notDebug).toMatchObject({ status: 400, body: { error: { code: "NOT_SWITCHABLE" } } });
    expect(notDebug.body.error.details).toEqual([
      { path: "node_ids[1]", message: `${flow.ids.tick} is not a debug node of the running version of this flow` },
      { path: "node_ids[2]", message: "no-such-node is not a debug node of the running version of this flow" },
    ]);
    for (const body of [{}, { active: "false" }, { active: false, node_ids: [] }, { active: false, node_ids: ["bad id!"] }, null]) expect((await call(body)).status, JSON.stringify(body)).toBe(400);
    const viewer = await joinAs(testApp.app, request, owner, "viewer");
    expect(await call({ active: false }, viewer.token)).toMatchObject({ status: 403 });
    const stranger = await signUp(request);
    expect(await call({ active: false }, stranger.accessToken)).toMatchObject({ status: 404 });
    // None of these switched the first node off (the one named beside the inject): it still shows.
    await expectShown(flow);
  });
});
