import type { DiffCase } from "../../../test/node-red-diff/types";

/** The range node against Node-RED 4.1 (cases after test/nodes/core/function/16-range_spec.js). */
const range = (action: string, minin: number, maxin: number, minout: number, maxout: number, round: boolean, extra: Record<string, unknown> = {}) => ({
  id: "n1",
  type: "range",
  action,
  minin: String(minin),
  maxin: String(maxin),
  minout: String(minout),
  maxout: String(maxout),
  round,
  ...extra,
  wires: [["out"]],
});

const generic: Array<[string, string, number, number, number, number, boolean, unknown]> = [
  ["ranges numbers up tenfold", "scale", 0, 100, 0, 1000, false, 50],
  ["ranges centimetres to metres", "scale", 0, 100, 0, 1, false, 55],
  ["wraps 1/2 around", "roll", 0, 10, 0, 360, true, 15],
  ["wraps 1/3 around", "roll", 0, 10, 0, 360, true, 13.3333],
  ["wraps 1/4 around", "roll", 0, 10, 0, 360, true, 12.5],
  ["wraps 1/4 backwards", "roll", 0, 10, 0, 360, true, -12.5],
  ["wraps -10 to 0", "roll", 0, 10, 0, 360, true, -10],
  ["clamps over the max", "clamp", 0, 10, 0, 1000, false, 111],
  ["clamps below the min", "clamp", 0, 10, 0, 1000, false, -1],
  ["clamps above the max, rounded", "clamp", 0, 9.5, 0.5, 100.5, true, 13.1],
  ["clamps below the min, rounded", "clamp", 0, 9.5, 0.3, 100.5, true, -13.1],
  ["an input range with max < min (1)", "scale", 100, 0, 0, -100, false, 40],
  ["an input range with max < min (2)", "scale", 100, 0, -100, 0, false, 10],
  ["parses a numeric string", "scale", 0, 10, 0, 100, false, "2.5"],
  ["scales without limits above the range", "scale", 0, 10, 0, 100, false, 12],
  ["scales a boolean as a number", "scale", 0, 10, 0, 100, false, true],
];

export const cases: DiffCase[] = [
  ...generic.map(([name, action, minin, maxin, minout, maxout, round, payload]) => ({
    name,
    nodes: [range(action, minin, maxin, minout, maxout, round)],
    send: [{ msg: { payload, topic: "t" } }],
    expect: 1,
  })),
  {
    name: "drops a message outside the input range in drop mode",
    nodes: [range("drop", 0, 10, 0, 100, false)],
    send: [{ msg: { payload: 12 } }, { msg: { payload: -1 } }, { msg: { payload: 3 } }],
    expect: 1,
  },
  { name: "passes a message without the property", nodes: [range("scale", 0, 10, 0, 100, false)], send: [{ msg: { topic: "no payload" } }], expect: 1 },
  { name: "drops a message that is not a number", nodes: [range("scale", 0, 10, 0, 100, false)], send: [{ msg: { payload: "pear" } }, { msg: { payload: 1 } }], expect: 1 },
  { name: "works on another property", nodes: [range("scale", 0, 10, 0, 100, false, { property: "v.x" })], send: [{ msg: { v: { x: 7 }, payload: 1 } }], expect: 1 },
];
