import type { DiffCase } from "../../../test/node-red-diff/types";

/** The join node against Node-RED 4.1 (cases after test/nodes/core/sequence/17-split_spec.js). */
const join = (extra: Record<string, unknown> = {}) => ({ id: "n1", type: "join", ...extra, wires: [["out"]] });
const msgs = (...list: Array<Record<string, unknown>>) => list.map((msg) => ({ msg }));
const strPart = (payload: string, index: number) => ({ payload, parts: { id: 1, type: "string", ch: ",", index, count: 4 } });

export const cases: DiffCase[] = [
  {
    name: "joins a string back together automatically",
    nodes: [join({ joiner: ",", build: "string", mode: "auto" })],
    send: msgs(strPart("A", 0), strPart("B", 1), strPart("C", 2), strPart("D", 3)),
    expect: 1,
  },
  {
    name: "auto mode ignores a buffer joiner of its own",
    nodes: [join({ joiner: "[44]", joinerType: "bin", build: "string", mode: "auto" })],
    send: msgs(strPart("A", 0), strPart("B", 1), strPart("C", 2), strPart("D", 3)),
    expect: 1,
  },
  { name: "joins into an array after a count", nodes: [join({ count: 3, joiner: ",", mode: "custom" })], send: msgs({ payload: 1 }, { payload: true }, { payload: { a: 1 } }), expect: 1 },
  {
    name: "joins into an array ignoring msg.parts.index in manual mode",
    nodes: [join({ count: 3, joiner: ",", mode: "custom" })],
    send: msgs({ payload: 1, parts: { index: 3 } }, { payload: true, parts: { index: 0 } }, { payload: { a: 1 }, parts: { index: 9 } }),
    expect: 1,
  },
  {
    name: "joins into an array after a count with a buffer joiner",
    nodes: [join({ count: 3, joinerType: "bin", joiner: "", mode: "custom" })],
    send: msgs({ payload: 1 }, { payload: true }, { payload: { a: 1 } }),
    expect: 1,
  },
  {
    name: "joins a sub-property in auto mode",
    nodes: [join({ count: 3, joiner: ",", mode: "auto" })],
    send: ["A", "B", "C", "D"].map((bar, index) => ({ msg: { foo: { bar }, parts: { id: 1, type: "array", len: 1, index, count: 4, property: "foo.bar" } } })),
    expect: 1,
  },
  {
    name: "joins strings into a buffer after a count",
    nodes: [join({ count: 2, build: "buffer", joinerType: "bin", joiner: "", mode: "custom" })],
    send: msgs({ payload: "hello" }, { payload: "world" }),
    expect: 1,
  },
  {
    name: "joins strings into a buffer with a byte joiner",
    nodes: [join({ count: 2, build: "buffer", joinerType: "bin", joiner: "[32]", mode: "custom" })],
    send: msgs({ payload: "hello" }, { payload: "world" }),
    expect: 1,
  },
  {
    name: "joins into an object after a count of keys",
    nodes: [join({ count: 5, build: "object", mode: "custom" })],
    send: msgs({ payload: 1, topic: "a" }, { payload: "2", topic: "b" }, { payload: true, topic: "c" }, { payload: { e: 5 }, topic: "d" }, { payload: { e: 7 }, topic: "d" }, { payload: { f: 6 }, topic: "g" }),
    expect: 1,
  },
  {
    name: "merges objects",
    nodes: [join({ count: 5, build: "merged", mode: "custom" })],
    send: msgs(
      { payload: { a: 9 }, topic: "f" },
      { payload: { a: 1 }, topic: "a" },
      { payload: { b: 9 }, topic: "b" },
      { payload: { b: 2 }, topic: "b" },
      { payload: { c: 3 }, topic: "c" },
      { payload: { d: 4 }, topic: "d" },
      { payload: { e: 5 }, topic: "e" },
    ),
    expect: 1,
  },
  {
    name: "merges sub-property objects",
    nodes: [join({ count: 5, property: "foo.bar", build: "merged", mode: "custom" })],
    send: msgs({ foo: { bar: { a: 9 }, topic: "f" } }, { foo: { bar: { a: 1 }, topic: "a" } }, { foo: { bar: { b: 9 }, topic: "b" } }, { foo: { bar: { b: 2 }, topic: "b" } }, { foo: { bar: { c: 3 }, topic: "c" } }, { foo: { bar: { d: 4 }, topic: "d" } }, { foo: { bar: { e: 5 }, topic: "e" } }),
    expect: 1,
  },
  {
    name: "merges whole messages",
    nodes: [join({ count: 6, build: "merged", mode: "custom", propertyType: "full", property: "" })],
    send: msgs({ payload: 1, topic: "f" }, { payload: 2, topic: "a" }, { payload: 3, foo: "b" }, { payload: 4, bar: "b" }, { payload: 5, aha: "c" }, { payload: 6, foo: "d" }, { payload: 7, bingo: "e" }),
    expect: 1,
  },
  {
    name: "accumulates a merged object",
    nodes: [join({ build: "merged", mode: "custom", accumulate: true, count: 3 })],
    send: msgs({ payload: { a: 1 }, topic: "a" }, { payload: { b: 2 }, topic: "b" }, { payload: { c: 3 }, topic: "c" }, { payload: { a: 3 }, topic: "d" }, { payload: { b: 2 }, topic: "e" }, { payload: { c: 1 }, topic: "f" }),
    expect: 4,
  },
  {
    name: "resets an accumulation",
    nodes: [join({ build: "merged", accumulate: true, mode: "custom", count: 3 })],
    send: msgs(
      { payload: { a: 1 }, topic: "a" },
      { payload: { b: 2 }, topic: "b" },
      { payload: { c: 3 }, topic: "c" },
      { payload: { d: 4 }, topic: "d", complete: true },
      { payload: { e: 2 }, topic: "e" },
      { payload: { f: 1 }, topic: "f", complete: true },
      { payload: { g: 2 }, topic: "g" },
      { payload: { h: 1 }, topic: "h" },
      { reset: true },
      { payload: { g: 2 }, topic: "g" },
      { payload: { h: 1 }, topic: "h" },
      { payload: { i: 3 }, topic: "i" },
    ),
    expect: 4,
  },
  {
    name: "accumulates a key/value object",
    nodes: [join({ build: "object", accumulate: true, mode: "custom", topic: "bar", key: "foo", count: 4 })],
    send: msgs({ payload: 2, foo: "b" }, { payload: 3, foo: "c" }, { reset: true }, { payload: 1, foo: "a" }, { payload: 2, foo: "b" }, { payload: 3, foo: "c" }, { payload: 4, foo: "d" }, { payload: 5, foo: "e" }),
    expect: 2,
  },
  {
    name: "joins strings after a timeout",
    nodes: [join({ build: "string", timeout: 0.05, count: "", joiner: ",", mode: "custom" })],
    send: msgs({ payload: "a" }, { payload: "b" }, { payload: "c" }),
    expect: 1,
  },
  {
    name: "restarts the timeout",
    nodes: [join({ build: "string", timeout: 0.5, count: "", joiner: ",", mode: "custom" })],
    send: [{ msg: { payload: "a" } }, { msg: { payload: "b", restartTimeout: true }, delayMs: 300 }, { msg: { payload: "c" }, delayMs: 300 }],
    expect: 1,
  },
  {
    name: "completes when told to",
    nodes: [join({ build: "string", timeout: 5, count: 0, joiner: "\\n", mode: "custom" })],
    send: msgs({ payload: "Hello" }, { payload: "NodeRED" }, { payload: "World" }, { payload: "", complete: true }),
    expect: 1,
  },
  {
    name: "joins whole messages into an array",
    nodes: [join({ build: "array", timeout: 0, count: 3, propertyType: "full", mode: "custom" })],
    send: msgs({ payload: "a" }, { payload: "b", topic: "t" }, { payload: "c" }),
    expect: 1,
  },
  {
    name: "joins parts back into an array in order",
    nodes: [join()],
    send: msgs({ payload: 3, parts: { index: 2, count: 4, id: 111 } }, { payload: 2, parts: { index: 1, count: 4, id: 111 } }, { payload: 4, parts: { index: 3, count: 4, id: 111 } }, { payload: 1, parts: { index: 0, count: 4, id: 111 } }),
    expect: 1,
  },
  {
    name: "joins parts back into an object",
    nodes: [join()],
    send: msgs(
      { payload: 3, parts: { index: 2, count: 4, id: 222, key: "c", type: "object" } },
      { payload: 2, parts: { index: 1, count: 4, id: 222, key: "b", type: "object" } },
      { payload: 4, parts: { index: 3, count: 4, id: 222, key: "d", type: "object" } },
      { payload: 1, parts: { index: 0, count: 4, id: 222, key: "a", type: "object" } },
    ),
    expect: 1,
  },
  {
    name: "auto mode sends when told complete",
    nodes: [join({ timeout: 0.25 })],
    send: msgs({ payload: 3, parts: { index: 2, count: 4, id: 444 } }, { payload: 2, parts: { index: 1, count: 4, id: 444 } }, { payload: 4, parts: { index: 3, count: 4, id: 444 }, complete: true }),
    expect: 1,
  },
  {
    name: "manually joins into an array, sent when told complete",
    nodes: [join({ timeout: 1, mode: "custom", build: "array" })],
    send: msgs({ payload: 1, topic: "A" }, { payload: 2, topic: "B" }, { payload: 3, topic: "C" }, { complete: true }),
    expect: 1,
  },
  {
    name: "manually joins into an object, sent when told complete",
    nodes: [join({ timeout: 1, mode: "custom", build: "object" })],
    send: msgs({ payload: 1, topic: "A" }, { payload: 2, topic: "B" }, { payload: 3, topic: "C" }, { complete: true }),
    expect: 1,
  },
  {
    name: "joins split strings back into a word",
    nodes: [join({ mode: "auto" })],
    send: ["a", "d", "c", "b"].map((payload) => ({ msg: { payload, parts: { type: "string", index: "abcd".indexOf(payload), count: 4, ch: "", id: 555 } } })),
    expect: 1,
  },
  {
    name: "chains split-split-join-join",
    nodes: [
      { id: "s1", type: "split", wires: [["s2"]] },
      { id: "s2", type: "split", wires: [["j1"]] },
      { id: "j1", type: "join", mode: "auto", wires: [["j2"]] },
      { id: "j2", type: "join", mode: "auto", wires: [["out"]] },
    ],
    send: msgs({ payload: [[1, 2, 3], "a\nb\nc", [7, 8, 9]] }),
    expect: 1,
  },
  {
    name: "reverses a split of an object with the key copied to topic",
    nodes: [{ id: "s1", type: "split", addname: "topic", wires: [["j1"]] }, { id: "j1", type: "join", mode: "auto", wires: [["out"]] }],
    send: msgs({ payload: { a: 1, b: [2], c: { d: 3 } }, topic: "orig" }),
    expect: 1,
  },
  {
    name: "reverses a split of an array into chunks",
    nodes: [{ id: "s1", type: "split", arraySplt: 2, arraySpltType: "len", wires: [["j1"]] }, { id: "j1", type: "join", mode: "auto", wires: [["out"]] }],
    send: msgs({ payload: [1, 2, 3, 4, 5] }),
    expect: 1,
  },
  {
    name: "reverses a split of a string into lengths",
    nodes: [{ id: "s1", type: "split", splt: "3", spltType: "len", wires: [["j1"]] }, { id: "j1", type: "join", mode: "auto", wires: [["out"]] }],
    send: msgs({ payload: "abcdefgh" }),
    expect: 1,
  },
  {
    name: "a split string joined with byte separators (the join character becomes text)",
    nodes: [{ id: "s1", type: "split", splt: "[44]", spltType: "bin", wires: [["j1"]] }, { id: "j1", type: "join", mode: "auto", wires: [["out"]] }],
    send: msgs({ payload: "a,b,c" }),
    expect: 1,
  },
  {
    name: "auto mode without msg.parts sends nothing",
    nodes: [join({ joiner: "[44]", joinerType: "bin", build: "string", mode: "auto" })],
    send: msgs({ payload: "A" }, { payload: "B", parts: { index: 0 } }),
  },
  {
    name: "auto mode: a duplicate index is replaced, not counted",
    nodes: [join({ build: "array", mode: "auto" })],
    send: msgs({ payload: "a", parts: { id: 1, type: "array", index: 0, count: 2 } }, { payload: "b", parts: { id: 1, type: "array", index: 0, count: 2 } }, { payload: "c", parts: { id: 1, type: "array", index: 1, count: 2 } }),
    expect: 1,
  },
  {
    name: "manual mode groups by msg.parts.id when the count is empty and parts are used",
    nodes: [join({ mode: "custom", build: "array", count: "", useparts: true })],
    send: msgs(
      { payload: 1, parts: { id: "A", index: 0, count: 2 } },
      { payload: 10, parts: { id: "B", index: 0, count: 2 } },
      { payload: 20, parts: { id: "B", index: 1, count: 2 } },
      { payload: 2, parts: { id: "A", index: 1, count: 2 } },
    ),
    expect: 2,
  },
  {
    name: "manual mode drops msg.parts unless told to use them, restoring an enclosing one",
    nodes: [join({ mode: "custom", build: "array", count: 2, useparts: false })],
    send: msgs({ payload: 1, parts: { id: "A", index: 0, count: 2, parts: { id: "O", index: 0, count: 1 } } }, { payload: 2, parts: { id: "A", index: 1, count: 2, parts: { id: "O", index: 0, count: 1 } } }),
    expect: 1,
  },
  {
    name: "a key/value join without the key property sends nothing",
    nodes: [join({ mode: "custom", build: "object", count: 2 })],
    send: msgs({ payload: 1 }, { payload: 2 }),
  },
  {
    name: "a merged join ignores non-objects",
    nodes: [join({ mode: "custom", build: "merged", count: 2 })],
    send: msgs({ payload: 1 }, { payload: { a: 1 } }, { payload: [1] }, { payload: { b: 2 } }),
    expect: 1,
  },
  ...reduceCases(),
];

/** Reduce mode, after the spec's "should reduce messages ..." cases. */
function reduceCases(): DiffCase[] {
  const reduce = (extra: Record<string, unknown>) => join({ mode: "reduce", reduceRight: false, reduceFixup: undefined, ...extra });
  const four = (values: unknown[] = [3, 2, 4, 1], count: number | undefined = 4) =>
    values.map((payload, i) => ({ msg: { payload, parts: { index: [2, 1, 3, 0][i], ...(count === undefined ? {} : { count }), id: 222 } } }));
  const initTypes: Array<[string, string]> = [
    ["str", "xyz"],
    ["num", "10"],
    ["bool", "true"],
    ["json", '{"x":"vx", "y":"vy", "z":"vz"}'],
    ["bin", "[1,2,3]"],
    ["jsonata", "1+2+3"],
    ["flow", "foo"],
    ["global", "foo"],
  ];
  return [
    { name: "reduce: sums the payloads", nodes: [reduce({ reduceExp: "$A+payload", reduceInit: "0", reduceInitType: "num" })], send: four(), expect: 1 },
    {
      name: "reduce: the count only in the last part",
      nodes: [reduce({ reduceExp: "$A+payload", reduceInit: "0", reduceInitType: "num" })],
      send: [
        { msg: { payload: 3, parts: { index: 2, id: 222 } } },
        { msg: { payload: 2, parts: { index: 1, id: 222 } } },
        { msg: { payload: 4, parts: { index: 3, count: 4, id: 222 } } },
        { msg: { payload: 1, parts: { index: 0, id: 222 } } },
      ],
      expect: 1,
    },
    ...initTypes.map(([type, value]) => ({
      name: `reduce: initial value of type ${type}`,
      nodes: [reduce({ reduceExp: "$A", reduceInit: value, reduceInitType: type })],
      flow: { foo: "bar" },
      global: { foo: "baz" },
      send: four(),
      expect: 1,
    })),
    { name: "reduce: uses $I", nodes: [reduce({ reduceExp: "$A+$I", reduceInit: "0", reduceInitType: "num" })], send: four(), expect: 1 },
    {
      name: "reduce: with a fix-up (average)",
      nodes: [reduce({ reduceExp: "$A+payload", reduceInit: "0", reduceInitType: "num", reduceFixup: "$A/$N" })],
      send: [3, 2, 4, 1, 0].map((payload, i) => ({ msg: { payload, parts: { index: [2, 1, 3, 0, 4][i], count: 5, id: 222 } } })),
      expect: 1,
    },
    { name: "reduce: left to right", nodes: [reduce({ reduceExp: "'(' & $A & '+' & payload & ')'", reduceInit: "0", reduceInitType: "str" })], send: four(["3", "2", "4", "1"]), expect: 1 },
    { name: "reduce: right to left", nodes: [reduce({ reduceRight: true, reduceExp: "'(' & $A & '+' & payload & ')'", reduceInit: "0", reduceInitType: "str" })], send: four(["3", "2", "4", "1"]), expect: 1 },
    {
      name: "reduce: an array result per group",
      nodes: [reduce({ reduceExp: "$append($A,[payload])", reduceInit: "[]", reduceInitType: "json" })],
      send: [
        { msg: { payload: 1, parts: { index: 0, count: 2, id: 222 } } },
        { msg: { payload: 2, parts: { index: 1, count: 2, id: 222 } } },
        { msg: { payload: 3, parts: { index: 2, count: 2, id: 333 } } },
        { msg: { payload: 4, parts: { index: 3, count: 2, id: 333 } } },
      ],
      expect: 2,
    },
    {
      name: "reduce: flow context in the expressions",
      nodes: [reduce({ reduceExp: '$A+(payload*$flowContext("two"))', reduceInit: '$flowContext("one")', reduceInitType: "jsonata", reduceFixup: '$A*$flowContext("three")' })],
      flow: { one: 1, two: 2, three: 3 },
      send: four([3, 2, 4, 1].map((p) => p)),
      expect: 1,
    },
    {
      name: "reduce: global context in the expressions",
      nodes: [reduce({ reduceExp: '$A+(payload*$globalContext("two"))', reduceInit: '$globalContext("one")', reduceInitType: "jsonata", reduceFixup: '$A*$globalContext("three")' })],
      global: { one: 1, two: 2, three: 3 },
      send: four(),
      expect: 1,
    },
    {
      name: "reduce: a message without parts passes",
      nodes: [reduce({ reduceExp: "$A+payload", reduceInit: "0", reduceInitType: "num" })],
      send: [{ msg: { payload: "alone", topic: "t" } }],
      expect: 1,
    },
    {
      name: "reduce: split then reduce",
      nodes: [{ id: "s", type: "split", wires: [["n1"]] }, { ...reduce({ reduceExp: "$A & payload", reduceInit: "", reduceInitType: "str" }), id: "n1" }],
      send: [{ msg: { payload: "a\nb\nc", topic: "t" } }],
      expect: 1,
    },
    {
      name: "reduce: a runtime error sends nothing",
      nodes: [reduce({ reduceExp: "$A+payload", reduceInit: "0", reduceInitType: "num" })],
      send: four(["x", "y", "z", "w"]),
    },
  ];
}
