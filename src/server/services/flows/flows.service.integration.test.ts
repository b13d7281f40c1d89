/**
 * The flow services called directly, as the routers call them (the HTTP contract of the same
 * behaviour — statuses, ETag and If-Match — is in flows.integration.test.ts).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { createAccount, testMeta, type TestAccount } from "@/test/principals";
import { createFlowInput, updateFlowInput } from "./flow.schemas";
import { createFlow, deleteFlow, getFlow, listFlows, updateFlow } from "./flows";
import { deployFlow, getDeployedGraph, injectNode, listDeployments, rollbackFlow } from "./deployments";
import { nodeRedToSelection, selectionToNodeRed } from "./node-red";

const testApp = setUpTestApp();
let owner: TestAccount;

beforeAll(async () => {
  owner = await createAccount(testApp.app);
});

let seq = 0;
const uid = (p: string) => `${p}-${Date.now().toString(36)}-${++seq}`;

/** inject → change → debug, with fresh node ids. */
function graph() {
  const ids = { inject: uid("in"), change: uid("ch"), debug: uid("dbg") };
  return {
    ids,
    nodes: [
      { id: ids.inject, type: "inject", config: { payload_type: "string", payload: "hello" } },
      { id: ids.change, type: "change", config: { rules: [{ t: "set", p: "payload", to: "changed" }] } },
      { id: ids.debug, type: "debug" },
    ],
    connections: [
      { source: ids.inject, target: ids.change },
      { source: ids.change, target: ids.debug },
    ],
  };
}

const create = (account: TestAccount, body: Record<string, unknown>) => createFlow(testApp.app, account.principal, createFlowInput.parse(body), testMeta);
const update = (account: TestAccount, body: Record<string, unknown>) => updateFlow(testApp.app, account.principal, updateFlowInput.parse(body), testMeta);

describe("createFlow and updateFlow", () => {
  it("creates at revision 1 with defaults filled and indexes its node ids", async () => {
    const { nodes, connections, ids } = graph();
    const { flow } = await create(owner, { name: "service crud", nodes, connections });
    expect(flow).toMatchObject({ name: "service crud", revision: 1, enabled: true, state: "not_deployed", deployed_revision: null, runtime: null });
    expect(flow.nodes.find((n) => n.id === ids.debug)!.config).toMatchObject({ property: "payload" });
    expect(flow.connections.every((c) => c.source_port === 0)).toBe(true);
    const index = await testApp.app.db.prisma.flowNode.findMany({ where: { flowId: flow.id }, orderBy: { nodeId: "asc" } });
    expect(index.map((n) => n.nodeId).sort()).toEqual([ids.inject, ids.change, ids.debug].sort());
  });

  it("refuses a stale revision with REVISION_CONFLICT and writes nothing; without a revision the last write wins", async () => {
    const { flow } = await create(owner, { name: "stale" });
    await update(owner, { id: flow.id, name: "second", revision: 1 });
    await expect(update(owner, { id: flow.id, name: "from an old tab", revision: 1 })).rejects.toMatchObject({ code: "REVISION_CONFLICT" });
    expect((await getFlow(testApp.app, owner.principal, flow.id)).flow).toMatchObject({ name: "second", revision: 2 });
    expect((await update(owner, { id: flow.id, description: "blind" })).flow.revision).toBe(3);
  });

  it("lets exactly one of two writers at the same revision win", async () => {
    const { flow } = await create(owner, { name: "race" });
    const results = await Promise.allSettled([update(owner, { id: flow.id, name: "A", revision: 1 }), update(owner, { id: flow.id, name: "B", revision: 1 })]);
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toMatchObject({ code: "REVISION_CONFLICT" });
    const now = (await getFlow(testApp.app, owner.principal, flow.id)).flow;
    expect(now.revision).toBe(2);
    expect(now.name).toBe((won[0] as PromiseFulfilledResult<{ flow: { name: string } }>).value.flow.name);
  });

  it("keeps node ids unique in the organization: a taken id is refused, a replaced or deleted flow's ids are free again", async () => {
    const { nodes, connections, ids } = graph();
    const { flow } = await create(owner, { name: "holder", nodes, connections });
    await expect(create(owner, { name: "clash", nodes: [{ id: ids.inject, type: "inject" }] })).rejects.toMatchObject({
      code: "VALIDATION_FAILED",
      details: [{ path: "nodes[0].id", message: expect.stringMatching(/used by another flow/) }],
    });
    // Two flows claiming one id at once: one of them gets it.
    const fresh = uid("n");
    const both = await Promise.allSettled([create(owner, { name: "one", nodes: [{ id: fresh, type: "inject" }] }), create(owner, { name: "two", nodes: [{ id: fresh, type: "inject" }] })]);
    expect(both.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect((both.find((r) => r.status === "rejected") as PromiseRejectedResult).reason).toMatchObject({ code: "VALIDATION_FAILED" });

    // Replacing the graph frees the ids it dropped.
    await update(owner, { id: flow.id, nodes: [nodes[0]], connections: [] });
    expect((await create(owner, { name: "takes the change id", nodes: [{ id: ids.change, type: "change", config: { rules: [{ t: "delete", p: "topic" }] } }] })).flow.revision).toBe(1);
    await deleteFlow(testApp.app, owner.principal, flow.id, testMeta);
    expect((await create(owner, { name: "takes the inject id", nodes: [{ id: ids.inject, type: "inject" }] })).flow.revision).toBe(1);
  });

  it("answers another organization's flow as missing, and lists only the caller's", async () => {
    const other = await createAccount(testApp.app);
    const { flow } = await create(owner, { name: "not yours" });
    await expect(getFlow(testApp.app, other.principal, flow.id)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(update(other, { id: flow.id, name: "pwned" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(deleteFlow(testApp.app, other.principal, flow.id, testMeta)).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await listFlows(testApp.app, other.principal)).flows).toEqual([]);
    expect((await getFlow(testApp.app, owner.principal, flow.id)).flow.name).toBe("not yours");
  });
});

describe("deployments", () => {
  it("deploys the current revision, keeps it while the flow is edited, rolls back, and stops with enabled:false and delete", async () => {
    const app = testApp.app;
    const { nodes, connections, ids } = graph();
    const { flow } = await create(owner, { name: "deployed", nodes, connections });
    await expect(injectNode(app, owner.principal, { nodeId: ids.inject }, testMeta)).rejects.toMatchObject({ code: "FLOW_NOT_RUNNING" });

    const first = (await deployFlow(app, owner.principal, flow.id, testMeta)).deployment;
    expect(first).toMatchObject({ flow_id: flow.id, revision: 1, state: "running", deployed_by: owner.userId, rolled_back_from: null });
    expect(await app.flowRuntime.placement(flow.id)).toMatchObject({ instanceId: app.flowRuntime.instanceId });
    expect((await injectNode(app, owner.principal, { nodeId: ids.inject, payload: "x" }, testMeta)).flow_id).toBe(flow.id);
    await expect(injectNode(app, owner.principal, { nodeId: ids.debug }, testMeta)).rejects.toMatchObject({ code: "NOT_AN_INJECT_NODE" });
    await expect(injectNode(app, owner.principal, { nodeId: "nowhere" }, testMeta)).rejects.toMatchObject({ code: "NOT_FOUND" });

    // Editing does not touch what runs.
    await update(owner, { id: flow.id, name: "edited", revision: 1 });
    const afterEdit = (await getFlow(app, owner.principal, flow.id)).flow;
    expect(afterEdit).toMatchObject({ revision: 2, deployed_revision: 1, state: "running" });
    expect((await getDeployedGraph(app, owner.principal, flow.id)).deployed).toMatchObject({ deployment_id: first.id, revision: 1 });

    const second = (await deployFlow(app, owner.principal, flow.id, testMeta)).deployment;
    expect(second.revision).toBe(2);
    const back = (await rollbackFlow(app, owner.principal, { id: flow.id, deployment_id: first.id }, testMeta)).deployment;
    expect(back).toMatchObject({ revision: 1, rolled_back_from: first.id, state: "running" });
    const history = (await listDeployments(app, owner.principal, { id: flow.id, limit: 10 })).deployments;
    expect(history.map((d) => [d.id, d.state])).toEqual([
      [back.id, "running"],
      [second.id, "stopped"],
      [first.id, "stopped"],
    ]);
    await expect(rollbackFlow(app, owner.principal, { id: flow.id, deployment_id: "dep_doesnotexist00" }, testMeta)).rejects.toMatchObject({ code: "NOT_FOUND" });

    const off = (await update(owner, { id: flow.id, enabled: false })).flow;
    expect(off).toMatchObject({ state: "stopped", runtime: null });
    await expect(injectNode(app, owner.principal, { nodeId: ids.inject }, testMeta)).rejects.toMatchObject({ code: "FLOW_NOT_RUNNING" });
    expect((await update(owner, { id: flow.id, enabled: true })).flow.state).toBe("running");

    await deleteFlow(app, owner.principal, flow.id, testMeta);
    expect(await app.flowRuntime.placement(flow.id)).toBeNull();
    await expect(injectNode(app, owner.principal, { nodeId: ids.inject }, testMeta)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("records a deployment in error, with the failing node named, when a node cannot start", async () => {
    const id = uid("fn");
    // On Start that never ends: the node cannot start (code that does not compile is the node's error only, as in Node-RED).
    const { flow } = await create(owner, { name: "broken", nodes: [{ id, type: "function", config: { code: "return msg;", initialize: "while (true) {}", timeout_ms: 200 } }] });
    expect((await deployFlow(testApp.app, owner.principal, flow.id, testMeta)).deployment.state).toBe("error");
    const broken = (await getFlow(testApp.app, owner.principal, flow.id)).flow;
    expect(broken.state).toBe("error");
    expect(broken.state_error).toContain(id);
    expect(broken.runtime).toBeNull();
  });
});

describe("the editor's clipboard", () => {
  it("copies a selection as Node-RED JSON (wires only inside it) and parses it back", async () => {
    const { nodes, connections, ids } = graph();
    const { flow } = await create(owner, { name: "clipboard", nodes, connections });
    const picked = flow.nodes.filter((n) => n.id !== ids.debug);
    const json = await selectionToNodeRed(testApp.app, owner.principal, { id: flow.id, nodes: picked, connections: flow.connections });
    expect(json).toHaveLength(2);
    expect(json[0]).toMatchObject({ id: ids.inject, type: "inject", z: flow.id, wires: [[ids.change]] });
    expect(json[1]).toMatchObject({ id: ids.change, type: "change", wires: [[]] });
    const back = nodeRedToSelection(testApp.app.nodes, json);
    expect(back.nodes.map((n) => [n.id, n.type])).toEqual([
      [ids.inject, "inject"],
      [ids.change, "change"],
    ]);
    expect(back.nodes[1]!.config).toEqual(flow.nodes[1]!.config);
    expect(back.connections).toEqual([{ source: ids.inject, source_port: 0, target: ids.change }]);
    const other = await createAccount(testApp.app);
    await expect(selectionToNodeRed(testApp.app, other.principal, { id: flow.id, nodes: picked, connections: [] })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
