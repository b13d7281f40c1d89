import type { DiffCase } from "../../../test/node-red-diff/types";

/**
 * catch against Node-RED 4.1 (after Flow_spec.js #handleError): scopes, "uncaught only", an existing
 * msg.error moved to msg._error. The failing node is a link-call whose call times out (its error,
 * "timeout", is a string: an Error's would carry a stack, which we leave out, see link-call's cases).
 */
const failing = (id: string) => ({ id, type: "link call", name: "", links: [`${id}-in`], linkType: "static", timeout: "0.05", wires: [] });
const silent = (id: string) => ({ id: `${id}-in`, type: "link in", name: "", links: [], wires: [] });
const catchOf = (id: string, scope: string[] | null, collector: string, uncaught = false) => ({ id, type: "catch", name: "", scope, uncaught, wires: [[collector]] });

export const cases: DiffCase[] = [
  {
    name: "catches errors of every node of the flow",
    nodes: [failing("bad"), silent("bad"), catchOf("c", null, "out")],
    send: [{ msg: { payload: "p", topic: "t" } }],
    expect: 1,
  },
  {
    name: "'uncaught only' gets nothing when another catch node took the error",
    nodes: [failing("bad"), silent("bad"), catchOf("all", null, "out-all"), catchOf("uncaught", null, "out-uncaught", true)],
    send: [{ msg: { payload: "p" } }],
    expect: 1,
    settleMs: 300,
  },
  {
    name: "'uncaught only' gets what no other catch node took",
    nodes: [failing("bad"), silent("bad"), failing("other"), silent("other"), catchOf("scoped", ["other"], "out-scoped"), catchOf("uncaught", null, "out-uncaught", true), catchOf("uncaught2", null, "out-uncaught2", true)],
    send: [{ msg: { payload: "p" } }],
    expect: 2,
    settleMs: 300,
  },
  {
    name: "a scoped catch node ignores the other nodes",
    nodes: [failing("bad"), silent("bad"), failing("other"), silent("other"), catchOf("scoped", ["other"], "out")],
    send: [{ msg: { payload: "p" } }],
    settleMs: 300,
  },
  {
    name: "moves any existing error object sideways",
    nodes: [failing("bad"), silent("bad"), catchOf("c", null, "out")],
    send: [{ msg: { payload: "p", error: "existing" } }],
    expect: 1,
  },
];
