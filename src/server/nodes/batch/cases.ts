import type { DiffCase } from "../../../test/node-red-diff/types";

/** The batch node against Node-RED 4.1 (cases after test/nodes/core/sequence/19-batch_spec.js). */
const batch = (extra: Record<string, unknown>) => ({ id: "n1", type: "batch", count: 10, overlap: 0, interval: 10, allowEmptySequence: false, topics: [], ...extra, wires: [["out"]] });
const six = Array.from({ length: 6 }, (_, i) => ({ msg: { payload: i, parts: { count: 6, index: i } } }));
const concat = (topics: string[], inputs: Array<[string, number, number, number]>) => ({
  nodes: [batch({ mode: "concat", topics: topics.map((topic) => ({ topic })) })],
  send: inputs.map(([topic, payload, index, count]) => ({ msg: { topic, payload, parts: { id: topic, index, count } } })),
});

export const cases: DiffCase[] = [
  { name: "count: sequences of 2", nodes: [batch({ mode: "count", count: 2 })], send: six, expect: 6 },
  { name: "count: sequences of 4, the rest held", nodes: [batch({ mode: "count", count: 4 })], send: six, expect: 4 },
  { name: "count: ends early when parts are honoured", nodes: [batch({ mode: "count", count: 4, honourParts: true })], send: six, expect: 6 },
  { name: "count: sequences of 3 overlapping by 2", nodes: [batch({ mode: "count", count: 3, overlap: 2 })], send: six, expect: 12 },
  {
    name: "count: reset drops what is held",
    nodes: [batch({ mode: "count", count: 2, interval: 0 })],
    send: [0, 1, 2].map((payload) => ({ msg: { payload } })).concat([{ msg: { payload: 3, reset: true } as { payload: number } }, { msg: { payload: 4 } }, { msg: { payload: 5 } }]),
    expect: 4,
  },
  {
    name: "count: keeps other parts properties and the topic",
    nodes: [batch({ mode: "count", count: 2 })],
    send: [{ msg: { payload: "a", topic: "t", parts: { id: "x", index: 5, count: 9, key: "k" } } }, { msg: { payload: "b" } }],
    expect: 2,
  },
  {
    // Two pairs 1.5 intervals apart: whatever the timer's phase, each pair is one sequence.
    name: "interval: the messages of each interval",
    nodes: [batch({ mode: "interval", interval: 0.3 })],
    send: [{ msg: { payload: 0 } }, { msg: { payload: 1 } }, { msg: { payload: 2 }, delayMs: 450 }, { msg: { payload: 3 } }],
    expect: 4,
    settleMs: 600,
  },
  {
    name: "interval: reset drops what is held",
    nodes: [batch({ mode: "interval", interval: 0.3 })],
    send: [{ msg: { payload: 0 } }, { msg: { payload: 1 } }, { msg: { payload: "3", reset: true } }, { msg: { payload: 4 } }],
    expect: 1,
    settleMs: 500,
  },
  { name: "concat: two sequences in series", ...concat(["TA", "TB"], [["TB", 0, 0, 2], ["TB", 1, 1, 2], ["TA", 2, 0, 2], ["TA", 3, 1, 2]]), expect: 4 },
  { name: "concat: two sequences mixed", ...concat(["TA", "TB"], [["TA", 2, 0, 2], ["TB", 0, 0, 2], ["TA", 3, 1, 2], ["TB", 1, 1, 2]]), expect: 4 },
  { name: "concat: three sequences", ...concat(["TA", "TB", "TC"], [["TC", 4, 0, 1], ["TB", 0, 0, 2], ["TB", 1, 1, 2], ["TA", 2, 0, 2], ["TA", 3, 1, 2]]), expect: 5 },
  { name: "concat: the same sequence twice", ...concat(["TA", "TA"], [["TA", 9, 0, 2], ["TA", 8, 1, 2]]), expect: 4 },
  { name: "concat: other topics are ignored", ...concat(["TA"], [["TX", 1, 0, 1], ["TA", 2, 0, 1]]), expect: 1 },
];
