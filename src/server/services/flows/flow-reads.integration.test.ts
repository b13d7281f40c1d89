/**
 * Flow reads across instances: a second instance is a second flows cache (and access cache) on the
 * same database and store, as another process has. Every read goes through a principal resolved
 * for that read, as each HTTP request resolves its own.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { createAccount, testMeta, type TestAccount } from "@/test/principals";
import type { AppServices } from "@/server/app-services";
import { AccessCache } from "@/server/auth/access-cache";
import { resolvePrincipal, type Principal } from "@/server/auth/principal";
import { createFlowInput, updateFlowInput } from "./flow.schemas";
import { createFlow, getFlow, listFlows, updateFlow } from "./flows";
import { deployFlow, injectNode } from "./deployments";
import { createFlowReads, flowsGenerationKey } from "./flow-reads";

const testApp = setUpTestApp();
let a: AppServices;
/** Another instance: its own caches over the same database and store. */
let b: AppServices;
let owner: TestAccount;
let neighbour: TestAccount;

beforeAll(async () => {
  a = testApp.app;
  b = { ...a, access: new AccessCache(a.store), flowReads: createFlowReads(a.store) };
  owner = await createAccount(a);
  neighbour = await createAccount(a);
});

/** What one request with the account's access token resolves to on `app`. */
const as = (app: AppServices, account: TestAccount): Promise<Principal> =>
  resolvePrincipal(app, { authorization: `Bearer ${account.session.access_token}` }, { touch: false });

let seq = 0;
const nodeId = (p: string) => `${p}-${Date.now().toString(36)}-${++seq}`;

async function newFlow(account: TestAccount, name: string) {
  const inject = nodeId("in");
  const debug = nodeId("dbg");
  const body = {
    name,
    nodes: [
      { id: inject, type: "inject", config: { payload_type: "string", payload: "hi" } },
      { id: debug, type: "debug" },
    ],
    connections: [{ source: inject, target: debug }],
  };
  const { flow } = await createFlow(a, await as(a, account), createFlowInput.parse(body), testMeta);
  return { flow, inject };
}

describe("flow reads across instances", () => {
  it("reads the flows generation in the principal's own round trip, for that request only", async () => {
    const principal = await as(b, owner);
    expect(principal.flowsGeneration).toBe(await a.store.get(flowsGenerationKey(owner.organizationId)));
    // A socket keeps its principal: it carries no generation (realtime/admission.ts).
    const { authenticateSocket } = await import("@/server/realtime/admission");
    const socket = await authenticateSocket(b, { authorization: `Bearer ${owner.session.access_token}` });
    expect(socket.flowsGeneration).toBeUndefined();
  });

  it("keeps serving from memory until a write on any instance replaces the organization's token", async () => {
    const { flow } = await newFlow(owner, "Before");
    expect((await getFlow(b, await as(b, owner), flow.id)).flow.name).toBe("Before");
    // A change that bypasses the services (and so the generation) is not seen: the cache is in use...
    await a.db.prisma.flow.update({ where: { id: flow.id }, data: { description: "behind the services' back" } });
    expect((await getFlow(b, await as(b, owner), flow.id)).flow.description).toBe("");
    // ...and a write through the services on the other instance is seen by the very next read.
    await updateFlow(a, await as(a, owner), updateFlowInput.parse({ id: flow.id, name: "After" }), testMeta);
    const read = (await getFlow(b, await as(b, owner), flow.id)).flow;
    expect(read.name).toBe("After");
    expect(read.description).toBe("behind the services' back");
    const listed = (await listFlows(b, await as(b, owner))).flows.find((f) => f.id === flow.id);
    expect(listed?.name).toBe("After");
    expect(listed?.revision).toBe(read.revision);
  });

  it("a deploy and the runtime's state records are read back at once on the other instance", async () => {
    const { flow, inject } = await newFlow(owner, "Runs");
    // The other instance has the flow cached as never deployed, and its inject refused.
    expect((await getFlow(b, await as(b, owner), flow.id)).flow.state).toBe("not_deployed");
    await expect(injectNode(b, await as(b, owner), { nodeId: inject }, testMeta)).rejects.toMatchObject({ code: "FLOW_NOT_RUNNING" });

    await deployFlow(a, await as(a, owner), flow.id, testMeta);
    expect((await getFlow(b, await as(b, owner), flow.id)).flow.state).toBe("running");
    expect((await listFlows(b, await as(b, owner))).flows.find((f) => f.id === flow.id)?.state).toBe("running");
    const injected = await injectNode(b, await as(b, owner), { nodeId: inject }, testMeta);
    expect(injected.flow_id).toBe(flow.id);

    // The runtime records a state by itself (no service write around it): read back at once too.
    // The row changes behind the services' back (no new token), so only the runtime's own record
    // of the new state can make the other instance read again. (Clustered, the runtime takes
    // `enabled` from the database, so it is written there first.)
    for (const enabled of [false, true]) {
      const row = await a.db.prisma.flow.update({ where: { id: flow.id }, data: { enabled } });
      await a.flowRuntime.setEnabled(row, enabled);
      expect((await getFlow(b, await as(b, owner), flow.id)).flow.state).toBe(enabled ? "running" : "stopped");
    }

    // Disabled on one instance: stopped (written by the runtime), and inject refused, on the other.
    await updateFlow(a, await as(a, owner), updateFlowInput.parse({ id: flow.id, enabled: false }), testMeta);
    expect((await getFlow(b, await as(b, owner), flow.id)).flow.state).toBe("stopped");
    await expect(injectNode(b, await as(b, owner), { nodeId: inject }, testMeta)).rejects.toMatchObject({ code: "FLOW_NOT_RUNNING" });
  });

  it("one organization's writes leave another's reads cached", async () => {
    const { flow: mine } = await newFlow(owner, "Mine");
    const { flow: theirs } = await newFlow(neighbour, "Theirs");
    const before = await a.store.get(flowsGenerationKey(neighbour.organizationId));
    expect((await getFlow(b, await as(b, neighbour), theirs.id)).flow.name).toBe("Theirs");
    await updateFlow(a, await as(a, owner), updateFlowInput.parse({ id: mine.id, name: "Mine, renamed" }), testMeta);
    expect(await a.store.get(flowsGenerationKey(neighbour.organizationId))).toBe(before);
    // Still each other's 404s.
    await expect(getFlow(b, await as(b, neighbour), mine.id)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(getFlow(b, await as(b, owner), theirs.id)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("a lost generation key (Redis restarted empty) never brings back reads older than a write", async () => {
    const { flow } = await newFlow(owner, "Lost");
    await a.store.del(flowsGenerationKey(owner.organizationId));
    expect((await getFlow(b, await as(b, owner), flow.id)).flow.name).toBe("Lost");
    const first = await a.store.get(flowsGenerationKey(owner.organizationId));
    expect(first).toMatch(/^[\w-]{16}$/);
    // A write whose new token is lost with the store's data...
    await a.db.prisma.flow.update({ where: { id: flow.id }, data: { name: "Found" } });
    await a.store.del(flowsGenerationKey(owner.organizationId));
    // ...is still seen: the missing key becomes a fresh token, never the one the cache was filled under.
    expect((await getFlow(b, await as(b, owner), flow.id)).flow.name).toBe("Found");
    expect(await a.store.get(flowsGenerationKey(owner.organizationId))).not.toBe(first);
  });

  it("cached values are frozen: no request can change what another reads", async () => {
    const { flow } = await newFlow(owner, "Frozen");
    const list = await listFlows(b, await as(b, owner));
    expect(Object.isFrozen(list) && Object.isFrozen(list.flows[0])).toBe(true);
    expect(() => {
      (list.flows as { name: string }[])[0]!.name = "changed";
    }).toThrow(TypeError);
    const again = await listFlows(b, await as(b, owner));
    expect(again).toBe(list);
    expect(again.flows.find((f) => f.id === flow.id)?.name).toBe("Frozen");
  });

  it("one flow's answer is kept with its row, and made again when the flow moves to another instance", async () => {
    const { flow } = await newFlow(owner, "Kept");
    await deployFlow(a, await as(a, owner), flow.id, testMeta);
    const first = await getFlow(b, await as(b, owner), flow.id);
    expect(Object.isFrozen(first.flow)).toBe(true);
    expect(await getFlow(b, await as(b, owner), flow.id)).toBe(first);
    expect(first.flow.runtime).toMatchObject({ instance_id: expect.any(String) });
    // Another instance took the flow over (a failover records no new state): its placement, not
    // the kept answer's.
    const moved = { instanceId: "another-instance", since: new Date(Date.now() + 1_000) };
    const other: AppServices = { ...b, flowRuntime: Object.assign(Object.create(b.flowRuntime) as AppServices["flowRuntime"], { placement: async () => moved }) };
    const after = await getFlow(other, await as(other, owner), flow.id);
    expect(after).not.toBe(first);
    expect(after.flow.runtime).toEqual({ instance_id: "another-instance", since: moved.since.toISOString() });
    expect((await getFlow(b, await as(b, owner), flow.id)).flow.runtime).toEqual(first.flow.runtime);
  });
});
