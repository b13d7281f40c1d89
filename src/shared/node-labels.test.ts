/**
 * Unnamed nodes' labels, from Node-RED nodes as flows.json holds them, imported through our mapping:
 * each expected label is what Node-RED 5's editor writes for that node (its `label` functions in
 * @node-red/nodes/core/*.html, FlowFuse's project-link.html, node-red-node-ping's 88-ping.html).
 */
import { describe, expect, it } from "vitest";
import { createNodeRegistry } from "@/server/nodes/registry";
import { nodeLabel } from "./node-labels";

const registry = createNodeRegistry();

/** Our type and configuration for a Node-RED node, as the import makes them. */
function imported(nr: { type: string } & Record<string, unknown>): { type: string; config: Record<string, unknown> } {
  const { type: nrType, ...props } = nr;
  const definition = registry.list().find((d) => d.nodeRed?.type === nrType);
  if (!definition?.nodeRed) throw new Error(`no type maps ${nrType}`);
  return { type: definition.type, config: definition.configSchema.parse(definition.nodeRed.fromNodeRed(props)) as Record<string, unknown> };
}

const cases: Array<[string, { type: string } & Record<string, unknown>, string]> = [
  ["inject: a timestamp", { type: "inject", props: [{ p: "payload" }, { p: "topic", vt: "str" }], repeat: "", crontab: "", once: false, topic: "", payload: "", payloadType: "date" }, "timestamp"],
  ["inject: repeating, with a topic", { type: "inject", props: [{ p: "payload" }, { p: "topic", vt: "str" }], repeat: "5", crontab: "", once: false, topic: "tick", payload: "", payloadType: "date" }, "tick:timestamp ↻"],
  ["inject: once, a short string with its topic", { type: "inject", props: [{ p: "payload" }, { p: "topic", vt: "str" }], repeat: "", crontab: "", once: true, topic: "t", payload: "on", payloadType: "str" }, "t:on ¹"],
  ["inject: a number", { type: "inject", props: [{ p: "payload" }], repeat: "", crontab: "", once: false, payload: "42", payloadType: "num" }, "42"],
  ["inject: a long JSON", { type: "inject", props: [{ p: "payload" }], repeat: "", crontab: "*/5 * * * *", once: false, payload: '{"a":"0123456789012345678901234"}', payloadType: "json" }, "inject ↻"],
  ["inject: flow context", { type: "inject", props: [{ p: "payload" }], repeat: "", crontab: "", once: false, payload: "#:(file)::count", payloadType: "flow" }, "flow.count"],
  ["debug: msg.payload", { type: "debug", active: true, tosidebar: true, console: false, complete: "false", targetType: "msg" }, "msg.payload"],
  ["debug: the complete message, to the console too", { type: "debug", active: true, tosidebar: true, console: true, complete: "true", targetType: "full" }, "msg ⇲"],
  ["debug: a property", { type: "debug", active: true, tosidebar: true, console: false, complete: "payload.temp", targetType: "msg" }, "msg.payload.temp"],
  ["change: one set", { type: "change", rules: [{ t: "set", p: "payload", pt: "msg", to: "x", tot: "str" }] }, "set msg.payload"],
  ["change: one move of flow context", { type: "change", rules: [{ t: "move", p: "#:(file)::a", pt: "flow", to: "b", tot: "msg" }] }, "move flow.a"],
  ["change: two rules", { type: "change", rules: [{ t: "set", p: "a", pt: "msg", to: "1", tot: "num" }, { t: "delete", p: "b", pt: "msg" }] }, "change: 2 rules"],
  ["delay: 5 seconds", { type: "delay", pauseType: "delay", timeout: "5", timeoutUnits: "seconds", rate: "1", nbRateUnits: "1", rateUnits: "second", randomFirst: "1", randomLast: "5", randomUnits: "seconds", drop: false }, "delay 5s"],
  ["delay: 250 ms", { type: "delay", pauseType: "delay", timeout: "250", timeoutUnits: "milliseconds", rate: "1", nbRateUnits: "1", rateUnits: "second", randomFirst: "1", randomLast: "5", randomUnits: "seconds", drop: false }, "delay 250ms"],
  ["delay: 2 minutes", { type: "delay", pauseType: "delay", timeout: "2", timeoutUnits: "minutes", rate: "1", nbRateUnits: "1", rateUnits: "second", randomFirst: "1", randomLast: "5", randomUnits: "seconds", drop: false }, "delay 2m"],
  ["delay: rate limit", { type: "delay", pauseType: "rate", timeout: "5", timeoutUnits: "seconds", rate: "3", nbRateUnits: "1", rateUnits: "minute", randomFirst: "1", randomLast: "5", randomUnits: "seconds", drop: false }, "limit 3 msg/m"],
  ["delay: rate limit per 10 s", { type: "delay", pauseType: "rate", timeout: "5", timeoutUnits: "seconds", rate: "1", nbRateUnits: "10", rateUnits: "second", randomFirst: "1", randomLast: "5", randomUnits: "seconds", drop: false }, "limit 1 msg/10s"],
  ["delay: random", { type: "delay", pauseType: "random", timeout: "5", timeoutUnits: "seconds", rate: "1", nbRateUnits: "1", rateUnits: "second", randomFirst: "1", randomLast: "5", randomUnits: "seconds", drop: false }, "random"],
  ["trigger: 250 ms", { type: "trigger", op1: "1", op2: "0", op1type: "str", op2type: "str", duration: "250", extend: false, units: "ms", reset: "", bytopic: "all", topic: "topic", outputs: 1 }, "trigger 250ms"],
  ["trigger: block", { type: "trigger", op1: "1", op2: "0", op1type: "str", op2type: "nul", duration: "0", extend: false, units: "ms", reset: "", bytopic: "all", topic: "topic", outputs: 1 }, "trigger & block"],
  ["trigger: resend", { type: "trigger", op1: "1", op2: "0", op1type: "str", op2type: "str", duration: "-5", extend: false, units: "s", reset: "", bytopic: "all", topic: "topic", outputs: 1 }, "resend every 5s"],
  ["http in", { type: "http in", url: "/hello", method: "get", upload: false, swaggerDoc: "" }, "[get] /hello"],
  ["http in without a leading /", { type: "http in", url: "api/x", method: "post", upload: false, swaggerDoc: "" }, "[post] /api/x"],
  ["http response", { type: "http response", statusCode: "", headers: {} }, "http"],
  ["http response with its code", { type: "http response", statusCode: "404", headers: {} }, "http (404)"],
  ["http request", { type: "http request", method: "GET", ret: "txt", paytoqs: "ignore", url: "https://example.com", tls: "", persist: false, proxy: "", authType: "" }, "http request"],
  ["mqtt in", { type: "mqtt in", topic: "sensors/+/temp", qos: "2", datatype: "auto-detect", broker: "", nl: false, rap: true, rh: 0, inputs: 0 }, "sensors/+/temp"],
  ["mqtt out without a topic", { type: "mqtt out", topic: "", qos: "", retain: "", broker: "" }, "mqtt"],
  ["link call, dynamic", { type: "link call", links: [], linkType: "dynamic", timeout: "30" }, "Dynamic"],
  ["catch: all", { type: "catch", scope: null, uncaught: false }, "catch: all"],
  ["catch: uncaught", { type: "catch", scope: null, uncaught: true }, "catch: uncaught"],
  ["catch: two nodes", { type: "catch", scope: ["a1", "a2"], uncaught: false }, "catch: 2"],
  ["status: all", { type: "status", scope: null }, "status: all"],
  ["complete: one node", { type: "complete", scope: ["a1"], uncaught: false }, "complete: 1"],
  ["write file", { type: "file", filename: "/data/log.txt", filenameType: "str", appendNewline: true, createDir: false, overwriteFile: "false", encoding: "none" }, "/data/log.txt"],
  ["write file, from msg", { type: "file", filename: "filename", filenameType: "msg", appendNewline: true, createDir: false, overwriteFile: "false", encoding: "none" }, "write file"],
  ["delete file", { type: "file", filename: "old.txt", filenameType: "str", appendNewline: true, createDir: false, overwriteFile: "delete", encoding: "none" }, "delete old.txt"],
  ["read file from env", { type: "file in", filename: "LOG", filenameType: "env", format: "utf8", chunk: false, sendError: false, encoding: "none", allProps: false }, "env.LOG"],
  ["project link in", { type: "project link in", project: "all", broadcast: true, topic: "plant/a12" }, "plant/a12"],
  ["project link out, return", { type: "project link out", mode: "return", broadcast: false, project: "", topic: "" }, "link return"],
  ["project link call", { type: "project link call", project: "flows", topic: "lookup/price", timeout: "30" }, "lookup/price"],
  ["inject: a topic that is not a string is not the label's", { type: "inject", props: [{ p: "payload", v: "42", vt: "num" }, { p: "topic", v: "SITE", vt: "env" }], repeat: "", crontab: "", once: false }, "42"],
  ["mqtt in with a dynamic subscription", { type: "mqtt in", topic: "left/over", qos: "2", datatype: "auto-detect", broker: "", nl: false, rap: true, rh: 0, inputs: 1 }, "mqtt"],
  ["link out, return", { type: "link out", mode: "return", links: [] }, "link return"],
  ["link out", { type: "link out", mode: "link", links: [] }, "link out"],
  ["trigger: 2 minutes", { type: "trigger", op1: "1", op2: "0", op1type: "str", op2type: "str", duration: "2", extend: false, units: "min", reset: "", bytopic: "all", topic: "topic", outputs: 1 }, "trigger 2min"],
  ["range", { type: "range", minin: "0", maxin: "1023", minout: "0", maxout: "100", action: "scale", round: false, property: "payload" }, "0 - 100"],
  ["tcp in connecting out", { type: "tcp in", server: "client", host: "10.0.0.5", port: "4001", datamode: "stream", datatype: "utf8" }, "tcp:10.0.0.5:4001"],
  ["tcp out as a client", { type: "tcp out", beserver: "client", host: "plc.example.com", port: "502" }, "tcp:plc.example.com:502"],
  ["tcp request to msg.host", { type: "tcp request", server: "", port: "", out: "time", splitc: "0" }, "tcp:"],
  ["tcp request to a server", { type: "tcp request", server: "example.com", port: "7", out: "time", splitc: "0" }, "tcp:example.com:7"],
  ["udp out", { type: "udp out", addr: "example.com", iface: "", port: "9", ipv: "udp4", outport: "", base64: false, multicast: "false" }, "udp example.com:9"],
  ["ping one host", { type: "ping", protocol: "Automatic", mode: "timed", host: "flowfuse.com", timer: "5", inputs: 0 }, "flowfuse.com"],
  ["ping a list", { type: "ping", protocol: "Automatic", mode: "timed", host: "a.com, b.com", timer: "5", inputs: 0 }, "ping"],
  // node-red-contrib-influxdb names the server too ("[v2.0] cloud climate"): its measurement here.
  ["influxdb out", { type: "influxdb out", influxdb: "", measurement: "climate" }, "influxdb climate"],
  ["influxdb out, measurement from the message", { type: "influxdb out", influxdb: "", measurement: "" }, "influxdb"],
  ["influxdb batch", { type: "influxdb batch", influxdb: "" }, "influxdb batch"],
  ["influxdb in", { type: "influxdb in", influxdb: "", query: "SELECT 1" }, "influxdb"],
];

describe("an unnamed node's label is Node-RED's", () => {
  it.each(cases)("%s", (_what, nr, label) => {
    expect(nodeLabel({ ...imported(nr), name: "" })).toBe(label);
  });

  it("a name wins (with inject's and debug's marks, as Node-RED keeps them), and a type without a label function shows its type", () => {
    expect(nodeLabel({ type: "inject", name: "Start", config: {} })).toBe("Start");
    expect(nodeLabel({ ...imported({ type: "inject", props: [{ p: "payload" }], repeat: "5", crontab: "", once: false, payload: "", payloadType: "date" }), name: "Tick" })).toBe("Tick ↻");
    expect(nodeLabel({ ...imported({ type: "debug", active: true, tosidebar: true, console: true, complete: "false", targetType: "msg" }), name: "Log" })).toBe("Log ⇲");
    expect(nodeLabel({ type: "change", name: "", config: { rules: [null] } })).toBe("change");
    expect(nodeLabel({ type: "inject", name: "", config: { props: [null] } })).toBe("inject");
    expect(nodeLabel({ type: "__proto__", name: "", config: {} })).toBe("__proto__");
    expect(nodeLabel({ type: "switch", name: "", config: {} })).toBe("switch");
    expect(nodeLabel({ type: "debug", config: null })).toBe("msg.payload");
  });

  it("Dashboard 2.0 widgets show their label (not a {{template}}), else a word for the type, as its editor does", () => {
    expect(nodeLabel({ type: "ui-button", name: "", config: { label: "Press me" } })).toBe("Press me");
    expect(nodeLabel({ type: "ui-button", name: "", config: { label: "{{msg.payload}}" } })).toBe("button");
    expect(nodeLabel({ type: "ui-text", name: "", config: { label: "" } })).toBe("text");
    expect(nodeLabel({ type: "ui-text-input", name: "", config: { label: "", mode: "password" } })).toBe("password input");
    expect(nodeLabel({ type: "ui-form", name: "", config: { label: "{{x}}" } })).toBe("{{x}}");
    expect(nodeLabel({ type: "ui-gauge", name: "", config: { title: "CO2", gtype: "gauge-tile" } })).toBe("CO2");
    expect(nodeLabel({ type: "ui-template", name: "", config: { templateScope: "page:style" } })).toBe("page style");
    expect(nodeLabel({ type: "ui-button", name: "Reset", config: { label: "Press me" } })).toBe("Reset");
  });
});
