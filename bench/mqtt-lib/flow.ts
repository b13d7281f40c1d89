/**
 * Benchmark 12's flow, as Node-RED flows.json nodes: mqtt in (prefix/in) → change (msg.topic set to
 * prefix/out) → mqtt out, through one broker. Both sides run these same nodes (ours map them with
 * the import's fromNodeRed).
 */
export function benchMqttFlow(prefix: string, qos: 0 | 1, brokerUrl: URL) {
  return [
    { id: "bench_tab", type: "tab", label: "mqtt bench" },
    { id: "bench_broker", type: "mqtt-broker", name: "", broker: brokerUrl.hostname, port: Number(brokerUrl.port || 1883), clientid: "", autoConnect: true, usetls: false, protocolVersion: 4, keepalive: 60, cleansession: true, autoUnsubscribe: true, birthTopic: "", closeTopic: "", willTopic: "" },
    { id: "bench_in", type: "mqtt in", z: "bench_tab", name: "", topic: `${prefix}/in`, qos: String(qos), datatype: "utf8", broker: "bench_broker", nl: false, rap: true, rh: 0, inputs: 0, x: 100, y: 100, wires: [["bench_change"]] },
    { id: "bench_change", type: "change", z: "bench_tab", name: "", rules: [{ t: "set", p: "topic", pt: "msg", to: `${prefix}/out`, tot: "str" }], x: 300, y: 100, wires: [["bench_out"]] },
    { id: "bench_out", type: "mqtt out", z: "bench_tab", name: "", topic: "", qos: String(qos), retain: "", respTopic: "", contentType: "", userProps: "", correl: "", expiry: "", broker: "bench_broker", x: 500, y: 100, wires: [] },
  ];
}
