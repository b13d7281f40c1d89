/** Differential cases for the xml node, from Node-RED's test/nodes/core/parsers/70-XML_spec.js and its help. */
import type { DiffCase } from "@/test/node-red-diff/types";

const xml = (props: Record<string, unknown> = {}) => ({ id: "x", type: "xml", wires: [["out"]], ...props });
/** A catch node for the node's errors; a change node copies msg.error.message to msg.errmsg for the "errors" collector. */
const caught = [
  { id: "c", type: "catch", scope: ["x"], uncaught: false, wires: [["m"]] },
  { id: "m", type: "change", rules: [{ t: "set", p: "errmsg", pt: "msg", to: "error.message", tot: "msg" }], wires: [["errors"]] },
];
const employees = "  <employees><firstName>John</firstName><lastName>Smith</lastName></employees>\r\n  ";

export const cases: DiffCase[] = [
  { name: "parses an XML string", nodes: [xml()], send: [{ msg: { payload: employees, topic: "bar" } }], expect: 1 },
  { name: "parses an XML string in another property", nodes: [xml({ property: "foo" })], send: [{ msg: { foo: employees, topic: "bar" } }], expect: 1 },
  { name: "parses with msg.options (trim), which comes back with async, attrkey and charkey", nodes: [xml()], send: [{ msg: { payload: employees, topic: "bar", options: { trim: true } } }], expect: 1 },
  { name: "attributes and text under $ and _ (the help's example)", nodes: [xml()], send: [{ msg: { payload: '<p class="tag">Hello World</p>' } }], expect: 1 },
  {
    name: "configured attribute and text keys win over msg.options",
    nodes: [xml({ attr: "attrs", chr: "text" })],
    send: [{ msg: { payload: '<p class="tag">Hi<b>x</b></p>', options: { attrkey: "A", explicitArray: false } } }],
    expect: 1,
  },
  { name: "builds XML from an object, without indentation", nodes: [xml()], send: [{ msg: { payload: { employees: { firstName: ["John"], lastName: ["Smith"] } }, topic: "bar" } }], expect: 1 },
  {
    name: "builds XML with msg.options (headless) in another property",
    nodes: [xml({ property: "foo" })],
    send: [{ msg: { foo: { employees: { firstName: ["John"], lastName: ["Smith"] } }, topic: "bar", options: { headless: true } } }],
    expect: 1,
  },
  { name: "builds attributes and text from $ and _", nodes: [xml()], send: [{ msg: { payload: { p: { $: { class: "tag" }, _: "Hello World" } } } }], expect: 1 },
  { name: "invalid XML goes to catch", nodes: [xml(), ...caught], send: [{ msg: { payload: "<not valid>", topic: "bar" } }], expect: 1, compare: ["payload", "topic", "errmsg"] },
  { name: "a DOCTYPE entity is not expanded (strict: error)", nodes: [xml(), ...caught], send: [{ msg: { payload: '<!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>' } }], expect: 1, compare: ["payload", "errmsg"] },
  { name: "a number is dropped", nodes: [xml()], send: [{ msg: { payload: 1 } }, { msg: { payload: "<a>1</a>" } }], expect: 1 },
  { name: "passes a message without the property straight through", nodes: [xml()], send: [{ msg: { topic: "bar" } }], expect: 1 },
];
