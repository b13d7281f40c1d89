/**
 * Issue 28, on real processes against the machine's PostgreSQL and Redis: the webhook routes the
 * instance running a flow publishes (`cluster:hook:<slug> <method> <path>` → flow id) carry a TTL,
 * follow a redeploy, move with a hand-over, and are gone once the flow stops. Requests go through
 * /hooks on both instances. (The expiry of a dead holder's routes, and stale keys answering 404,
 * are covered in webhook-routes.integration.test.ts with short timings.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { signUp } from "@/test/accounts";
import { TestCluster, until, type ClusterNode } from "@/test/cluster";
import { DEFAULT_CLUSTER_TIMINGS } from "./clustered";

const BASE_PORT = 3730;

let cluster: TestCluster;
let redis: Redis;
let token: string;
let slug: string;
const tag = Math.random().toString(36).slice(2, 8);
let seq = 0;

function webhookGraph(paths: string[]) {
  const nodes: unknown[] = [];
  const connections: unknown[] = [];
  for (const path of paths) {
    const id = `${tag}-${++seq}`;
    nodes.push({ id: `in-${id}`, type: "http-in", config: { method: "post", path } }, { id: `out-${id}`, type: "http-response", config: { status_code: 201 } });
    connections.push({ source: `in-${id}`, target: `out-${id}` });
  }
  return { nodes, connections };
}

const node = (name: string) => cluster.node(name);
const routeKey = (path: string) => `${cluster.keyPrefix}cluster:hook:${slug} post ${path}`;

async function holder(flowId: string): Promise<ClusterNode> {
  const instanceId = await until("placed", async () => {
    const res = await cluster.live()[0]!.request("GET", `/flows/${flowId}`, { token });
    return (res.body.flow?.runtime?.instance_id as string | undefined) ?? undefined;
  });
  return cluster.byInstance(instanceId);
}

async function hookStatus(via: ClusterNode, path: string): Promise<number> {
  return (await via.request("POST", `/hooks/${slug}${path}`, { body: { via: via.name } })).status;
}

beforeAll(async () => {
  cluster = new TestCluster({ basePort: BASE_PORT });
  redis = new Redis(process.env.REDIS_URL!);
  await Promise.all([cluster.start("a", 0), cluster.start("b", 1)]);
  const user = await signUp(node("a").request);
  token = user.accessToken;
  slug = (await node("a").request("GET", "/organizations", { token })).body.organizations[0].slug;
}, 90_000);

afterAll(async () => {
  await redis?.quit();
  await cluster?.dispose();
}, 60_000);

describe("webhook routes across instances", () => {
  it("carry a TTL, follow a redeploy and a hand-over, and are gone once the flow stops", async () => {
    try {
      const created = await node("a").request("POST", "/flows", { token, body: { name: "routes", ...webhookGraph(["/w1"]) } });
      expect(created.status, created.text).toBe(201);
      const flowId = created.body.flow.id as string;
      expect((await node("b").request("POST", `/flows/${flowId}/deploy`, { token })).body.deployment.state).toBe("running");

      expect(await redis.get(routeKey("/w1"))).toBe(flowId);
      const ttl = await redis.pttl(routeKey("/w1"));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(DEFAULT_CLUSTER_TIMINGS.routeTtlMs);
      for (const via of [node("a"), node("b")]) expect(await hookStatus(via, "/w1")).toBe(201);

      // Redeployed without /w1: its route is gone, /w2's is there; both instances agree.
      const saved = await node("a").request("PUT", `/flows/${flowId}`, { token, body: webhookGraph(["/w2"]) });
      expect(saved.status, saved.text).toBe(200);
      expect((await node("a").request("POST", `/flows/${flowId}/deploy`, { token })).body.deployment.state).toBe("running");
      expect(await redis.exists(routeKey("/w1"))).toBe(0);
      expect(await redis.get(routeKey("/w2"))).toBe(flowId);
      for (const via of [node("a"), node("b")]) {
        expect(await hookStatus(via, "/w1")).toBe(404);
        expect(await hookStatus(via, "/w2")).toBe(201);
      }

      // A hand-over (SIGTERM): the next holder publishes the route again, with its TTL.
      const first = await holder(flowId);
      const firstIndex = first.name === "a" ? 0 : 1;
      cluster.signal(first.name, "SIGTERM");
      await first.exited;
      const survivor = cluster.live()[0]!;
      await until("moved", async () => ((await holder(flowId)).name === survivor.name ? true : undefined));
      await until("route published again", async () => ((await redis.get(routeKey("/w2"))) === flowId ? true : undefined));
      expect(await redis.pttl(routeKey("/w2"))).toBeGreaterThan(0);
      await cluster.start(first.name, firstIndex);
      for (const via of [node("a"), node("b")]) expect(await hookStatus(via, "/w2")).toBe(201);

      // Deleted: no route of this organization is left in Redis.
      expect((await node("b").request("DELETE", `/flows/${flowId}`, { token })).status).toBe(204);
      expect(await redis.keys(`${cluster.keyPrefix}cluster:hook:${slug} *`)).toEqual([]);
      for (const via of [node("a"), node("b")]) expect(await hookStatus(via, "/w2")).toBe(404);
    } catch (err) {
      console.error(cluster.logs());
      throw err;
    }
  }, 120_000);
  it("reach an http-in inside a subflow instance through either instance", async () => {
    try {
      const sf = await node("a").request("POST", "/subflows", {
        token,
        body: {
          name: `hook-${tag}`,
          nodes: [
            { id: "in", type: "http-in", config: { method: "post", path: `/sf-${tag}` } },
            { id: "out", type: "http-response", config: { status_code: 202 } },
          ],
          connections: [{ source: "in", target: "out" }],
        },
      });
      expect(sf.status, sf.text).toBe(201);
      const created = await node("a").request("POST", "/flows", {
        token,
        body: { name: "subflow hook", nodes: [{ id: `inst-${tag}`, type: `subflow:${sf.body.subflow.id}`, config: { env: [] } }], connections: [] },
      });
      expect(created.status, created.text).toBe(201);
      const flowId = created.body.flow.id as string;
      expect((await node("b").request("POST", `/flows/${flowId}/deploy`, { token })).body.deployment.state).toBe("running");
      expect(await redis.get(routeKey(`/sf-${tag}`))).toBe(flowId);
      for (const via of [node("a"), node("b")]) expect(await hookStatus(via, `/sf-${tag}`)).toBe(202);
      expect((await node("a").request("DELETE", `/flows/${flowId}`, { token })).status).toBe(204);
    } catch (err) {
      console.error(cluster.logs());
      throw err;
    }
  }, 120_000);
});
