import type { DiffCase } from "../../../test/node-red-diff/types";

/** The filter node (Node-RED's rbe) against Node-RED 4.1 (cases after test/nodes/core/function/rbe_spec.js). */
const rbe = (extra: Record<string, unknown>) => ({ id: "n1", type: "rbe", ...extra, wires: [["out"]] });
const payloads = (...list: unknown[]) => list.map((payload) => ({ msg: { payload } }));
const msgs = (...list: Array<Record<string, unknown>>) => list.map((msg) => ({ msg }));

export const cases: DiffCase[] = [
  {
    name: "rbe: only changes pass, with several topics",
    nodes: [rbe({ func: "rbe", gap: "0" })],
    send: msgs(
      { payload: "a" }, { payload: "a" }, { payload: "a" }, { payload: 2 }, { payload: 2 },
      { payload: { b: 1, c: 2 } }, { payload: { c: 2, b: 1 } }, { payload: { c: 2, b: 1 } },
      { payload: true }, { payload: false }, { payload: false }, { payload: true },
      { topic: "a", payload: 1 }, { topic: "b", payload: 1 }, { topic: "b", payload: 1 }, { topic: "a", payload: 1 }, { topic: "c", payload: 1 },
    ),
  },
  {
    name: "rbe: topics ignored when told to",
    nodes: [rbe({ func: "rbe", gap: "0", septopics: false })],
    send: msgs(
      { topic: "a", payload: "a" }, { topic: "b", payload: "a" }, { topic: "c", payload: "a" }, { topic: "a", payload: 2 }, { topic: "b", payload: 2 },
      { payload: { b: 1, c: 2 } }, { payload: { c: 2, b: 1 } }, { payload: { c: 2, b: 1 } },
      { topic: "a", payload: true }, { topic: "b", payload: false }, { topic: "c", payload: false }, { topic: "d", payload: true },
      { topic: "a", payload: 1 }, { topic: "b", payload: 1 }, { topic: "c", payload: 1 }, { topic: "d", payload: 1 }, { topic: "a", payload: 2 },
    ),
  },
  {
    name: "rbe: another property",
    nodes: [rbe({ func: "rbe", gap: "0", property: "foo" })],
    send: msgs({ foo: "a" }, { payload: "a" }, { foo: "a" }, { payload: "a" }, { foo: "a" }, { foo: "b" }, { foo: { b: 1, c: 2 } }, { foo: { c: 2, b: 1 } }, { payload: { c: 2, b: 1 } }),
  },
  {
    name: "rbei: the first value is ignored",
    nodes: [rbe({ func: "rbei", gap: "0" })],
    send: msgs({ payload: "a", topic: "a" }, { payload: "a", topic: "b" }, { payload: "a", topic: "a" }, { payload: "b", topic: "a" }, { payload: "b", topic: "b" }, { payload: "c", topic: "a" }, { payload: "c", topic: "b" }),
  },
  {
    name: "rbe: reset forgets one topic or all",
    nodes: [rbe({ func: "rbe", gap: "0" })],
    send: msgs(
      { topic: "a", payload: "a" }, { topic: "a", payload: "a" }, { topic: "b", payload: "b" }, { reset: true },
      { topic: "a", payload: "a" }, { topic: "b", payload: "b" }, { topic: "b", payload: "b" }, { topic: "b", reset: "" },
      { topic: "b", payload: "b" }, { topic: "a", payload: "a" }, { reset: "" }, { topic: "b", payload: "b" }, { topic: "a", payload: "a" },
      { topic: "c" }, { topic: "b", payload: "b" }, { topic: "a", payload: "a" }, { topic: "c", payload: "c" },
    ),
  },
  {
    name: "rbe: a null payload and arrays",
    nodes: [rbe({ func: "rbe" })],
    send: payloads(null, null, [1, 2], [1, 2], [2, 1], "x"),
  },
  { name: "deadbandEq: at least the gap", nodes: [rbe({ func: "deadbandEq", gap: "10", inout: "out" })], send: payloads(0, 2, 4, 6, 8, 10, 15, 20) },
  { name: "deadband: more than the gap, numbers parsed from text", nodes: [rbe({ func: "deadband", gap: "10" })], send: payloads(0, 2, 4, "6 deg", 8, 20, 15, "5 deg") },
  { name: "deadband: more than 10%", nodes: [rbe({ func: "deadband", gap: "10%" })], send: payloads(100, 95, 105, 111, 120, 135) },
  { name: "deadband: no number passes nothing", nodes: [rbe({ func: "deadband", gap: "10" })], send: payloads("banana") },
  { name: "narrowbandEq: from a start value", nodes: [rbe({ func: "narrowbandEq", gap: "10", inout: "out", start: "1" })], send: payloads(100, 0, 10, 5, 15, 10, 20, 25) },
  { name: "narrowband: the first value starts", nodes: [rbe({ func: "narrowband", gap: "10" })], send: payloads(100, 0, 10, 5, 15, 10, 20, 25) },
  { name: "narrowband: compared with the last input", nodes: [rbe({ func: "narrowband", gap: "10", inout: "in" })], send: payloads(0, 100, 105, 50, 55, 20, 25) },
  { name: "deadband: compared with the last input", nodes: [rbe({ func: "deadband", gap: "10", inout: "in" })], send: payloads(0, 5, 10, 15, 40, 45, 60) },
  { name: "narrowbandEq: percent gap", nodes: [rbe({ func: "narrowbandEq", gap: "20%", inout: "out" })], send: payloads(50, 55, 70, 60, 45, 62) },
  {
    name: "deadband: per topic, and a topic property of its own",
    nodes: [rbe({ func: "deadband", gap: "5", topi: "device" })],
    send: msgs({ device: "x", payload: 1 }, { device: "y", payload: 1 }, { device: "x", payload: 3 }, { device: "y", payload: 9 }, { device: "x", payload: 9 }),
  },
];
