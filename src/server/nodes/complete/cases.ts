import type { DiffCase } from "../../../test/node-red-diff/types";

/** complete against Node-RED 4.1 (after Flow_spec.js #handleComplete). */
const set = (id: string, p: string, to: string, wires: string[][]) => ({ id, type: "change", name: "", rules: [{ t: "set", p, pt: "msg", to, tot: "str" }], wires });
const complete = (id: string, scope: string[], collector: string) => ({ id, type: "complete", name: "", scope, uncaught: false, wires: [[collector]] });

export const cases: DiffCase[] = [
  {
    name: "fires for each node in its scope that finished with the message",
    nodes: [set("1", "first", "yes", [["2"]]), set("2", "second", "yes", [["out"]]), complete("cn", ["1", "2"], "done")],
    send: [{ msg: { payload: "hello world" } }],
    expect: 3,
    settleMs: 300,
  },
  {
    name: "not for a node outside its scope",
    nodes: [set("1", "first", "yes", [["2"]]), set("2", "second", "yes", []), complete("cn", ["2"], "done")],
    send: [{ msg: { payload: 1 } }, { msg: { payload: 2 } }],
    expect: 2,
    settleMs: 300,
  },
  {
    name: "not for a node that failed",
    nodes: [{ id: "bad", type: "link call", name: "", links: ["missing"], linkType: "static", timeout: "30", wires: [] }, complete("cn", ["bad"], "done")],
    send: [{ msg: { payload: 1 } }],
    settleMs: 300,
  },
];
