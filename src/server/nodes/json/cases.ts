/** Differential cases for the json node, from Node-RED's test/nodes/core/parsers/70-JSON_spec.js. */
import type { DiffCase } from "@/test/node-red-diff/types";

const schema = { title: "testSchema", type: "object", properties: { number: { type: "number" }, string: { type: "string" } } };
const json = (props: Record<string, unknown> = {}) => ({ id: "j", type: "json", wires: [["out"]], ...props });
/** A catch node for the json node's errors, wired to its own collector. */
/** A catch node for the node's errors; a change node copies msg.error.message to msg.errmsg for the "errors" collector. */
const caught = [
  { id: "c", type: "catch", scope: ["j"], uncaught: false, wires: [["m"]] },
  { id: "m", type: "change", rules: [{ t: "set", p: "errmsg", pt: "msg", to: "error.message", tot: "msg" }], wires: [["errors"]] },
];

export const cases: DiffCase[] = [
  {
    name: "parses a JSON string with whitespace around it",
    nodes: [json()],
    send: [{ msg: { payload: ' {"employees":[{"firstName":"John", "lastName":"Smith"}]}\r\n ', topic: "bar" } }],
    expect: 1,
  },
  {
    name: "stringifies an object, an array, a boolean and a number; parses a boolean and a number",
    nodes: [json()],
    send: [{ msg: { payload: { employees: [{ firstName: "John", lastName: "Smith" }] } } }, { msg: { payload: [1, 2, 3] } }, { msg: { payload: true } }, { msg: { payload: 2019 } }, { msg: { payload: "true" } }, { msg: { payload: "1962" } }],
    expect: 6,
  },
  {
    name: "pretty prints with four spaces",
    nodes: [json({ pretty: true })],
    send: [{ msg: { payload: { a: [1, { b: null }] } } }],
    expect: 1,
  },
  {
    name: "passes a message without the property straight through",
    nodes: [json()],
    send: [{ msg: { topic: "bar" } }],
    expect: 1,
  },
  {
    name: "action str: ensures a string, leaves a string alone",
    nodes: [json({ action: "str" })],
    send: [{ msg: { payload: { employees: [{ firstName: "John" }] }, topic: "bar" } }, { msg: { payload: "not json", topic: "bar" } }],
    expect: 2,
  },
  {
    name: "action obj: ensures an object",
    nodes: [json({ action: "obj" })],
    send: [{ msg: { payload: { employees: [{ firstName: "John" }] }, topic: "bar" } }, { msg: { payload: '{"employees":[{"firstName":"John"}]}', topic: "bar" } }],
    expect: 2,
  },
  {
    name: "any msg property: string to object and object to string",
    nodes: [json({ property: "one.two" })],
    send: [{ msg: { payload: "", one: { two: '{"employees":[{"firstName":"John"}]}' }, topic: "bar" } }, { msg: { payload: "", one: { two: { a: 1 } } } }],
    expect: 2,
  },
  {
    name: "an invalid JSON string goes to catch with JSON.parse's message",
    nodes: [json(), ...caught],
    send: [{ msg: { payload: "foo", topic: "bar" } }],
    expect: 1,
    compare: ["payload", "topic", "errmsg"],
  },
  {
    name: "valid string and object with schema pass, schema deleted (auto)",
    nodes: [json()],
    send: [{ msg: { payload: '{"number": 3, "string": "allo"}', schema } }, { msg: { payload: { number: 3, string: "allo" }, schema } }],
    expect: 2,
  },
  {
    name: "a valid object with schema and action obj passes as an object",
    nodes: [json({ action: "obj" })],
    send: [{ msg: { payload: { number: 3, string: "allo" }, schema } }],
    expect: 1,
  },
  {
    name: "a valid JSON string with schema and action str stays a string without schema",
    nodes: [json({ action: "str" })],
    send: [{ msg: { payload: '{"number":3,"string":"allo"}', schema } }, { msg: { payload: { number: 3, string: "allo" }, schema } }],
    expect: 2,
  },
  {
    name: "an object failing the schema goes to catch with schemaError",
    nodes: [json(), ...caught],
    send: [{ msg: { payload: { number: "foo", string: 3 }, schema } }],
    expect: 1,
    compare: ["payload", "schemaError", "errmsg"],
  },
  {
    name: "a JSON string failing the schema goes to catch (auto and str)",
    nodes: [json(), ...caught],
    send: [{ msg: { payload: '{"number":"Hello","string":3}', schema } }],
    expect: 1,
    compare: ["payload", "schemaError", "errmsg"],
  },
  {
    name: "a JSON string failing the schema with action str goes to catch",
    nodes: [json({ action: "str" }), ...caught],
    send: [{ msg: { payload: '{"number":"Hello","string":3}', schema } }],
    expect: 1,
    compare: ["payload", "schemaError", "errmsg"],
  },
  {
    name: "a schema that does not compile goes to catch",
    nodes: [json(), ...caught],
    send: [{ msg: { payload: { number: "foo", string: 3 }, schema: "garbage" } }],
    expect: 1,
    compare: ["payload", "errmsg"],
  },
  {
    name: "differs: a schema pattern with a backreference fails to compile",
    nodes: [json(), ...caught],
    send: [{ msg: { payload: '"aa"', schema: { type: "string", pattern: "^(a)\\1$" } } }],
    settleMs: 200,
    compare: ["payload", "errmsg"],
    differs: "schema patterns run on RE2 (linear time) so a schema cannot stall the shared runtime; RE2 has no backreferences, so this schema does not compile (json.test.ts asserts ours)",
  },
  {
    name: "differs: a nested property is validated by its value",
    nodes: [json({ property: "one.two" }), ...caught],
    send: [{ msg: { one: { two: '{"number":3,"string":"allo"}' }, schema } }],
    settleMs: 200,
    compare: ["one", "errmsg"],
    differs: 'Node-RED validates msg["one.two"] (never there) instead of the property it parsed; we validate the parsed value (json.test.ts asserts ours)',
  },
];
