import type { DiffCase } from "../../../test/node-red-diff/types";

/** The split node against Node-RED 4.1 (cases after test/nodes/core/sequence/17-split_spec.js). */
const split = (extra: Record<string, unknown> = {}) => ({ id: "sn1", type: "split", ...extra, wires: [["out"]] });
const one = (msg: Record<string, unknown>) => [{ msg }];

export const cases: DiffCase[] = [
  { name: "splits an array into messages", nodes: [split()], send: one({ payload: [1, 2, 3, 4], topic: "t" }), expect: 4 },
  { name: "splits an array on a sub-property", nodes: [split({ property: "foo" })], send: one({ foo: [1, 2, 3, 4], payload: "keep" }), expect: 4 },
  { name: "splits an array into chunks of 3", nodes: [split({ arraySplt: 3, arraySpltType: "len" })], send: one({ payload: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] }), expect: 4 },
  { name: "splits an array of objects and arrays", nodes: [split()], send: one({ payload: [{ a: 1 }, [2, 3], null, "x"] }), expect: 4 },
  { name: "splits an object into key/value messages", nodes: [split()], send: one({ payload: { a: 1, b: "2", c: true, d: { e: 5 } } }), expect: 4 },
  { name: "splits an object sub-property", nodes: [split({ property: "foo.bar" })], send: one({ foo: { bar: { a: 1, b: 2 } } }), expect: 2 },
  { name: "splits an object and copies each key to the topic", nodes: [split({ addname: "topic" })], send: one({ payload: { a: 1, b: 2, c: 3 }, topic: "orig" }), expect: 3 },
  { name: "splits a string at new lines by default", nodes: [split()], send: one({ payload: "Da\nve\n \nCJ" }), expect: 4 },
  { name: "splits a string at a given character", nodes: [split({ splt: "-" })], send: one({ payload: "1-2-3--4" }), expect: 5 },
  { name: "splits a string at the escaped tab", nodes: [split({ splt: "\\t" })], send: one({ payload: "a\tb" }), expect: 2 },
  { name: "splits a string into lengths", nodes: [split({ splt: "2", spltType: "len" })], send: one({ payload: "12345678" }), expect: 4 },
  { name: "rounds the count up for a string into lengths", nodes: [split({ splt: "2", spltType: "len" })], send: one({ payload: "123" }), expect: 2 },
  { name: "splits a string at a byte sequence", nodes: [split({ splt: "[52]", spltType: "bin" })], send: one({ payload: "12341234" }), expect: 3 },
  { name: "sets parts.ch for a str split at 2", nodes: [split({ splt: "2", spltType: "str", stream: false })], send: one({ payload: "123" }), expect: 2 },
  {
    name: "streams a string at new lines across messages",
    nodes: [split({ splt: "\n", stream: true })],
    send: [{ msg: { payload: "1\n2\n3" } }, { msg: { payload: "4\n5\n6\n" } }],
    expect: 5,
  },
  {
    name: "streams a string into lengths across messages",
    nodes: [split({ splt: "3", spltType: "len", stream: true })],
    send: [{ msg: { payload: "12345" } }, { msg: { payload: "6789" } }],
    expect: 3,
  },
  { name: "keeps an enclosing sequence's parts as parts.parts", nodes: [split()], send: one({ payload: ["a", "b"], parts: { id: "outer", index: 1, count: 3, type: "array" } }), expect: 2 },
  { name: "drops a message without the property", nodes: [split()], send: [{ msg: { topic: "no payload" } }, { msg: { payload: 5 } }, { msg: { payload: true } }] },
  { name: "an empty array sends nothing", nodes: [split()], send: one({ payload: [] }) },
  { name: "an empty string sends one empty part", nodes: [split()], send: one({ payload: "" }), expect: 1 },
  {
    name: "split then a second split (nested parts)",
    nodes: [{ id: "s1", type: "split", wires: [["s2"]] }, { id: "s2", type: "split", splt: ",", wires: [["out"]] }],
    send: one({ payload: ["a,b", "c"] }),
    expect: 3,
  },
  // Messages are JSON here: a trigger node turns the input into a Buffer payload first.
  {
    name: "splits a buffer into lengths",
    nodes: [bufferOf("[49,50,51,52,53,54,55]", "bs"), { id: "bs", type: "split", splt: "2", spltType: "len", wires: [["out"]] }],
    send: one({ payload: "go" }),
    expect: 4,
  },
  {
    // Ends with the separator: Node-RED counts 4 parts and sends 3 (kept as it is).
    name: "splits a buffer at a byte",
    nodes: [bufferOf("[49,50,52,51,52,52]", "bs"), { id: "bs", type: "split", splt: "[52]", spltType: "bin", wires: [["out"]] }],
    send: one({ payload: "go" }),
    expect: 3,
  },
  {
    name: "splits a buffer at a string, and join puts it back",
    nodes: [bufferOf("[97,44,98,44,99]", "bs"), { id: "bs", type: "split", splt: ",", wires: [["j"]] }, { id: "j", type: "join", mode: "auto", wires: [["out"]] }],
    send: one({ payload: "go" }),
    expect: 1,
  },
  {
    name: "streams buffers into lengths across messages",
    nodes: [bufferOf("[49,50,51]", "bs"), { id: "bs", type: "split", splt: "2", spltType: "len", stream: true, wires: [["out"]] }],
    send: [{ msg: { payload: "a" } }, { msg: { payload: "b" }, delayMs: 20 }],
    expect: 3,
  },
];

/** A trigger node that sends `bytes` as a Buffer payload to `target`, and nothing second. */
function bufferOf(bytes: string, target: string) {
  return { id: "buf", type: "trigger", op1: bytes, op1type: "bin", op2: "", op2type: "nul", duration: "0", reset: "", bytopic: "topic", topic: "payload", outputs: 1, wires: [[target]] };
}
