import type { DiffCase } from "../../../test/node-red-diff/types";

/**
 * The function node against Node-RED 4.1 (cases after test/nodes/core/function/10-function_spec.js).
 * The code runs in our QuickJS sandbox; what it sends must be what Node-RED's vm sends.
 */
const fn = (func: string, extra: Record<string, unknown> = {}, wires: string[][] = [["out"]]) => ({
  id: "fn",
  type: "function",
  func,
  outputs: wires.length,
  noerr: 0,
  initialize: "",
  finalize: "",
  libs: [],
  ...extra,
  wires,
});

export const cases: DiffCase[] = [
  { name: "returns the message", nodes: [fn("return msg;")], send: [{ msg: { payload: "foo", topic: "bar" } }], expect: 1 },
  { name: "changes the payload", nodes: [fn("msg.payload = msg.payload.toUpperCase() + '!'; return msg;")], send: [{ msg: { payload: "foo" } }], expect: 1 },
  {
    name: "returns a new message (only payload)",
    nodes: [fn("return { payload: msg.payload * 2 };")],
    send: [{ msg: { payload: 21, topic: "t" } }],
    expect: 1,
  },
  { name: "returns null: nothing is sent", nodes: [fn("return null;")], send: [{ msg: { payload: 1 } }] },
  {
    name: "several outputs, null skips one",
    nodes: [fn("return [null, msg, { payload: 'third' }];", {}, [["out1"], ["out2"], ["out3"]])],
    send: [{ msg: { payload: "x" } }],
    expect: 2,
  },
  {
    name: "an array on one output sends each message in order",
    nodes: [fn("return [[{ payload: 1 }, { payload: 2 }, { payload: 3 }]];")],
    send: [{ msg: { payload: 0 } }],
    expect: 3,
  },
  {
    name: "node.send then return",
    nodes: [fn("node.send({ payload: 'sent' }); msg.payload = 'returned'; return msg;")],
    send: [{ msg: { payload: 0 } }],
    expect: 2,
  },
  {
    name: "context keeps state between messages",
    nodes: [fn("const n = (context.get('n') || 0) + 1; context.set('n', n); msg.payload = n; return msg;")],
    send: [{ msg: {} }, { msg: {} }, { msg: {} }],
    expect: 3,
  },
  {
    name: "async code with await",
    nodes: [fn("await new Promise((r) => setTimeout(r, 20)); msg.payload = 'later'; return msg;")],
    send: [{ msg: { payload: 0 } }],
    expect: 1,
  },
  {
    name: "setTimeout sends later with node.send",
    nodes: [fn("setTimeout(() => node.send({ payload: 'tick' }), 30); return null;")],
    send: [{ msg: {} }],
    expect: 1,
  },
  {
    name: "nested objects and arrays survive",
    nodes: [fn("msg.payload = { list: [1, 'two', { three: 3 }], nothing: null, yes: true }; return msg;")],
    send: [{ msg: {} }],
    expect: 1,
  },
  {
    name: "RED.util.cloneMessage copies",
    nodes: [fn("const copy = RED.util.cloneMessage(msg); copy.payload.a = 2; return [[msg, copy]];")],
    send: [{ msg: { payload: { a: 1 } } }],
    expect: 2,
  },
  {
    name: "env.get reads the tab's variables and the built-in names",
    nodes: [fn("msg.payload = [env.get('GREETING'), env.get('API_URL'), env.get('NR_NODE_ID'), env.get('NR_FLOW_NAME'), env.get('MISSING') === undefined]; return msg;")],
    env: { GREETING: "hello", API_URL: "https://api.example.test/v1" },
    send: [{ msg: {} }],
    expect: 1,
  },
  {
    name: "env.get of a name that is not defined is undefined",
    nodes: [fn("msg.payload = typeof env.get('NOT_DEFINED'); return msg;")],
    env: { OTHER: "x" },
    send: [{ msg: {} }],
    expect: 1,
  },
  // Flow and global context (issue 23), after Node-RED's 10-function_spec.js context tests.
  {
    name: "flow context: get, set and keys, with a preset value",
    nodes: [fn("flow.set('count', (flow.get('count') || 0) + 1); msg.payload = [flow.get('count'), flow.get('preset'), flow.keys()]; return msg;")],
    flow: { preset: { a: 1 } },
    send: [{ msg: {} }, { msg: {} }],
    expect: 2,
  },
  {
    name: "global context: get, set and keys, with a preset value",
    nodes: [fn("global.set('double', global.get('g') * 2); msg.payload = [global.get('double'), global.keys().sort()]; return msg;")],
    global: { g: 21 },
    send: [{ msg: {} }],
    expect: 1,
  },
  {
    name: "context.flow and context.global reach the same stores",
    nodes: [fn("context.flow.set('f', 'via context.flow'); msg.payload = [flow.get('f'), context.global.get('g')]; return msg;")],
    global: { g: "global value" },
    send: [{ msg: {} }],
    expect: 1,
  },
  {
    name: "flow context set to undefined deletes the key",
    nodes: [fn("flow.set('gone', 1); flow.set('gone', undefined); msg.payload = [flow.get('gone') === undefined, flow.keys()]; return msg;")],
    send: [{ msg: {} }],
    expect: 1,
  },
  {
    name: "flow context shared by two function nodes of the flow",
    nodes: [
      { ...fn("flow.set('seen', msg.payload); return msg;"), id: "w", wires: [["r"]] },
      { ...fn("msg.payload = 'read ' + flow.get('seen'); return msg;"), id: "r", wires: [["out"]] },
    ],
    input: "w",
    send: [{ msg: { payload: "x" } }],
    expect: 1,
  },
  {
    name: "context callback forms",
    nodes: [fn("flow.set('k', 5, function (err) { flow.get('k', function (err2, v) { msg.payload = [err, err2, v]; node.send(msg); }); }); return null;")],
    send: [{ msg: {} }],
    expect: 1,
  },
];
