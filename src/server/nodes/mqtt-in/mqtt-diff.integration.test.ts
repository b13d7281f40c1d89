import { existsSync, readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import mqtt from "mqtt";
import { closingTestFlows } from "@/test/runtime-harness";
import { createOutboundRules } from "@/server/runtime/outbound";
import type { ConfigNodeSnapshot } from "@/shared/config-nodes";
import { mqttBrokerNode } from "../mqtt-broker/definition";
import { mqttInNode } from "./definition";
import { mqttOutNode } from "../mqtt-out/definition";
import { materialize, mqttCases, normalize, recordedPath, type MqttArrival, type MqttCase, type MqttRecorded } from "./diff/cases";
import { MOSQUITTO_URL } from "@/test/mosquitto";

/**
 * The MQTT differential cases (diff/cases.json) through our engine against the shared Mosquitto,
 * compared message for message with Node-RED 5.0's answers to the same flows against the same broker
 * (diff/cases.recorded.json, recorded by scripts/mqtt-diff/record.mjs), so no Node-RED runs here.
 */

const loadTestFlow = closingTestFlows();
const run = `wt_mqtt/diff/${process.pid}-${Date.now().toString(36)}`;
const recorded = existsSync(recordedPath) ? (JSON.parse(readFileSync(recordedPath, "utf8")) as MqttRecorded) : undefined;

const snapshot = (id: string, props: Record<string, unknown>): ConfigNodeSnapshot => ({
  id,
  type: "mqtt-broker",
  name: "",
  config: mqttBrokerNode.nodeRed!.fromNodeRed({ broker: "127.0.0.1", port: 1883, ...props }),
  revision: 1,
  sealed_credentials: {},
});

const retainedTopics = new Set<string>();
afterAll(async () => {
  // Retained messages a case left on the shared broker are cleared.
  if (retainedTopics.size === 0) return;
  const client = await mqtt.connectAsync(MOSQUITTO_URL);
  for (const t of retainedTopics) await client.publishAsync(t, "", { retain: true, qos: 1 });
  await client.endAsync();
});

export async function runOurs(c: MqttCase, prefix: string): Promise<MqttArrival[]> {
  const m = (v: unknown) => materialize(v, prefix) as Record<string, unknown>;
  const configNodes: Record<string, ConfigNodeSnapshot> = { b1: snapshot("b1", m(c.broker ?? {})) };
  if (c.brokers2) configNodes.b2 = snapshot("b2", m(c.brokers2));
  const flow = await loadTestFlow(
    [
      { id: "in", type: "mqtt-in", config: mqttInNode.nodeRed!.fromNodeRed({ broker: "b1", ...m(c.in) }) },
      { id: "out", type: "mqtt-out", config: mqttOutNode.nodeRed!.fromNodeRed({ broker: c.outBroker ?? "b1", ...m(c.out ?? {}) }) },
      { id: "catch", type: "catch", config: { scope: null } },
      { id: "in_sink", type: "sink" },
      { id: "catch_sink", type: "sink" },
    ],
    [
      { source: "in", target: "in_sink" },
      { source: "catch", target: "catch_sink" },
    ],
    { outbound: createOutboundRules({ allowPrivate: true }) },
    {},
    { configNodes },
  );
  const connected = () => flow.statuses.filter((s) => s.status?.text === "connected").map((s) => s.nodeId);
  await expect.poll(() => connected().includes("in") && connected().includes("out"), { timeout: 5000 }).toBe(true);
  await new Promise((r) => setTimeout(r, 150));
  for (const step of c.steps) {
    const msg = m(step.msg);
    if (step.to === "out" && msg.retain === true && typeof msg.topic === "string") retainedTopics.add(msg.topic);
    flow.send(step.to, msg);
    await new Promise((r) => setTimeout(r, step.waitMs ?? 150));
  }
  await new Promise((r) => setTimeout(r, 400));
  return flow.arrivals.map((a) => ({ collector: a.sink === "in_sink" ? "in" : "catch", msg: a.msg }) as MqttArrival);
}

describe("mqtt-in and mqtt-out: the same flows as Node-RED 5.0 against the same Mosquitto", () => {
  it("has Node-RED's answers recorded for every case", () => {
    expect(recorded, "run scripts/mqtt-diff/record.mjs").toBeDefined();
    expect(Object.keys(recorded!.cases).sort()).toEqual(mqttCases.map((c) => c.name).sort());
  });
  mqttCases.forEach((c, i) => {
    it(c.name, async () => {
      const prefix = `${run}/${i}`;
      const ours = normalize(await runOurs(c, prefix), prefix);
      expect(ours).toEqual(recorded!.cases[c.name]!.arrivals);
    });
  });
});
