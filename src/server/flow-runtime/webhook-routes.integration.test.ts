/**
 * Issue 28: the cluster's webhook routes (`cluster:hook:<slug> <method> <path>` → flow id, written
 * by the instance running the flow so the others can forward /hooks requests to it) used to be
 * written without a TTL and never deleted. A route leaves the store when its flow stops serving it
 * (redeployed without it, disabled, deleted, its organization deleted), expires when nobody renews
 * it (its instance died), and a key that outlived its flow answers 404, never another flow's
 * answer.
 *
 * Two ClusteredFlowRuntime instances in this process over the test app's database and store (the
 * in-process store, or Redis with REDIS_URL), each with its own webhook registry, so a request sent
 * through the instance that does not run the flow crosses the cluster bus. Requests go through the
 * /hooks door the server mounts (handleWebhookUrl).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { clusteredPair, postHook } from "@/test/clustered-instances";
import { restClient } from "@/test/app";
import { signUp } from "@/test/accounts";
import type { AppServices } from "@/server/app-services";
import type { ClusteredFlowRuntime } from "./clustered";

const TIMINGS = { tickMs: 100, leaseTtlMs: 1_000, routeTtlMs: 1_500 };

const testApp = setUpTestApp();
const pair = clusteredPair(() => testApp.app, TIMINGS);
let a: ClusteredFlowRuntime;
let b: ClusteredFlowRuntime;
/** The test app as each instance: the same database and store, its own flow runtime. */
let apps: Map<string, AppServices>;

beforeAll(() => {
  ({ a, b, apps } = pair);
});


const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(25);
  }
}

type Owner = Awaited<ReturnType<typeof signUp>> & { slug: string };

/** REST calls made on instance a (deploys and stops reach the holder from there). */
const rest = () => restClient(apps.get(a.instanceId)!);

async function owner(): Promise<Owner> {
  const user = await signUp(rest());
  const { slug } = await testApp.app.db.prisma.organization.findUniqueOrThrow({ where: { id: user.organizationId } });
  return { ...user, slug };
}

let seq = 0;
/** A flow answering 201 with its own name at each of the POST paths. */
function graph(name: string, paths: string[]) {
  const nodes: unknown[] = [];
  const connections: unknown[] = [];
  for (const path of paths) {
    const id = `${name}-${++seq}`;
    nodes.push({ id: `${id}-in`, type: "http-in", config: { method: "post", path } }, { id: `${id}-out`, type: "http-response", config: { status_code: 201 } });
    connections.push({ source: `${id}-in`, target: `${id}-out` });
  }
  return { nodes, connections };
}

async function deploy(who: Owner, name: string, paths: string[]): Promise<string> {
  const created = await rest()("POST", "/flows", { token: who.accessToken, body: { name, ...graph(name, paths) } });
  expect(created.status, created.text).toBe(201);
  const id = created.body.flow.id as string;
  const deployed = await rest()("POST", `/flows/${id}/deploy`, { token: who.accessToken });
  expect(deployed.body.deployment?.state, deployed.text).toBe("running");
  return id;
}

async function redeploy(who: Owner, flowId: string, name: string, paths: string[]): Promise<void> {
  const saved = await rest()("PUT", `/flows/${flowId}`, { token: who.accessToken, body: graph(name, paths) });
  expect(saved.status, saved.text).toBe(200);
  const deployed = await rest()("POST", `/flows/${flowId}/deploy`, { token: who.accessToken });
  expect(deployed.body.deployment?.state, deployed.text).toBe("running");
}

/** Tests delete the flows they leave running, so the next one starts from a balanced cluster. */
async function remove(who: Owner, ...flowIds: string[]): Promise<void> {
  for (const flowId of flowIds) expect((await rest()("DELETE", `/flows/${flowId}`, { token: who.accessToken })).status).toBe(204);
}

const routeKey = (slug: string, path: string) => `cluster:hook:${slug} post ${path}`;
const route = (slug: string, path: string) => testApp.app.store.get(routeKey(slug, path));

async function holderOf(flowId: string): Promise<string> {
  return until(`${flowId} placed`, async () => (await a.placement(flowId))?.instanceId);
}

/** POST /hooks/{slug}{path} through the instance `via` (by default: one that does not run `flowId`). */
function hook(slug: string, path: string, via: string): Promise<{ status: number; body: any }> {
  return postHook(apps.get(via)!, slug, path);
}

/** Until neither instance hands flows to the other any more (it does while one holds two more). */
async function settled(): Promise<void> {
  await until("placement settled", async () => Math.abs(a.heldFlowIds().length - b.heldFlowIds().length) < 2);
}

/** An instance that does not run the flow: a request made there crosses the bus. */
async function elsewhere(flowId: string): Promise<string> {
  await settled();
  const holder = await holderOf(flowId);
  return holder === a.instanceId ? b.instanceId : a.instanceId;
}

describe("cluster webhook routes", () => {
  it("are written with a TTL, renewed by the holder, and follow a redeploy", async () => {
    const who = await owner();
    const flowId = await deploy(who, "follow", ["/r1", "/r2"]);
    expect(await route(who.slug, "/r1")).toBe(flowId);
    const ttl = await testApp.app.store.ttl(routeKey(who.slug, "/r1"));
    expect(ttl).not.toBeNull();
    expect(ttl!).toBeLessThanOrEqual(TIMINGS.routeTtlMs);
    expect((await hook(who.slug, "/r1", await elsewhere(flowId))).status).toBe(201);

    // Renewed while the flow runs: still there after twice its TTL.
    await sleep(TIMINGS.routeTtlMs * 2);
    expect(await route(who.slug, "/r1")).toBe(flowId);

    // Redeployed without /r1: its key is gone at once, /r3 is there, /r2 stays.
    await redeploy(who, flowId, "follow", ["/r2", "/r3"]);
    expect(await route(who.slug, "/r1")).toBeNull();
    expect(await route(who.slug, "/r2")).toBe(flowId);
    expect(await route(who.slug, "/r3")).toBe(flowId);
    const via = await elsewhere(flowId);
    expect((await hook(who.slug, "/r1", via)).status).toBe(404);
    expect((await hook(who.slug, "/r3", via)).status).toBe(201);
    await remove(who, flowId);
    expect(await route(who.slug, "/r2")).toBeNull();
    expect(await route(who.slug, "/r3")).toBeNull();
  });

  it("are deleted when the flow is disabled, deleted, or its organization deleted", async () => {
    const who = await owner();
    const disabled = await deploy(who, "disabled", ["/off"]);
    const removed = await deploy(who, "removed", ["/gone"]);
    expect(await route(who.slug, "/off")).toBe(disabled);
    expect(await route(who.slug, "/gone")).toBe(removed);

    expect((await rest()("PUT", `/flows/${disabled}`, { token: who.accessToken, body: { enabled: false } })).status).toBe(200);
    expect((await rest()("DELETE", `/flows/${removed}`, { token: who.accessToken })).status).toBe(204);
    // At once, through either instance: nothing answers for them any more.
    for (const via of apps.keys()) {
      expect((await hook(who.slug, "/off", via)).status).toBe(404);
      expect((await hook(who.slug, "/gone", via)).status).toBe(404);
    }
    // And their keys are gone: deleted by the stop, or (when the stop raced a rebalance that was
    // moving the flow, whose next holder wrote them again) expired within routeTtlMs.
    await until("/off and /gone withdrawn", async () => (await route(who.slug, "/off")) === null && (await route(who.slug, "/gone")) === null, TIMINGS.routeTtlMs + 1_000);

    const other = await owner();
    const flowId = await deploy(other, "org", ["/org"]);
    expect(await route(other.slug, "/org")).toBe(flowId);
    expect((await rest()("DELETE", `/organizations/${other.organizationId}`, { token: other.accessToken })).status).toBe(204);
    for (const via of apps.keys()) expect((await hook(other.slug, "/org", via)).status).toBe(404);
    await until("/org withdrawn", async () => (await route(other.slug, "/org")) === null, TIMINGS.routeTtlMs + 1_000);
  });

  it("a key that outlived its flow answers 404: no lease, or a holder that does not serve that route, never another flow", async () => {
    const who = await owner();
    const victim = await owner();
    const running = await deploy(who, "running", ["/mine"]);
    const stopped = await deploy(who, "stopped", ["/stale"]);
    expect((await rest()("PUT", `/flows/${stopped}`, { token: who.accessToken, body: { enabled: false } })).status).toBe(200);
    const victimFlow = await deploy(victim, "victim", ["/mine"]);

    // As an instance that died would leave them behind (or an older version, without a TTL):
    // a route naming a flow that runs nowhere, one naming a running flow that does not serve it,
    // and one under another organization's slug naming a running flow of this one.
    await testApp.app.store.set(routeKey(who.slug, "/stale"), stopped);
    await testApp.app.store.set(routeKey(who.slug, "/not-served"), running);
    await testApp.app.store.set(routeKey(victim.slug, "/elsewhere"), running);
    for (const via of apps.keys()) {
      expect((await hook(who.slug, "/stale", via)).status).toBe(404);
      expect((await hook(who.slug, "/not-served", via)).status).toBe(404);
      expect((await hook(victim.slug, "/elsewhere", via)).status).toBe(404);
    }
    // A key without a TTL (written by a version before issue 28) gets one once found stale.
    const aged = await testApp.app.store.ttl(routeKey(who.slug, "/stale"));
    expect(aged).not.toBeNull();
    expect(aged!).toBeLessThanOrEqual(TIMINGS.routeTtlMs);
    // Each organization's /mine reaches its own flow, whichever instance takes it (once a flow
    // handed over by the rebalance runs on its new holder).
    await settled();
    for (const [slug, flowId] of [[who.slug, running], [victim.slug, victimFlow]] as const) {
      await until(`${flowId} serves /mine`, async () => (await hook(slug, "/mine", await holderOf(flowId))).status === 201);
    }
    for (const via of apps.keys()) {
      expect((await hook(who.slug, "/mine", via)).status).toBe(201);
      expect((await hook(victim.slug, "/mine", via)).status).toBe(201);
    }
    expect(await route(who.slug, "/mine")).toBe(running);
    expect(await route(victim.slug, "/mine")).toBe(victimFlow);
    // A slug percent-decoded with spaces in it is one part of the key, never slug, method and path.
    await testApp.app.store.set(`cluster:hook:${who.slug} post /mine post /x`, running);
    for (const via of apps.keys()) expect((await hook(`${who.slug}%20post%20%2Fmine`, "/x", via)).status).toBe(404);
    await remove(who, running, stopped);
    await remove(victim, victimFlow);
  });

  it("a renewal never takes a route another flow has since published, and writes back one that is gone", async () => {
    const who = await owner();
    const flowId = await deploy(who, "renewed", ["/shared"]);
    // Another flow's holder published the route meanwhile (the newest start wins a route)...
    await testApp.app.store.set(routeKey(who.slug, "/shared"), "flw_another");
    // ...and this flow's renewals leave it alone.
    await sleep(TIMINGS.routeTtlMs);
    expect(await route(who.slug, "/shared")).toBe("flw_another");
    // Once that flow stops (its key deleted), this flow's holder writes its own back.
    await testApp.app.store.del(routeKey(who.slug, "/shared"));
    await until("the route back", async () => (await route(who.slug, "/shared")) === flowId, TIMINGS.routeTtlMs * 3);
    expect((await hook(who.slug, "/shared", await elsewhere(flowId))).status).toBe(201);
    await remove(who, flowId);
  });

  it("a dead holder's routes expire", async () => {
    const who = await owner();
    const flowId = await deploy(who, "orphan", ["/orphan"]);
    const holder = (await holderOf(flowId)) === a.instanceId ? a : b;
    // The holder stops ticking (as a killed process would) and the flow is deleted behind its back.
    clearInterval((holder as unknown as { timer: NodeJS.Timeout }).timer);
    (holder as unknown as { closing: boolean }).closing = true;
    await testApp.app.db.prisma.flow.update({ where: { id: flowId }, data: { deletedAt: new Date() } });
    expect(await route(who.slug, "/orphan")).toBe(flowId);
    await until("the route to expire", async () => (await route(who.slug, "/orphan")) === null, TIMINGS.routeTtlMs * 3);
    const survivor = holder === a ? b : a;
    expect((await hook(who.slug, "/orphan", survivor.instanceId)).status).toBe(404);
    // Let afterAll close it as usual.
    (holder as unknown as { closing: boolean }).closing = false;
  });
});
