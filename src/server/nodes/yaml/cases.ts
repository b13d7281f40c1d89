/** Differential cases for the yaml node, from Node-RED's test/nodes/core/parsers/70-YAML_spec.js. */
import type { DiffCase } from "@/test/node-red-diff/types";

const yaml = (props: Record<string, unknown> = {}) => ({ id: "y", type: "yaml", wires: [["out"]], ...props });
/** A catch node for the node's errors; a change node copies msg.error.message to msg.errmsg for the "errors" collector. */
const caught = [
  { id: "c", type: "catch", scope: ["y"], uncaught: false, wires: [["m"]] },
  { id: "m", type: "change", rules: [{ t: "set", p: "errmsg", pt: "msg", to: "error.message", tot: "msg" }], wires: [["errors"]] },
];

export const cases: DiffCase[] = [
  {
    name: "parses a YAML string",
    nodes: [yaml()],
    send: [{ msg: { payload: "employees:\n  - firstName: John\n    lastName: Smith\n", topic: "bar" } }],
    expect: 1,
  },
  {
    name: "parses a YAML string in another property",
    nodes: [yaml({ property: "foo" })],
    send: [{ msg: { foo: "employees:\n  - firstName: John\n    lastName: Smith\n", topic: "bar" } }],
    expect: 1,
  },
  {
    name: "writes an object, an array and null as YAML",
    nodes: [yaml()],
    send: [{ msg: { payload: { employees: [{ firstName: "John", lastName: "Smith" }] } } }, { msg: { payload: [1, 2, 3] } }, { msg: { payload: null } }],
    expect: 3,
  },
  {
    name: "writes an object in another property as YAML",
    nodes: [yaml({ property: "foo" })],
    send: [{ msg: { foo: { employees: [{ firstName: "John", lastName: "Smith" }] } } }],
    expect: 1,
  },
  {
    name: "invalid YAML goes to catch with js-yaml's message",
    nodes: [yaml(), ...caught],
    send: [{ msg: { payload: "employees:\n-firstName: John\n- lastName: Smith\n", topic: "bar" } }],
    expect: 1,
    compare: ["payload", "topic", "errmsg"],
  },
  {
    name: "booleans and numbers are dropped",
    nodes: [yaml()],
    send: [{ msg: { payload: true } }, { msg: { payload: 1 } }, { msg: { payload: "ok: yes" } }],
    expect: 1,
  },
  {
    name: "passes a message without the property straight through",
    nodes: [yaml()],
    send: [{ msg: { topic: "bar" } }],
    expect: 1,
  },
];
