import type { DiffCase } from "../../../test/node-red-diff/types";

/** link-out "link" mode and link-in against Node-RED 4.1 (after test/nodes/core/common/60-link_spec.js), within one tab. */
const linkOut = (id: string, links: string[], mode = "link") => ({ id, type: "link out", name: "", mode, links, wires: [] as string[][] });
const linkIn = (id: string, links: string[], wires: string[][]) => ({ id, type: "link in", name: "", links, wires });

export const cases: DiffCase[] = [
  {
    name: "should be linked",
    nodes: [linkOut("n1", ["n2"]), linkIn("n2", ["n1"], [["out"]])],
    send: [{ msg: { payload: "hello", topic: "t" } }],
    expect: 1,
  },
  {
    name: "should be linked to multiple nodes",
    nodes: [linkOut("n1", ["n2", "n3"]), linkIn("n2", ["n1"], [["out1"]]), linkIn("n3", ["n1"], [["out2"]])],
    send: [{ msg: { payload: "hello" } }],
    expect: 2,
  },
  {
    name: "several messages keep their order",
    nodes: [linkOut("n1", ["n2"]), linkIn("n2", ["n1"], [["out"]])],
    send: [{ msg: { payload: 1 } }, { msg: { payload: 2 } }, { msg: { payload: 3 } }],
    expect: 3,
  },
  {
    name: "a link-in that lists the link-out is reached (Node-RED joins both lists)",
    nodes: [linkOut("n1", []), linkIn("n2", ["n1"], [["out"]])],
    send: [{ msg: { payload: "joined" } }],
    expect: 1,
  },
  {
    name: "return mode without a caller sends nothing",
    nodes: [linkOut("n1", [], "return"), linkIn("n2", [], [["out"]])],
    send: [{ msg: { payload: "lost" } }],
  },
];
