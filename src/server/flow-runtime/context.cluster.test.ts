/**
 * Issue 23: durable context on two instances over PostgreSQL and Redis (SPEC §13). A webhook
 * counter (`flow.increment`) keeps counting through a redeploy, a graceful hand-over (SIGTERM) and a
 * kill -9 failover, including a write answered just before the kill; `global.increment` from 100
 * concurrent webhook calls into two flows on different instances ends with the exact count, each
 * call getting its own number. Values set over REST on one instance reach the code running on the
 * other (flow context: the holder; global context: every instance).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp } from "@/test/accounts";
import { TestCluster, until, type ClusterNode } from "@/test/cluster";

const BASE_PORT = 3900;

let cluster: TestCluster;
let token: string;
let slug: string;
const tag = Math.random().toString(36).slice(2, 8);

const anyLive = () => cluster.live()[0]!;
const flowIds: string[] = [];

async function createFlow(name: string, path: string, code: string): Promise<string> {
  const via = anyLive();
  const created = await via.request("POST", "/flows", {
    token,
    body: {
      name,
      nodes: [
        { id: `${name}-in-${tag}`, type: "http-in", config: { method: "get", path: `/${path}` } },
        { id: `${name}-fn-${tag}`, type: "function", config: { code } },
        { id: `${name}-out-${tag}`, type: "http-response" },
      ],
      connections: [
        { source: `${name}-in-${tag}`, target: `${name}-fn-${tag}` },
        { source: `${name}-fn-${tag}`, target: `${name}-out-${tag}` },
      ],
    },
  });
  expect(created.status, created.text).toBe(201);
  const id = created.body.flow.id as string;
  flowIds.push(id);
  const deployed = await via.request("POST", `/flows/${id}/deploy`, { token });
  expect(deployed.status, deployed.text).toBe(200);
  return id;
}

async function holderOf(flowId: string, notOn?: string): Promise<ClusterNode> {
  const runtime = await until(
    `flow ${flowId} placed${notOn ? ` away from ${notOn}` : ""}`,
    async () => {
      const res = await anyLive().request("GET", `/flows/${flowId}`, { token });
      const r = res.body.flow?.runtime as { instance_id: string } | null;
      return r && r.instance_id !== notOn ? r : undefined;
    },
    20_000,
    50,
  );
  return cluster.byInstance(runtime.instance_id);
}

/** Calls the webhook through `via` until the flow answers 200 (it may be moving); its body. */
async function hook(via: () => ClusterNode, path: string, timeoutMs = 20_000): Promise<string> {
  return until(
    `GET /hooks/${slug}/${path}`,
    async () => {
      const res = await via().request("GET", `/hooks/${slug}/${path}`);
      return res.status === 200 ? res.text : undefined;
    },
    timeoutMs,
    50,
  );
}

beforeAll(async () => {
  cluster = new TestCluster({ basePort: BASE_PORT });
  await Promise.all([cluster.start("a", 0), cluster.start("b", 1)]);
  const user = await signUp(cluster.node("a").request);
  token = user.accessToken;
  slug = (await cluster.node("a").request("GET", "/organizations", { token })).body.organizations[0].slug;
}, 120_000);

afterAll(async () => {
  await cluster?.dispose();
}, 60_000);

describe("durable context on two instances", () => {
  it("a flow.increment counter keeps counting through redeploy, SIGTERM hand-over and kill -9 failover", async () => {
    try {
      const flowId = await createFlow("counter", "count", "msg.payload = String(flow.increment('count')); return msg;");
      const seen: string[] = [];
      for (const via of ["a", "b", "a"]) seen.push(await hook(() => cluster.node(via), "count"));
      expect(seen).toEqual(["1", "2", "3"]);

      // Redeploy: the new version loads what the old one stored.
      const redeploy = await anyLive().request("POST", `/flows/${flowId}/deploy`, { token });
      expect(redeploy.status, redeploy.text).toBe(200);
      expect(await hook(anyLive, "count")).toBe("4");

      // Graceful hand-over: the holder stops (storing what it has) and the other takes the flow.
      const first = await holderOf(flowId);
      const other = first.name === "a" ? "b" : "a";
      cluster.signal(first.name, "SIGTERM");
      await first.exited;
      await holderOf(flowId, first.instanceId);
      expect(await hook(() => cluster.node(other), "count")).toBe("5");
      await cluster.start(first.name, first.name === "a" ? 0 : 1);

      // kill -9 right after an answer: that answer's write is stored, so the next holder goes on from it.
      const holder = await holderOf(flowId);
      expect(await hook(() => holder, "count")).toBe("6");
      cluster.signal(holder.name, "SIGKILL");
      await holder.exited;
      const survivor = holder.name === "a" ? "b" : "a";
      await holderOf(flowId, holder.instanceId);
      expect(await hook(() => cluster.node(survivor), "count")).toBe("7");
      const context = await cluster.node(survivor).request("GET", `/flows/${flowId}/context`, { token });
      expect(context.body).toEqual({ context: { count: 7 } });
      const restarted = await cluster.start(holder.name, holder.name === "a" ? 0 : 1);

      // A value set over REST on the instance that does not run the flow reaches the one that does.
      expect((await holderOf(flowId)).name).toBe(survivor);
      const put = await restarted.request("PUT", `/flows/${flowId}/context/count`, { token, body: { value: 100 } });
      expect(put.status, put.text).toBe(200);
      expect(await hook(() => cluster.node(survivor), "count")).toBe("101");
    } catch (err) {
      console.error(cluster.logs());
      throw err;
    }
  }, 180_000);

  it("100 concurrent webhook calls doing global.increment, on two instances, end with the exact count", async () => {
    try {
      // Only the two flows of this test, so the fair share puts one on each instance.
      for (const id of flowIds.splice(0)) expect((await anyLive().request("DELETE", `/flows/${id}`, { token })).status).toBe(204);
      const one = await createFlow("hits1", "hit1", "msg.payload = msg.req.query.read ? global.get('motto') : String(global.increment('hits')); return msg;");
      const two = await createFlow("hits2", "hit2", "msg.payload = msg.req.query.read ? global.get('motto') : String(global.increment('hits')); return msg;");
      // Both instances run one of them (fair share), so the additions really race in the database.
      await until(
        "the two flows on different instances",
        async () => {
          const [h1, h2] = await Promise.all([holderOf(one), holderOf(two)]);
          return h1.instanceId !== h2.instanceId ? true : undefined;
        },
        30_000,
        200,
      );
      await hook(anyLive, "hit1");
      await hook(anyLive, "hit2");
      const nodes = cluster.live();
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) => nodes[i % nodes.length]!.request("GET", `/hooks/${slug}/${i % 2 === 0 ? "hit1" : "hit2"}`)),
      );
      expect(answers.map((r) => r.status)).toEqual(Array.from({ length: 100 }, () => 200));
      const numbers = answers.map((r) => Number(r.text)).sort((x, y) => x - y);
      expect(numbers).toEqual(Array.from({ length: 100 }, (_, i) => i + 3));
      const global = await anyLive().request("GET", "/context/global", { token });
      expect(global.body).toEqual({ context: { hits: 102 } });

      // A global value set over REST while both flows run reaches the code on both instances.
      const put = await cluster.live()[1]!.request("PUT", "/context/global/motto", { token, body: { value: "shared" } });
      expect(put.status, put.text).toBe(200);
      for (const path of ["hit1", "hit2"]) {
        await until(`${path} reads the new global value`, async () => ((await anyLive().request("GET", `/hooks/${slug}/${path}?read=1`)).text === "shared" ? true : undefined), 5_000, 50);
      }
    } catch (err) {
      console.error(cluster.logs());
      throw err;
    }
  }, 180_000);
});
