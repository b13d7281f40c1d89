import type { DiffCase } from "../../../test/node-red-diff/types";

/** status against Node-RED 4.1 (after Flow_spec.js #handleStatus): function nodes report statuses. */
const reporter = (id: string, status: string, wires: string[][] = []) => ({
  id,
  type: "function",
  name: `reporter ${id}`,
  func: `node.status(${status}); return msg;`,
  outputs: 1,
  noerr: 0,
  initialize: "",
  finalize: "",
  libs: [],
  wires,
});
const status = (id: string, scope: string[] | null, collector: string) => ({ id, type: "status", name: "", scope, wires: [[collector]] });

export const cases: DiffCase[] = [
  {
    name: "passes a status to every status node of the flow",
    nodes: [reporter("1", "{ fill: 'green', shape: 'dot', text: 'my-status' }"), status("sn", null, "out1"), status("sn2", null, "out2")],
    send: [{ msg: { payload: 1 } }],
    expect: 2,
  },
  {
    name: "a scoped status node reports only its nodes",
    nodes: [reporter("1", "{ fill: 'red', shape: 'ring', text: 'one' }", [["2"]]), reporter("2", "{ fill: 'blue', shape: 'dot', text: 'two' }"), status("sn", ["2"], "out")],
    send: [{ msg: { payload: 1 } }],
    expect: 1,
    settleMs: 300,
  },
  {
    name: "a number as status text becomes a string",
    nodes: [reporter("1", "{ fill: 'yellow', shape: 'ring', text: 42 }"), status("sn", null, "out")],
    send: [{ msg: { payload: 1 } }],
    expect: 1,
  },
  {
    name: "a cleared status carries only its source",
    nodes: [reporter("1", "{}"), status("sn", null, "out")],
    send: [{ msg: { payload: 1 } }],
    expect: 1,
  },
];
