/**
 * Issue 35 with several instances (SPEC §20): a flow with an mqtt-in node, running on one of two app
 * instances (real processes against PostgreSQL, Redis and the shared Mosquitto), receives each
 * message published once: only the instance running it subscribes for it. After kill -9 of that
 * instance the flow runs on the other, which subscribes, and messages published after the failover
 * arrive, each once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import mqtt from "mqtt";
import { signUp } from "@/test/accounts";
import { Sink, TestCluster, sleep, until, type ClusterNode } from "@/test/cluster";
import { MOSQUITTO_URL } from "@/test/mosquitto";

const BASE_PORT = 4420;
const SINK_PORT = 4430;

let cluster: TestCluster;
const sink = new Sink();
let token: string;
let publisher: mqtt.MqttClient;
const tag = Math.random().toString(36).slice(2, 8);
const T = `wt_mqtt/cluster/${tag}`;

beforeAll(async () => {
  cluster = new TestCluster({ basePort: BASE_PORT });
  await sink.start(SINK_PORT);
  await Promise.all([cluster.start("a", 0), cluster.start("b", 1)]);
  token = (await signUp(cluster.node("a").request)).accessToken;
  publisher = await mqtt.connectAsync(MOSQUITTO_URL);
}, 120_000);

afterAll(async () => {
  await publisher?.endAsync();
  await sink.close();
  await cluster?.dispose();
});

async function holderOf(flowId: string, notOn?: string): Promise<ClusterNode> {
  const instance = await until(
    `${flowId} placed`,
    async () => {
      const live = cluster.live()[0]!;
      const id = (await live.request("GET", `/flows/${flowId}`, { token })).body.flow.runtime?.instance_id as string | undefined;
      return id && id !== notOn ? id : undefined;
    },
    20_000,
    100,
  );
  return cluster.byInstance(instance);
}

/** Publishes probes until one reaches the sink (the holder is subscribed); returns their count. */
async function subscribedAgain(): Promise<void> {
  let n = 0;
  await until(
    "a probe through the flow",
    async () => {
      await publisher.publishAsync(`${T}/in`, `probe-${++n}`, { qos: 1 });
      await sleep(200);
      return sink.bodies("mqtt").some((b) => b.startsWith("probe-")) ? true : undefined;
    },
    20_000,
    0,
  );
}

describe("an mqtt-in flow on two instances", () => {
  it("receives each message once, and after kill -9 of its instance the messages published after the failover arrive once", async () => {
    const a = cluster.node("a");
    const brokerNode = await a.request("POST", "/config-nodes", { token, body: { type: "mqtt-broker", name: "shared mosquitto", config: { broker: "127.0.0.1", port: 1883, clientid: `fp-${tag}` } } });
    expect(brokerNode.status, brokerNode.text).toBe(201);
    const created = await a.request("POST", "/flows", {
      token,
      body: {
        name: "mqtt to sink",
        nodes: [
          { id: `in-${tag}`, type: "mqtt-in", config: { broker: brokerNode.body.config_node.id, topic: `${T}/in`, qos: 1, datatype: "utf8" } },
          { id: `post-${tag}`, type: "http-request", config: { method: "POST", url: `http://127.0.0.1:${SINK_PORT}/mqtt`, timeout_ms: 5_000 } },
        ],
        connections: [{ source: `in-${tag}`, target: `post-${tag}` }],
      },
    });
    expect(created.status, created.text).toBe(201);
    const flowId = created.body.flow.id as string;
    const deployed = await a.request("POST", `/flows/${flowId}/deploy`, { token });
    expect(deployed.body.deployment?.state, deployed.text).toBe("running");
    const holder = await holderOf(flowId);
    await subscribedAgain();

    const before = Array.from({ length: 30 }, (_, i) => `before-${i}`);
    for (const p of before) await publisher.publishAsync(`${T}/in`, p, { qos: 1 });
    await until("30 messages at the sink", async () => (before.every((p) => sink.bodies("mqtt").includes(p)) ? true : undefined), 15_000);
    await sleep(1000);
    // Once each: the other instance does not subscribe for a flow it does not run.
    for (const p of before) expect(sink.bodies("mqtt").filter((b) => b === p), p).toHaveLength(1);

    cluster.signal(holder.name, "SIGKILL");
    await cluster.node(holder.name).exited;
    const next = await holderOf(flowId, holder.instanceId);
    expect(next.name).not.toBe(holder.name);
    sink.received.length = 0;
    await subscribedAgain();

    const after = Array.from({ length: 30 }, (_, i) => `after-${i}`);
    for (const p of after) await publisher.publishAsync(`${T}/in`, p, { qos: 1 });
    await until("30 messages after the failover", async () => (after.every((p) => sink.bodies("mqtt").includes(p)) ? true : undefined), 15_000);
    await sleep(1000);
    for (const p of after) expect(sink.bodies("mqtt").filter((b) => b === p), p).toHaveLength(1);
  });
});
