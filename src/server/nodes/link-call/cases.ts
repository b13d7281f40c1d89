import type { DiffCase } from "../../../test/node-red-diff/types";

/**
 * link-call against Node-RED 4.1 (after test/nodes/core/common/60-link_spec.js), within one tab: the
 * called flow's answer, by static target, by name and by id, nested calls, the timeout and the
 * lookup errors as catch nodes see them.
 */
/** Node-RED's msg.error of an Error carries its stack (the server's file paths); ours leaves it out (links.test.ts asserts ours). */
const NO_STACK = "msg.error has no stack: a stack trace would show the server's files";

const linkIn = (id: string, wires: string[][], name = "") => ({ id, type: "link in", name, links: [], wires });
const ret = (id: string) => ({ id, type: "link out", name: "", mode: "return", links: [], wires: [] });
const call = (id: string, extra: Record<string, unknown>, wires: string[][]) => ({ id, type: "link call", name: "", links: [], linkType: "static", timeout: "30", ...extra, wires });
const set = (id: string, p: string, to: string, wires: string[][]) => ({ id, type: "change", name: "", rules: [{ t: "set", p, pt: "msg", to, tot: "str" }], wires });
const catchOf = (id: string, scope: string[] | null, wires: string[][], uncaught = false) => ({ id, type: "catch", name: "", scope, uncaught, wires });

export const cases: DiffCase[] = [
  {
    name: "should call static link-in node and get response",
    nodes: [call("link-call", { links: ["link-in-1"] }, [["out"]]), linkIn("link-in-1", [["func"]]), set("func", "payload", "123", [["link-out-1"]]), ret("link-out-1")],
    send: [{ msg: { payload: "hello", topic: "t" } }],
    expect: 1,
  },
  {
    name: "should call link-in node by name and get response",
    nodes: [call("link-call", { linkType: "dynamic" }, [["out"]]), linkIn("link-in-1", [["func"]], "double payload"), set("func", "doubled", "yes", [["link-out-1"]]), ret("link-out-1")],
    send: [{ msg: { payload: 4, target: "double payload" } }],
    expect: 1,
  },
  {
    name: "dynamic: msg.target as the link-in's id",
    nodes: [call("link-call", { linkType: "dynamic" }, [["out"]]), linkIn("link-in-1", [["func"]], "named"), set("func", "served", "yes", [["link-out-1"]]), ret("link-out-1")],
    send: [{ msg: { payload: 1, target: "link-in-1" } }],
    expect: 1,
  },
  {
    name: "answers come back in order",
    nodes: [call("link-call", { links: ["li"] }, [["out"]]), linkIn("li", [["func"]]), set("func", "served", "yes", [["lo"]]), ret("lo")],
    send: [{ msg: { payload: 1 } }, { msg: { payload: 2 } }, { msg: { payload: 3 } }],
    expect: 3,
  },
  {
    name: "should allow nested link-call flows",
    nodes: [
      call("link-call", { links: ["li3"] }, [["out"]]),
      linkIn("li1", [["m2"]]),
      set("m2", "two", "yes", [["lo1"]]),
      ret("lo1"),
      linkIn("li2", [["m3"]]),
      set("m3", "three", "yes", [["lo2"]]),
      ret("lo2"),
      linkIn("li3", [["link-call-1"]]),
      call("link-call-1", { links: ["li1"] }, [["link-call-2"]]),
      call("link-call-2", { links: ["li2"] }, [["lo3"]]),
      ret("lo3"),
    ],
    send: [{ msg: { payload: 4 } }],
    expect: 1,
  },
  {
    name: "should timeout waiting for link return",
    nodes: [
      call("link-call", { links: ["link-in-1"], timeout: "0.3" }, [["out"]]),
      linkIn("link-in-1", [["func"]], "double payload"),
      set("func", "payload", "changed", [["link-out-1"]]),
      { id: "link-out-1", type: "link out", name: "", mode: "", links: [], wires: [] },
      catchOf("catch-all", ["link-call"], [["caught"]], true),
    ],
    send: [{ msg: { payload: "hello", target: "double payload" } }],
    expect: 1,
    settleMs: 500,
  },
  {
    name: "should raise error due to multiple targets on same tab",
    differs: NO_STACK,
    nodes: [
      call("link-call", { linkType: "dynamic" }, [["out"]]),
      linkIn("link-in-1", [["never"]], "double payload"),
      linkIn("link-in-2", [["never"]], "double payload"),
      catchOf("catch-all", ["link-call"], [["caught"]], true),
    ],
    send: [{ msg: { payload: "hello", target: "double payload" } }],
    expect: 1,
  },
  {
    name: "a static target that does not exist is an error",
    differs: NO_STACK,
    nodes: [call("link-call", { links: ["nope"] }, [["out"]]), catchOf("catch-all", null, [["caught"]])],
    send: [{ msg: { payload: "hello" } }],
    expect: 1,
  },
  {
    name: "dynamic without msg.target is an error",
    differs: NO_STACK,
    nodes: [call("link-call", { linkType: "dynamic" }, [["out"]]), linkIn("li", [["never"]], "x"), catchOf("catch-all", null, [["caught"]])],
    send: [{ msg: { payload: "hello" } }],
    expect: 1,
  },
];
