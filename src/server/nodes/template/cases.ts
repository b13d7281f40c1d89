import type { DiffCase } from "../../../test/node-red-diff/types";

/** The template node against Node-RED 4.1 (cases after test/nodes/core/function/80-template_spec.js). */
const template = (t: string, extra: Record<string, unknown> = {}) => ({
  id: "t",
  type: "template",
  name: "",
  field: "payload",
  fieldType: "msg",
  format: "handlebars",
  syntax: "mustache",
  template: t,
  output: "str",
  wires: [["out"]],
  ...extra,
});
const one = (name: string, node: Record<string, unknown>, msg: Record<string, unknown>, extra: Partial<DiffCase> = {}): DiffCase => ({ name, nodes: [node as DiffCase["nodes"][number]], send: [{ msg }], expect: 1, ...extra });

export const cases: DiffCase[] = [
  one("payload from the configured template", template("payload={{payload}}"), { payload: "foo", topic: "bar" }),
  one("another property", template("payload={{payload}}", { field: "randomProperty" }), { payload: "foo", topic: "bar" }),
  one("msg.template when the node has none", template(""), { payload: "foo", template: "payload={{payload}}" }),
  one("the node's template wins over msg.template", template("payload={{payload}}"), { payload: "foo", template: "other={{payload}}" }),
  one("env variable", template("payload={{env.TEST}}"), { payload: "foo" }, { env: { TEST: "xyz" } }),
  one("flow context", template("payload={{flow.value}}"), { payload: "foo" }, { flow: { value: "foo" } }),
  one("nested flow context", template("payload={{flow.obj.a}} {{flow.list.1}}"), { payload: "foo" }, { flow: { obj: { a: 1 }, list: [5, 6] } }),
  one("global context", template("payload={{global.value}}"), { payload: "foo" }, { global: { value: "bar" } }),
  one("missing context is empty", template("payload={{flow.nope}}-{{global.nope}}-{{missing}}"), { payload: "foo" }),
  one("nested context tags in a section", template("{{#flow.obj}}a={{a}} {{flow.x}}{{/flow.obj}}"), { payload: "foo" }, { flow: { obj: { a: 1 }, x: "y" } }),
  one("HTML escaping and triple braces", template("{{payload}} {{{payload}}}"), { payload: "<b>&</b>" }),
  one("JSON output", template('{"greeting": "Hello {{payload.name}}", "n": {{payload.n}}}', { output: "json" }), { payload: { name: "Fred", n: 3 } }),
  one("JSON output escapes strings", template('{"text": "{{{payload}}}"}', { output: "json" }), { payload: "a line\nwith\ttabs and \\ backslash" }),
  one("JSON output does not escape quotes: invalid JSON", template('{"text": "{{{payload}}}"}', { output: "json" }), { payload: 'a "quoted" word' }, { expect: undefined }),
  one("YAML output", template("name: {{payload.name}}\nlist:\n  - a\n  - {{payload.n}}\n", { output: "yaml" }), { payload: { name: "Fred", n: 3 } }),
  one("plain text", template("payload={{payload}}", { syntax: "plain" }), { payload: "foo" }),
  one("deeper objects", template("payload={{payload.A}}, topic={{topic.foo.bar}}"), { payload: { A: "abc" }, topic: { foo: { bar: "xyz" } } }),
  one("block sections", template("{{#payload}}{{.}},{{/payload}}"), { payload: [1, 2, 3] }),
  one("changed delimiters", template("{{=[[ ]]=}}payload=[[payload]] {{x}}"), { payload: "foo" }),
  one("to flow context, read back", template("payload={{payload}}", { field: "result", fieldType: "flow" }), { payload: "foo" }, {
    nodes: [
      template("payload={{payload}}", { field: "result", fieldType: "flow", wires: [["t2"]] }),
      template("{{flow.result}}!", { id: "t2", field: "echo" }),
    ],
  }),
  one("to global context, read back", template("x", { field: "a.b", fieldType: "global" }), { payload: "foo" }, {
    nodes: [template("{{payload}}", { field: "a.b", fieldType: "global", wires: [["t2"]] }), template("{{global.a.b}}", { id: "t2", field: "echo" })],
  }),
  one("invalid JSON output sends nothing", template("{{payload}}", { output: "json" }), { payload: "not json" }, { expect: undefined }),
];
