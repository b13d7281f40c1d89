/**
 * Benchmark 12, our side, in a process of its own: the flow of flow.ts in the real engine
 * (loadTestFlow, the import's mapping of each node), against the broker. Usage:
 * ours-child.ts <prefix> <qos> <broker url>; says {type: "ready"} over IPC once connected, and
 * answers {type: "cpu"} with its CPU time so far.
 */
import { loadTestFlow } from "@/test/runtime-harness";
import { createOutboundRules } from "@/server/runtime/outbound";
import { createNodeRegistry } from "@/server/nodes/registry";
import { benchMqttFlow } from "./flow";

const [prefix = "wt_mqtt/bench", qosText = "0", url = "mqtt://127.0.0.1:1883"] = process.argv.slice(2);
const registry = createNodeRegistry();
const nodes = benchMqttFlow(prefix, Number(qosText) as 0 | 1, new URL(url));
const byType = (nrType: string) => registry.all().find((d) => d.nodeRed?.type === nrType)!;
const ours = (n: Record<string, unknown>) => {
  const definition = byType(String(n.type));
  return { id: String(n.id), type: definition.type, config: definition.nodeRed!.fromNodeRed(n) };
};
const broker = ours(nodes[1]!);
const flow = await loadTestFlow(
  nodes.slice(2).map(ours),
  [
    { source: "bench_in", target: "bench_change" },
    { source: "bench_change", target: "bench_out" },
  ],
  { outbound: createOutboundRules({ allowPrivate: true }), instanceId: "bench" },
  {},
  { configNodes: { bench_broker: { id: "bench_broker", type: "mqtt-broker", name: "", config: broker.config, revision: 1, sealed_credentials: {} } } },
);
const deadline = Date.now() + 10_000;
const connected = (id: string) => flow.statuses.some((s) => s.nodeId === id && s.status?.text === "connected");
while (!(connected("bench_in") && connected("bench_out"))) {
  if (Date.now() > deadline) throw new Error(`not connected: ${JSON.stringify(flow.errors)}`);
  await new Promise((r) => setTimeout(r, 20));
}
await new Promise((r) => setTimeout(r, 200));
process.send?.({ type: "ready" });
process.on("message", async (m: { type?: string }) => {
  // The process's CPU time so far (profile.ts: CPU per message, steadier than msg/s on a shared machine).
  if (m?.type === "cpu") return void process.send?.({ type: "cpu", usage: process.cpuUsage() });
  if (m?.type !== "stop") return;
  await flow.close();
  process.exit(0);
});
