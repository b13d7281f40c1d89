/**
 * Issue 26: an instance whose Redis connections take 1.5 s to establish (longer than a cluster
 * tick) used to subscribe its request channel twice — start() and the first tick both joined the
 * bus while the first subscription was still pending — so every request forwarded to it ran twice:
 * each inject sent through the other instance reached the flow twice. Here the flow runs on such a
 * slow instance and every inject must reach it once, whichever instance it is sent through.
 *
 * Real processes against the machine's PostgreSQL and Redis (the `cluster` vitest project).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp } from "@/test/accounts";
import { Sink, TestCluster, sleep, until, type ClusterNode } from "@/test/cluster";
import { TcpProxy } from "@/test/tcp-proxy";

const BASE_PORT = 3720;
const SINK_PORT = 3791;
const PROXY_PORT = 3792;
/** Longer than a tick (1 s), shorter than the store's connect deadline (2.5 s). */
const REDIS_CONNECT_DELAY_MS = 1_500;

let cluster: TestCluster;
const sink = new Sink();
let proxy: TcpProxy;
let token: string;
let flowId: string;
let slow: ClusterNode;
let fast: ClusterNode;
const tag = Math.random().toString(36).slice(2, 8);
const injectId = `inject-${tag}`;

beforeAll(async () => {
  const redisUrl = new URL(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  proxy = new TcpProxy({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) }, { connectDelayMs: REDIS_CONNECT_DELAY_MS });
  await proxy.start(PROXY_PORT);
  await sink.start(SINK_PORT);
  cluster = new TestCluster({ basePort: BASE_PORT });
  const slowRedis = new URL(redisUrl);
  slowRedis.hostname = "127.0.0.1";
  slowRedis.port = String(PROXY_PORT);
  // The slow instance starts alone, so the flow is placed on it.
  slow = await cluster.start("slow", 0, undefined, { REDIS_URL: slowRedis.toString() });
  const user = await signUp(slow.request);
  token = user.accessToken;
  const created = await slow.request("POST", "/flows", {
    token,
    body: {
      name: "slow start",
      nodes: [
        { id: injectId, type: "inject", config: { payload_type: "string", payload: "default" } },
        { id: `post-${tag}`, type: "http-request", config: { method: "POST", url: `http://127.0.0.1:${SINK_PORT}/arrivals`, timeout_ms: 5_000 } },
      ],
      connections: [{ source: injectId, target: `post-${tag}` }],
    },
  });
  expect(created.status, created.text).toBe(201);
  flowId = created.body.flow.id;
  const deployed = await slow.request("POST", `/flows/${flowId}/deploy`, { token });
  expect(deployed.status, deployed.text).toBe(200);
  fast = await cluster.start("fast", 1);
}, 120_000);

afterAll(async () => {
  await sink.close();
  await cluster?.dispose();
  await proxy?.stop();
}, 60_000);

const inject = (via: ClusterNode, payload: string) => via.request("POST", `/nodes/${injectId}/inject`, { token, body: { payload } });

describe("an instance whose Redis is slow to connect at start-up", () => {
  it("runs each inject once, whichever instance it is sent through", async () => {
    try {
      const runtime = (await fast.request("GET", `/flows/${flowId}`, { token })).body.flow.runtime;
      expect(runtime?.instance_id).toBe(slow.instanceId);
      const payloads: string[] = [];
      for (let i = 0; i < 10; i++) {
        const payload = `via-fast-${i}`;
        payloads.push(payload);
        const res = await inject(fast, payload);
        expect(res.status, res.text).toBe(200);
      }
      for (let i = 0; i < 5; i++) {
        const payload = `via-slow-${i}`;
        payloads.push(payload);
        const res = await inject(slow, payload);
        expect(res.status, res.text).toBe(200);
      }
      await until("every inject delivered", async () => (sink.bodies("arrivals").length >= payloads.length ? true : undefined));
      // Time for a second copy to arrive, if one were coming.
      await sleep(1_000);
      const arrivals = sink.bodies("arrivals");
      for (const p of payloads) expect(arrivals.filter((b) => b === p), `arrivals of ${p}`).toHaveLength(1);
      expect(arrivals).toHaveLength(payloads.length);
    } catch (err) {
      console.error(cluster.logs());
      throw err;
    }
  }, 60_000);
});
