import type { DiffCase } from "../../../test/node-red-diff/types";

/**
 * The inject node against Node-RED 4.1 (cases after test/nodes/core/common/20-inject_spec.js). A
 * message delivered to the node (as Node-RED's node.receive) gets its properties; timers and the
 * button are covered by the node's own test (their timing is not data).
 */
const inject = (extra: Record<string, unknown>) => ({ id: "in", type: "inject", name: "", repeat: "", crontab: "", once: false, onceDelay: 0.1, wires: [["out"]], ...extra });
const props = (name: string, list: Array<Record<string, unknown>>, extra: Partial<DiffCase> = {}, node: Record<string, unknown> = {}): DiffCase => ({
  name,
  nodes: [inject({ props: list, ...node })],
  send: [{ msg: {} }],
  expect: 1,
  ...extra,
});

export const cases: DiffCase[] = [
  props("string payload and topic (editor form)", [{ p: "payload" }, { p: "topic", vt: "str" }], {}, { payload: "hello", payloadType: "str", topic: "t1" }),
  props("number", [{ p: "payload", v: "10", vt: "num" }]),
  props("boolean", [{ p: "payload", v: "true", vt: "bool" }]),
  props("JSON", [{ p: "payload", v: '{"x":"vx","y":1}', vt: "json" }]),
  props("buffer", [{ p: "payload", v: "[1,2,3]", vt: "bin" }]),
  props("several properties", [
    { p: "payload", v: "a", vt: "str" },
    { p: "topic", v: "t", vt: "str" },
    { p: "x.y", v: "5", vt: "num" },
    { p: "list[1]", v: "b", vt: "str" },
  ]),
  props("flow context", [{ p: "payload", v: "flowValue", vt: "flow" }], { flow: { flowValue: "changeMe" } }),
  props("nested global context", [{ p: "payload", v: "cfg.name", vt: "global" }], { global: { cfg: { name: "g" } } }),
  props("env", [{ p: "payload", v: "NR_TEST", vt: "env" }], { env: { NR_TEST: "foo" } }),
  props("env with ${}", [{ p: "payload", v: "${A}-${B}", vt: "env" }], { env: { A: "1", B: "2" } }),
  props("JSONata", [{ p: "payload", v: "1+2", vt: "jsonata" }]),
  props("JSONata sees earlier properties", [
    { p: "a", v: "5", vt: "num" },
    { p: "payload", v: "a * 2", vt: "jsonata" },
  ]),
  props("JSONata with env and context", [{ p: "payload", v: "$env('A') & $flowContext('f')", vt: "jsonata" }], { env: { A: "x" }, flow: { f: "y" } }),
  props("an invalid JSONata result sends nothing", [{ p: "payload", v: "$invalid()", vt: "jsonata" }], { expect: undefined }),
  props("date: timestamp (compared: topic only)", [{ p: "payload" }, { p: "topic", vt: "str" }], { compare: ["topic"] }, { payload: "", payloadType: "date", topic: "t" }),
  // FlowFuse's 5S blueprint reads context keys that are not set yet into payload.x: payload is still made.
  props("an unset context key: its property's parents are made, the key left out", [
    { p: "payload.lastAuditDate", v: "lastAuditDate", vt: "global" },
    { p: "payload.count", v: "#:(persistent)::count", vt: "global" },
    { p: "topic", v: "t", vt: "str" },
  ]),
  props("a context store that is not configured: the default store's value", [{ p: "payload.score", v: "#:(persistent)::score", vt: "global" }], { global: { score: 5 } }),
  props("msg property", [{ p: "payload", v: "topic", vt: "msg" }, { p: "topic", v: "new", vt: "str" }], { send: [{ msg: { topic: "old" } }] }),
  props("the received message keeps its properties", [{ p: "payload", v: "p", vt: "str" }], { send: [{ msg: { keep: 1, payload: "x" } }] }),
  {
    name: "legacy form without props",
    nodes: [{ id: "in", type: "inject", name: "", topic: "t2", payload: "42", payloadType: "num", repeat: "", crontab: "", once: false, wires: [["out"]] }],
    send: [{ msg: {} }],
    expect: 1,
  },
];
