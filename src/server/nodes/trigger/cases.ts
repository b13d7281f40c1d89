import type { DiffCase } from "../../../test/node-red-diff/types";

/** The trigger node against Node-RED 4.1 (cases after test/nodes/core/function/89-trigger_spec.js). */
const trigger = (extra: Record<string, unknown>, wires: string[][] = [["out"]]) => ({ id: "n1", type: "trigger", ...extra, wires });
const at = (delayMs: number, msg: Record<string, unknown>) => ({ msg, delayMs });

const firstValues: Array<[string, string]> = [
  ["str", "10"],
  ["num", "10"],
  ["bool", "true"],
  ["json", '{"a":1}'],
  ["bin", "[1,2,3]"],
];

export const cases: DiffCase[] = [
  ...firstValues.map(([type, val]) => ({
    name: `sends the first value (${type})`,
    nodes: [trigger({ op1: val, op1type: type, op2: "", op2type: "nul", duration: "20" })],
    send: [{ msg: { payload: "x", topic: "t" } }],
    expect: 1,
  })),
  ...firstValues.map(([type, val]) => ({
    name: `sends the second value (${type})`,
    nodes: [trigger({ op1: "foo", op1type: "str", op2: val, op2type: type, duration: "20" })],
    send: [{ msg: { payload: "x" } }],
    expect: 2,
  })),
  { name: "sends 1 then 0 by default", nodes: [trigger({ duration: "20" })], send: [{ msg: { payload: "x", topic: "t" } }], expect: 2 },
  {
    name: "ignores other messages while triggered unless extending",
    nodes: [trigger({ duration: "200" })],
    send: [{ msg: { payload: 1 } }, at(10, { payload: 2 }), at(10, { payload: 3 }), at(500, { payload: 4 })],
    expect: 4,
    settleMs: 500,
  },
  { name: "ignores msg.delay unless told to use it", nodes: [trigger({ duration: "30" })], send: [{ msg: { payload: 1, delay: 200 } }], expect: 2 },
  // The configured 10 s is past the harness's wait: only msg.delay gets the second message out in time.
  { name: "uses msg.delay when told to", nodes: [trigger({ duration: "10000", overrideDelay: true })], send: [{ msg: { payload: 1, delay: 30 } }], expect: 2, settleMs: 300 },
  { name: "true and false (val) are booleans", nodes: [trigger({ op1: "true", op1type: "val", op2: "false", op2type: "val", duration: "30" })], send: [{ msg: { payload: "x" } }], expect: 2 },
  {
    name: "treats topics as one unless asked",
    nodes: [trigger({ bytopic: "all", op1: "1", op2: "0", op1type: "num", op2type: "num", duration: "40" })],
    send: [{ msg: { payload: "A", topic: "pin/1" } }, { msg: { payload: "B", topic: "pin/2" } }],
    expect: 2,
  },
  {
    name: "handles topics individually",
    nodes: [trigger({ bytopic: "topic", op1: "1", op2: "0", op1type: "num", op2type: "num", duration: "40" })],
    send: [{ msg: { payload: "A", topic: "pin/1" } }, { msg: { payload: "B", topic: "pin/2" } }],
    expect: 4,
  },
  {
    name: "handles topics individually and extends one",
    nodes: [trigger({ bytopic: "topic", extend: "true", op1: "1", op2: "0", op1type: "num", op2type: "num", duration: "300" })],
    send: [{ msg: { payload: "A", topic: "pin/1" } }, { msg: { payload: "B", topic: "pin/2" } }, at(100, { payload: "C", topic: "pin/1" })],
    expect: 4,
    settleMs: 300,
  },
  {
    name: "handles another property as the topic",
    nodes: [trigger({ bytopic: "topic", topic: "foo", op1: "1", op2: "0", op1type: "num", op2type: "num", duration: "40" })],
    send: [{ msg: { payload: "A", foo: "pin/1" } }, { msg: { payload: "B", foo: "pin/2" } }],
    expect: 4,
  },
  {
    name: "sends flow and global context values",
    nodes: [trigger({ op1: "foo", op1type: "flow", op2: "bar", op2type: "global", duration: "20" })],
    flow: { foo: "FOO" },
    global: { bar: "BAR" },
    send: [{ msg: { payload: "x" } }],
    expect: 2,
  },
  { name: "sends nothing first", nodes: [trigger({ op1type: "nul", op1: "true", op2: "false", op2type: "val", duration: "30" })], send: [{ msg: { payload: "x" } }], expect: 1 },
  { name: "sends nothing second", nodes: [trigger({ op2type: "nul", op1: "true", op1type: "val", op2: "false", duration: "30" })], send: [{ msg: { payload: "x" } }, at(300, { payload: "y" })], expect: 2, settleMs: 200 },
  {
    name: "resets having sent nothing second",
    nodes: [trigger({ op2type: "nul", op1: "true", op1type: "val", op2: "false", duration: "400" })],
    send: [{ msg: { payload: 1 } }, at(20, { reset: true }), at(20, { payload: 2 })],
    expect: 2,
  },
  {
    name: "extends the delay",
    nodes: [trigger({ extend: "true", op1type: "flow", op1: "foo", op2: "bar", op2type: "global", duration: "300" })],
    flow: { foo: "first" },
    global: { bar: "second" },
    send: [{ msg: { payload: 1 } }, at(100, { payload: 2 }), at(100, { payload: 3 })],
    expect: 2,
    settleMs: 500,
  },
  {
    name: "extends the delay with no second message",
    nodes: [trigger({ extend: "true", op1type: "pay", op2type: "nul", op1: "false", op2: "true", duration: "300" })],
    send: [{ msg: { payload: "Hello" } }, at(100, { payload: "World" }), at(700, { payload: "Again" })],
    expect: 2,
    settleMs: 500,
  },
  {
    name: "extends the delay and sends the latest payload",
    nodes: [trigger({ extend: "true", op1type: "nul", op2type: "payl", op1: "false", op2: "true", duration: "300" })],
    send: [{ msg: { payload: "Hello" } }, at(100, { payload: "Goodbye", topic: "t" })],
    expect: 1,
    settleMs: 200,
  },
  {
    name: "sends the latest message second",
    nodes: [trigger({ extend: "false", op1type: "nul", op2type: "payl", op1: "false", op2: "true", duration: "300" })],
    send: [{ msg: { payload: 1, topic: "a" } }, at(100, { payload: 2, topic: "b" })],
    expect: 1,
    settleMs: 200,
  },
  {
    name: "sends the latest message second per topic",
    nodes: [trigger({ extend: "false", op1type: "nul", op2type: "payl", op1: "false", op2: "true", duration: "300", bytopic: "topic" })],
    send: [{ msg: { payload: 1, topic: "A" } }, { msg: { payload: 2, topic: "B" } }, at(100, { payload: 3, topic: "A" }), { msg: { payload: 4, topic: "B" } }],
    expect: 2,
    settleMs: 200,
  },
  {
    name: "sends the original message second (pay)",
    nodes: [trigger({ op1: "x", op1type: "str", op2type: "pay", op2: "", duration: "40" })],
    send: [{ msg: { payload: { orig: 1 }, topic: "t" } }],
    expect: 2,
  },
  { name: "applies mustache templates", nodes: [trigger({ op1type: "val", op2type: "val", op1: "{{payload}}", op2: "{{topic}}", duration: "50" })], send: [{ msg: { payload: "Hello", topic: "World" } }], expect: 2 },
  {
    name: "sends the second message to a second output",
    nodes: [trigger({ op1type: "val", op2type: "val", op1: "hello", op2: "world", duration: "50", outputs: 2 }, [["out"], ["out2"]])],
    send: [{ msg: { payload: "go" } }],
    expect: 2,
  },
  { name: "null (val) is null first", nodes: [trigger({ op1type: "val", op2type: "pay", op1: "null", op2: "null", duration: "40" })], send: [{ msg: { payload: "World" } }], expect: 2 },
  { name: "null (val) is null second", nodes: [trigger({ op1type: "val", op2type: "val", op1: "null", op2: "null", duration: "40" })], send: [{ msg: { payload: "World" } }], expect: 2 },
  {
    name: "waits to be reset (duration 0), reset by msg.reset",
    nodes: [trigger({ duration: "0", extend: false })],
    send: [{ msg: { payload: 1 } }, at(20, { payload: 2 }), at(20, { reset: true }), at(20, { payload: 3 })],
    expect: 2,
  },
  {
    name: "waits to be reset, reset by a payload",
    nodes: [trigger({ reset: "boo", duration: "0" })],
    send: [{ msg: { payload: "A" } }, at(20, { payload: "B" }), at(20, { payload: "boo" }), at(20, { payload: "C" })],
    expect: 2,
  },
  {
    name: "waits to be reset, reset by boolean true",
    nodes: [trigger({ reset: "true", duration: "0" })],
    send: [{ msg: { payload: "A" } }, at(20, { payload: "B" }), at(20, { payload: true }), at(20, { payload: "C" })],
    expect: 2,
  },
  {
    name: "waits to be reset, reset by boolean false",
    nodes: [trigger({ reset: "false", duration: "0" })],
    send: [{ msg: { payload: "A" } }, at(20, { payload: "B" }), at(20, { payload: false }), at(20, { payload: "C" })],
    expect: 2,
  },
  {
    name: "repeats until reset",
    nodes: [trigger({ reset: "boo", op1: "", op1type: "pay", duration: -200 })],
    send: [{ msg: { payload: "foo", topic: "t" } }, at(500, { payload: "boo" })],
    compare: ["payload", "topic"],
    settleMs: 500,
  },
  { name: "waits in seconds", nodes: [trigger({ units: "s", duration: "0.05" })], send: [{ msg: { payload: 1 } }], expect: 2 },
];
