import type { DiffCase } from "../../../test/node-red-diff/types";

/** The sort node against Node-RED 4.1 (cases after test/nodes/core/sequence/18-sort_spec.js). */
const dataIn = ["200", "4", "30", "1000"];
const sort = (extra: Record<string, unknown>) => ({ id: "n1", type: "sort", ...extra, wires: [["out"]] });

const variants: Array<{ order: string; as_num: boolean }> = [
  { order: "ascending", as_num: false },
  { order: "descending", as_num: false },
  { order: "ascending", as_num: true },
  { order: "descending", as_num: true },
];

const label = (v: { order: string; as_num: boolean }) => `${v.as_num ? "number" : "not number"}, ${v.order}`;

/** check_sort0: the array in a property, sorted by element. */
const propertyCases: DiffCase[] = variants.flatMap((v) =>
  (["payload", "data"] as const).map((target) => ({
    name: `sorts msg.${target} (elem, ${label(v)})`,
    nodes: [sort({ ...v, target, targetType: "msg", msgKey: "", msgKeyType: "elem" })],
    send: [{ msg: { [target]: dataIn, topic: "t" } }],
    expect: 1,
  })),
);

/** check_sort1: a sequence of messages, sorted by a property of each. */
const sequenceCases: DiffCase[] = variants.flatMap((v) =>
  (["payload", "data"] as const).map((key) => ({
    name: `sorts a message sequence by msg.${key} (${label(v)})`,
    nodes: [sort({ ...v, target: "", targetType: "seq", seqKey: key, seqKeyType: "msg" })],
    send: dataIn.map((value, index) => ({ msg: { [key]: value, parts: { id: "X", index, count: dataIn.length } } })),
    expect: dataIn.length,
  })),
);

export const cases: DiffCase[] = [
  ...propertyCases,
  ...sequenceCases,
  { name: "drops a message whose property is not an array", nodes: [sort({ order: "ascending", targetType: "msg", target: "payload", msgKeyType: "elem" })], send: [{ msg: { payload: "zyx" } }, { msg: { payload: [3, 1, 2] } }], expect: 1 },
  { name: "sorts mixed numbers and strings", nodes: [sort({ order: "ascending", targetType: "msg", target: "payload", msgKeyType: "elem" })], send: [{ msg: { payload: [10, 9, "8", "a", 1.5, -1] } }], expect: 1 },
  {
    name: "sorts a sequence by a nested property, ties in arrival order",
    nodes: [sort({ order: "ascending", as_num: true, targetType: "seq", seqKey: "payload.k", seqKeyType: "msg" })],
    send: [{ k: "3", n: "a" }, { k: "1", n: "b" }, { k: "3", n: "c" }, { k: "2", n: "d" }].map((payload, index) => ({ msg: { payload, parts: { id: "g", index, count: 4 } } })),
    expect: 4,
  },
  {
    name: "takes the count from whichever message carries it; messages without parts are dropped",
    nodes: [sort({ order: "descending", targetType: "seq", seqKey: "payload", seqKeyType: "msg" })],
    send: [{ msg: { payload: 1, parts: { id: "g", index: 0 } } }, { msg: { payload: 7 } }, { msg: { payload: 2, parts: { id: "g", index: 1, count: 2 } } }],
    expect: 2,
  },
  {
    name: "sorts two interleaved sequences separately",
    nodes: [sort({ order: "ascending", targetType: "seq", seqKey: "payload", seqKeyType: "msg" })],
    send: [
      { msg: { payload: 2, parts: { id: "A", index: 0, count: 2 } } },
      { msg: { payload: 9, parts: { id: "B", index: 0, count: 2 } } },
      { msg: { payload: 1, parts: { id: "A", index: 1, count: 2 } } },
      { msg: { payload: 8, parts: { id: "B", index: 1, count: 2 } } },
    ],
    expect: 4,
  },
  {
    name: "split → sort → join sorts an array",
    nodes: [
      { id: "s", type: "split", wires: [["n1"]] },
      sort({ order: "descending", as_num: true, targetType: "seq", seqKey: "payload", seqKeyType: "msg", wires: [["j"]] }),
      { id: "j", type: "join", mode: "auto", wires: [["out"]] },
    ].map((n) => (n.id === "n1" ? { ...n, wires: [["j"]] } : n)),
    send: [{ msg: { payload: [3, 10, 1, 7] } }],
    expect: 1,
  },
  ...expressionCases(),
];

/** JSONata keys, after the spec's "(exp, ...)" and "by context" cases. */
function expressionCases(): DiffCase[] {
  const lettered = ["C200", "A4", "B30", "D1000"];
  const words = ["first", "second", "third", "fourth"];
  const seq = (key: string, values: unknown[]) => values.map((value, index) => ({ msg: { [key]: value, parts: { id: "X", index, count: values.length } } }));
  return (["ascending", "descending"] as const).flatMap((order): DiffCase[] => [
    {
      name: `sorts msg.data by an expression (not number, ${order})`,
      nodes: [sort({ order, as_num: false, target: "data", targetType: "msg", msgKey: "$substring($,1)", msgKeyType: "jsonata" })],
      send: [{ msg: { data: lettered } }],
      expect: 1,
    },
    {
      name: `sorts a message sequence by an expression (not number, ${order})`,
      nodes: [sort({ order, as_num: false, target: "", targetType: "seq", seqKey: "$substring(payload,1)", seqKeyType: "jsonata" })],
      send: seq("payload", lettered),
      expect: 4,
    },
  ]).concat([
    {
      name: "sorts dates by a $moment expression",
      nodes: [sort({ order: "ascending", as_num: true, target: "data", targetType: "msg", msgKey: '$moment($, "DD.MM.YYYY").valueOf()', msgKeyType: "jsonata" })],
      send: [{ msg: { data: ["03.02.2024", "01.12.2023", "15.01.2024"] } }],
      expect: 1,
    },
    {
      name: "sorts objects by an expression, as numbers",
      nodes: [sort({ order: "ascending", as_num: true, target: "data", targetType: "msg", msgKey: "val", msgKeyType: "jsonata" })],
      send: [{ msg: { data: ["200", "4", "30", "1000"].map((val) => ({ val })) } }],
      expect: 1,
    },
    {
      name: "sorts a property by flow context",
      nodes: [sort({ order: "ascending", as_num: false, target: "data", targetType: "msg", msgKey: "$flowContext($)", msgKeyType: "jsonata" })],
      flow: { first: "3", second: "1", third: "2", fourth: "4" },
      send: [{ msg: { data: words } }],
      expect: 1,
    },
    {
      name: "sorts a sequence by global context",
      nodes: [sort({ order: "ascending", as_num: false, target: "data", targetType: "seq", seqKey: "$globalContext(payload)", seqKeyType: "jsonata" })],
      global: { first: "4", second: "1", third: "3", fourth: "2" },
      send: seq("payload", words),
      expect: 4,
    },
    {
      name: "a failing key expression sends nothing",
      nodes: [sort({ order: "ascending", as_num: false, target: "payload", targetType: "seq", seqKey: "$unknown()", seqKeyType: "jsonata" })],
      send: seq("payload", [1, 2]),
    },
  ]);
}
