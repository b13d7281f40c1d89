/**
 * Issue 35, persistent sessions with several instances (SPEC §20): two flows using one MQTT broker
 * configuration with clean session off run on one instance (deployed through different instances),
 * so one client id holds the session. After kill -9 of that instance both run on the other, which
 * takes the session over: QoS 1 messages published during the failover arrive (the broker kept
 * them), messages the broker had sent to the killed instance but that it never acknowledged arrive
 * marked duplicate (MQTT's DUP flag, `msg.dup`), and messages published after the failover arrive
 * once.
 *
 * A Mosquitto of the test's own (port 4201), two app processes on 4210-4211, a sink on 4220. The
 * instance is stopped (SIGSTOP) a moment before it is killed, so the broker has sent it messages it
 * never read, let alone acknowledged: the session sends them again, marked duplicate.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import mqtt from "mqtt";
import { signUp } from "@/test/accounts";
import { TestCluster, sleep, until, type ClusterNode } from "@/test/cluster";
import { startMosquitto, type OwnMosquitto } from "@/test/mosquitto";

const MOSQUITTO_PORT = 4201;
const BASE_PORT = 4210;
const SINK_PORT = 4220;

/** An HTTP sink for the flows' http-request nodes: what each received message was. */
class MessageSink {
  readonly received: Array<{ p: string; dup: boolean; topic: string }> = [];
  private server?: http.Server;

  async start(port: number) {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        this.received.push(JSON.parse(Buffer.concat(chunks).toString()) as { p: string; dup: boolean; topic: string });
        res.end("ok");
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, "127.0.0.1", resolve));
  }

  copies(p: string) {
    return this.received.filter((r) => r.p === p);
  }

  async close() {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

let broker: OwnMosquitto;
let cluster: TestCluster;
const sink = new MessageSink();
let token: string;
let publisher: mqtt.MqttClient;
const tag = Math.random().toString(36).slice(2, 8);
const T = `wt_mqttplace/${tag}`;

beforeAll(async () => {
  broker = await startMosquitto(MOSQUITTO_PORT, () => [`listener ${MOSQUITTO_PORT} 127.0.0.1`, "allow_anonymous true", "persistence false", "max_queued_messages 1000"]);
  cluster = new TestCluster({ basePort: BASE_PORT });
  await sink.start(SINK_PORT);
  await Promise.all([cluster.start("a", 0), cluster.start("b", 1)]);
  token = (await signUp(cluster.node("a").request)).accessToken;
  publisher = await mqtt.connectAsync(`mqtt://127.0.0.1:${MOSQUITTO_PORT}`, { clientId: `pub-${tag}` });
}, 120_000);

afterAll(async () => {
  await publisher?.endAsync();
  await sink.close();
  await cluster?.dispose();
  await broker?.stop();
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

/** Publishes probes on `topic` until one comes through the flow (it is subscribed). */
async function subscribed(topic: string): Promise<void> {
  let n = 0;
  await until(
    `a probe through ${topic}`,
    async () => {
      await publisher.publishAsync(`${T}/${topic}`, `probe-${topic}-${++n}`, { qos: 1 });
      await sleep(200);
      return sink.received.some((r) => r.p.startsWith(`probe-${topic}-`)) ? true : undefined;
    },
    20_000,
    0,
  );
}

const publishAll = async (topic: string, payloads: string[]) => {
  for (const p of payloads) await publisher.publishAsync(`${T}/${topic}`, p, { qos: 1 });
};
/** Waits until each of `payloads` reached the sink at least once; says what did arrive if not. */
async function arrived(what: string, payloads: string[], timeoutMs = 15_000): Promise<void> {
  await until(what, async () => (payloads.every((p) => sink.copies(p).length > 0) ? true : undefined), timeoutMs).catch((err: Error) => {
    throw new Error(`${err.message}; missing ${JSON.stringify(payloads.filter((p) => sink.copies(p).length === 0))}; received ${JSON.stringify(sink.received.map((r) => (r.dup ? `${r.p}(dup)` : r.p)))}; logs:\n${cluster.logs()}`);
  });
}

const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

describe("mqtt-in flows on a persistent session, on two instances", () => {
  it("run together; after kill -9 QoS 1 messages of the failover arrive at least once, redeliveries marked dup, later ones once", async () => {
    const a = cluster.node("a");
    const b = cluster.node("b");
    const brokerNode = await a.request("POST", "/config-nodes", {
      token,
      body: { type: "mqtt-broker", name: "persistent", config: { broker: "127.0.0.1", port: MOSQUITTO_PORT, clientid: `fp-${tag}`, cleansession: false } },
    });
    expect(brokerNode.status, brokerNode.text).toBe(201);
    const brokerId = brokerNode.body.config_node.id as string;
    // Two flows on the broker, deployed through different instances: placed together all the same.
    const flowIds: Record<"one" | "two", string> = { one: "", two: "" };
    for (const [topic, via] of [
      ["one", a],
      ["two", b],
    ] as const) {
      const created = await via.request("POST", "/flows", {
        token,
        body: {
          name: `session ${topic}`,
          nodes: [
            { id: `in-${topic}-${tag}`, type: "mqtt-in", config: { broker: brokerId, topic: `${T}/${topic}`, qos: 1, datatype: "utf8" } },
            { id: `fn-${topic}-${tag}`, type: "function", config: { code: "msg.payload = { p: msg.payload, dup: msg.dup === true, topic: msg.topic }; return msg;" } },
            { id: `post-${topic}-${tag}`, type: "http-request", config: { method: "POST", url: `http://127.0.0.1:${SINK_PORT}/mqtt`, timeout_ms: 60_000 } },
          ],
          connections: [
            { source: `in-${topic}-${tag}`, target: `fn-${topic}-${tag}` },
            { source: `fn-${topic}-${tag}`, target: `post-${topic}-${tag}` },
          ],
        },
      });
      expect(created.status, created.text).toBe(201);
      flowIds[topic] = created.body.flow.id as string;
      const deployed = await via.request("POST", `/flows/${flowIds[topic]}/deploy`, { token });
      expect(deployed.body.deployment?.state, deployed.text).toBe("running");
    }
    const holder = await holderOf(flowIds.one);
    expect((await holderOf(flowIds.two)).name).toBe(holder.name);
    await subscribed("one");
    await subscribed("two");

    const before = names("before", 10);
    await publishAll("one", before);
    await arrived("the messages before", before);
    await sleep(500);
    for (const p of before) expect(sink.copies(p), p).toEqual([{ p, dup: false, topic: `${T}/one` }]);

    // Stopped: the broker sends it these (within its in-flight window of 20), it reads none.
    cluster.signal(holder.name, "SIGSTOP");
    const inflight = names("inflight", 10);
    await publishAll("one", inflight);
    await sleep(300);
    expect(inflight.filter((p) => sink.copies(p).length > 0)).toEqual([]);
    cluster.signal(holder.name, "SIGKILL");
    await cluster.node(holder.name).exited;
    // Published while no instance has the session: the broker keeps them for it.
    const during = [...names("during-one", 20), ...names("during-two", 20)];
    await publishAll("one", during.slice(0, 20));
    await publishAll("two", during.slice(20));

    const next = await holderOf(flowIds.one, holder.instanceId);
    expect(next.name).not.toBe(holder.name);
    expect((await holderOf(flowIds.two)).name).toBe(next.name);
    // At least once: everything published before the kill and during the failover.
    await arrived("the in-flight and failover messages", [...inflight, ...during], 30_000);
    // Sent to the killed instance, never acknowledged: sent again by the broker, marked duplicate.
    for (const p of inflight) expect(sink.copies(p), p).toEqual([{ p, dup: true, topic: `${T}/one` }]);
    // A message seen twice is marked duplicate on its second copy, wherever it came from.
    for (const p of [...inflight, ...during]) {
      const copies = sink.copies(p);
      if (copies.length > 1) expect(copies.slice(1).some((copy) => copy.dup), p).toBe(true);
    }

    // After the failover: each once, none marked duplicate.
    await sleep(500);
    const after = [...names("after-one", 15), ...names("after-two", 15)];
    await publishAll("one", after.slice(0, 15));
    await publishAll("two", after.slice(15));
    await arrived("the messages after the failover", after);
    await sleep(1000);
    for (const p of after) expect(sink.copies(p), p).toEqual([{ p, dup: false, topic: `${T}/${p.startsWith("after-one") ? "one" : "two"}` }]);
  });
});
