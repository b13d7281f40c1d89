import type { DiffCase } from "../../../test/node-red-diff/types";

/** The change node against Node-RED 4.1 (cases after test/nodes/core/function/15-change_spec.js). */
const change = (rules: Array<Record<string, unknown>>, wires: string[][] = [["out"]]) => ({ id: "c", type: "change", name: "", rules, wires });
const one = (name: string, rules: Array<Record<string, unknown>>, msg: Record<string, unknown>, extra: Partial<DiffCase> = {}): DiffCase => ({
  name,
  nodes: [change(rules)],
  send: [{ msg }],
  expect: 1,
  ...extra,
});

export const cases: DiffCase[] = [
  one("no rules: the message passes unchanged", [], { payload: "x", topic: "t" }),
  // set
  one("sets a string", [{ t: "set", p: "payload", pt: "msg", to: "changed", tot: "str" }], { payload: "x" }),
  one("sets a number", [{ t: "set", p: "payload", pt: "msg", to: "12345", tot: "num" }], { payload: "x" }),
  one("sets a boolean", [{ t: "set", p: "payload", pt: "msg", to: "true", tot: "bool" }], { payload: "x" }),
  one("sets JSON", [{ t: "set", p: "payload", pt: "msg", to: '{"a":123}', tot: "json" }], { payload: "x" }),
  one("sets a buffer", [{ t: "set", p: "payload", pt: "msg", to: "[72,101,108,108,111]", tot: "bin" }], { payload: "x" }),
  one("sets an existing multi-level property", [{ t: "set", p: "foo.bar", pt: "msg", to: "bar", tot: "str" }], { foo: { bar: "foo" } }),
  one("sets an empty multi-level property", [{ t: "set", p: "foo.bar", pt: "msg", to: "bar", tot: "str" }], { payload: "" }),
  one("sets from another message property", [{ t: "set", p: "foo", pt: "msg", to: "fred", tot: "msg" }], { fred: { a: 1 } }),
  one("sets from a multi-level property", [{ t: "set", p: "foo.bar", pt: "msg", to: "fred.red", tot: "msg" }], { fred: { red: "apple" } }),
  one("a missing source property deletes the target", [{ t: "set", p: "payload", pt: "msg", to: "foo", tot: "msg" }], { payload: "Hello" }),
  one("a null source property sets null", [{ t: "set", p: "payload", pt: "msg", to: "foo", tot: "msg" }], { payload: "Hello", foo: null }),
  one("splits dot delimited properties into objects", [{ t: "set", p: "pay.load", pt: "msg", to: "10", tot: "str" }], { payload: "" }),
  one("legacy single-rule replace", [], { payload: "x" }, {
    nodes: [{ id: "c", type: "change", action: "replace", property: "payload", from: "", to: "changed", reg: false, wires: [["out"]] }],
  }),
  one("legacy set from msg. prefix", [], { fred: 5 }, {
    nodes: [{ id: "c", type: "change", rules: [{ t: "set", p: "payload", to: "msg.fred" }], wires: [["out"]] }],
  }),
  one("cannot set beneath a string: unchanged", [{ t: "set", p: "payload.a", pt: "msg", to: "1", tot: "str" }], { payload: "text" }),
  one("sets from flow context", [{ t: "set", p: "payload", pt: "msg", to: "flowValue", tot: "flow" }], { payload: "x" }, { flow: { flowValue: "Hello World!" } }),
  one("sets from a nested flow key", [{ t: "set", p: "payload", pt: "msg", to: "stats.total", tot: "flow" }], { payload: "x" }, { flow: { stats: { total: 7 } } }),
  one("sets from global context", [{ t: "set", p: "payload", pt: "msg", to: "globalValue", tot: "global" }], { payload: "x" }, { global: { globalValue: "Hello" } }),
  one(
    "writes flow and global context, read back",
    [
      { t: "set", p: "count", pt: "flow", to: "payload", tot: "msg" },
      { t: "set", p: "site", pt: "global", to: "north", tot: "str" },
      { t: "set", p: "a", pt: "msg", to: "count", tot: "flow" },
      { t: "set", p: "b", pt: "msg", to: "site", tot: "global" },
    ],
    { payload: 42 },
  ),
  // Bracket property expressions (RED.util.normalisePropertyExpression), in every place a property is typed.
  one("sets a bracketed key with a space", [{ t: "set", p: 'payload["a b"]', pt: "msg", to: "spaced", tot: "str" }], { payload: {} }),
  one("sets through a quoted key, creating objects", [{ t: "set", p: "payload['x'].y", pt: "msg", to: "deep", tot: "str" }], { payload: {} }),
  one("sets an array element, creating the array", [{ t: "set", p: "list[1]", pt: "msg", to: "second", tot: "str" }], { payload: 1 }),
  one("reads a bracketed key and an element", [{ t: "set", p: "payload", pt: "msg", to: 'data["the key"][1].v', tot: "msg" }], { data: { "the key": [{ v: 1 }, { v: 2 }] } }),
  one("a key given by another property (msg.a[msg.b])", [{ t: "set", p: "payload[msg.key]", pt: "msg", to: "topic", tot: "msg" }], { payload: { old: 1 }, key: "new", topic: "t" }),
  one("a nested reference as the value's key", [{ t: "set", p: "payload", pt: "msg", to: "lookup[msg.codes[msg.i]]", tot: "msg" }], { lookup: { a: "Alpha", b: "Beta" }, codes: ["a", "b"], i: 1 }),
  one("an undefined reference sets nothing", [{ t: "set", p: "payload[msg.missing]", pt: "msg", to: "x", tot: "str" }], { payload: {} }, { expect: undefined }),
  one("deletes a bracketed key", [{ t: "delete", p: 'payload["b c"]', pt: "msg" }], { payload: { a: 1, "b c": 2 } }),
  one("moves to a bracketed key", [{ t: "move", p: "payload['from here']", pt: "msg", to: 'payload["to there"]', tot: "msg" }], { payload: { "from here": 5 } }),
  one("a dotted number is a key", [{ t: "set", p: "payload.0.x", pt: "msg", to: "zero", tot: "str" }], { payload: {} }),
  one("flow context: a bracketed key and a key from the message", [
    { t: "set", p: 'stats["per day"]', pt: "flow", to: "payload", tot: "msg" },
    { t: "set", p: "users[msg.user]", pt: "flow", to: "topic", tot: "msg" },
    { t: "set", p: "a", pt: "msg", to: "stats['per day']", tot: "flow" },
    { t: "set", p: "b", pt: "msg", to: "users[msg.user]", tot: "flow" },
    { t: "set", p: "c", pt: "msg", to: "users.ann", tot: "flow" },
  ], { payload: 9, topic: "seen", user: "ann" }, { flow: { stats: {}, users: {} } }),
  one("sets from env", [{ t: "set", p: "payload", pt: "msg", to: "CITY", tot: "env" }], { payload: "x" }, { env: { CITY: "Oslo" } }),
  one("sets from env with ${}", [{ t: "set", p: "payload", pt: "msg", to: "${CITY}-${NOPE}!", tot: "env" }], { payload: "x" }, { env: { CITY: "Oslo" } }),
  one("a whole ${NAME} string reads the variable", [{ t: "set", p: "payload", pt: "msg", to: "${CITY}", tot: "str" }], { payload: "x" }, { env: { CITY: "Oslo" } }),
  one("sets with JSONata", [{ t: "set", p: "payload", pt: "msg", to: "$length(payload)", tot: "jsonata" }], { payload: "Hello World!" }),
  one("JSONata with msg", [{ t: "set", p: "payload", pt: "msg", to: "msg.payload & ' ' & msg.topic", tot: "jsonata" }], { payload: "a", topic: "b" }),
  one("JSONata object result", [{ t: "set", p: "payload", pt: "msg", to: '{"n": $count(payload), "s": $sum(payload)}', tot: "jsonata" }], { payload: [1, 2, 3] }),
  one("JSONata reads flow context", [{ t: "set", p: "payload", pt: "msg", to: '$flowContext("foo") & $globalContext("bar")', tot: "jsonata" }], { payload: "x" }, {
    flow: { foo: "flowValue" },
    global: { bar: "globalValue" },
  }),
  one("JSONata reads env", [{ t: "set", p: "payload", pt: "msg", to: "$env('CITY')", tot: "jsonata" }], { payload: "x" }, { env: { CITY: "Oslo" } }),
  // $moment (moment-timezone), which Node-RED binds in every JSONata expression.
  one("JSONata $moment formats in a time zone", [{ t: "set", p: "payload", pt: "msg", to: '$moment(payload).tz("Europe/Berlin").format("YYYY-MM-DD HH:mm Z")', tot: "jsonata" }], { payload: "2024-01-15T10:00:00Z" }),
  one("JSONata $moment with a format to parse", [{ t: "set", p: "payload", pt: "msg", to: '$moment(payload, "DD/MM/YYYY").add(1, "months").format("YYYY-MM-DD")', tot: "jsonata" }], { payload: "31/01/2024" }),
  one("JSONata $moment object as the value", [{ t: "set", p: "payload", pt: "msg", to: "$moment(payload).utc()", tot: "jsonata" }], { payload: "2024-03-01T12:30:00+01:00" }),
  one("JSONata $moment in an object, and its methods", [{ t: "set", p: "payload", pt: "msg", to: '{"at": $moment(payload.t), "valid": $moment(payload.t).isValid(), "day": $moment(payload.t).utc().day(), "bad": $moment("not a date", "YYYY-MM-DD", true).isValid()}', tot: "jsonata" }], { payload: { t: "2024-06-05T00:00:00Z" } }),
  one("JSONata $moment diff", [{ t: "set", p: "payload", pt: "msg", to: '($a := $moment(payload.a); $moment(payload.b).diff($a, "days"))', tot: "jsonata" }], { payload: { a: "2024-01-01", b: "2024-03-01" } }),
  one("an invalid JSONata result drops the message", [{ t: "set", p: "payload", pt: "msg", to: "$invalid(payload)", tot: "jsonata" }], { payload: "x" }, { expect: undefined }),
  one("deep copy", [{ t: "set", p: "payload", pt: "msg", to: "source", tot: "msg", dc: true }, { t: "set", p: "source.a", pt: "msg", to: "changed", tot: "str" }], {
    source: { a: 1 },
  }),
  one("no deep copy shares the object", [{ t: "set", p: "payload", pt: "msg", to: "source", tot: "msg" }, { t: "set", p: "source.a", pt: "msg", to: "changed", tot: "str" }], {
    source: { a: 1 },
  }),
  // change
  one("changes a substring", [{ t: "change", p: "payload", pt: "msg", from: "Hello", fromt: "str", to: "Goodbye", tot: "str" }], { payload: "Hello World!" }),
  one("partial match keeps the string type", [{ t: "change", p: "payload", pt: "msg", from: "123", fromt: "str", to: "456", tot: "num" }], { payload: "abc123abc" }),
  one("complete match sets the number", [{ t: "change", p: "payload", pt: "msg", from: "123", fromt: "str", to: "456", tot: "num" }], { payload: "123" }),
  one(
    "complete match sets booleans",
    [
      { t: "change", p: "payload.a", pt: "msg", from: "123", fromt: "str", to: "true", tot: "bool" },
      { t: "change", p: "payload.b", pt: "msg", from: "456", fromt: "str", to: "false", tot: "bool" },
    ],
    { payload: { a: "123", b: "456" } },
  ),
  one("changes a multi-level property", [{ t: "change", p: "foo.bar", pt: "msg", from: "Hello", fromt: "str", to: "Goodbye", tot: "str" }], { foo: { bar: "Hello World!" } }),
  one("a missing property is left alone", [{ t: "change", p: "foo", pt: "msg", from: "Hello", fromt: "str", to: "Goodbye", tot: "str" }], { payload: "Hello" }),
  one("regex", [{ t: "change", p: "payload", pt: "msg", from: "\\d+", fromt: "re", to: "NUMBER", tot: "str" }], { payload: "Replace all numbers 12 and 14" }),
  one("regex groups", [{ t: "change", p: "payload", pt: "msg", from: "(Hello)", fromt: "re", to: "$1-$1-$1", tot: "str" }], { payload: "Hello World" }),
  one("legacy regex rule", [], { payload: "Hello World" }, {
    nodes: [{ id: "c", type: "change", action: "change", property: "payload", from: "(Hello)", to: "$1-$1-$1", reg: true, wires: [["out"]] }],
  }),
  one("special characters in a string search", [{ t: "change", p: "payload", pt: "msg", from: "a.b*", fromt: "str", to: "X", tot: "str" }], { payload: "a.b* axbb a.b*" }),
  one("from a message property", [{ t: "change", p: "payload", pt: "msg", from: "topic", fromt: "msg", to: "123", tot: "str" }], { topic: "ABC", payload: "abcABCabc" }),
  one("from flow context", [{ t: "change", p: "payload", pt: "msg", from: "topic", fromt: "flow", to: "123", tot: "str" }], { payload: "abcABCabc" }, { flow: { topic: "ABC" } }),
  one("from a global number", [{ t: "change", p: "payload", pt: "msg", from: "topic", fromt: "global", to: "ABC", tot: "str" }], { payload: 123 }, { global: { topic: 123 } }),
  one("number search in a string", [{ t: "change", p: "payload", pt: "msg", from: "123", fromt: "num", to: "456", tot: "str" }], { payload: "123" }),
  one("number search in a number", [{ t: "change", p: "payload", pt: "msg", from: "123", fromt: "num", to: "abc", tot: "str" }], { payload: 123 }),
  one("boolean search in a string", [{ t: "change", p: "payload", pt: "msg", from: "true", fromt: "bool", to: "xxx", tot: "str" }], { payload: "true" }),
  one("boolean search in a boolean", [{ t: "change", p: "payload", pt: "msg", from: "true", fromt: "bool", to: "xxx", tot: "str" }], { payload: true }),
  one(
    "changes flow context",
    [
      { t: "change", p: "payload", pt: "flow", from: "123", fromt: "str", to: "456", tot: "num" },
      { t: "set", p: "out", pt: "msg", to: "payload", tot: "flow" },
    ],
    { payload: "x" },
    { flow: { payload: "123" } },
  ),
  one("replacement with $&", [{ t: "change", p: "payload", pt: "msg", from: "o", fromt: "str", to: "[$&]", tot: "str" }], { payload: "foo" }),
  // delete
  one("deletes a property", [{ t: "delete", p: "payload", pt: "msg" }], { payload: "x", topic: "t" }),
  one("deletes a multi-level property", [{ t: "delete", p: "foo.bar", pt: "msg" }], { foo: { bar: 1, baz: 2 } }),
  one("deletes an array element", [{ t: "delete", p: "payload[1]", pt: "msg" }], { payload: [1, 2, 3] }),
  one("deletes a missing property", [{ t: "delete", p: "foo.bar", pt: "msg" }], { payload: "x" }),
  // move
  one("moves a property", [{ t: "move", p: "topic", pt: "msg", to: "payload", tot: "msg" }], { topic: "You've got to move it move it.", payload: { foo: "bar" } }),
  one("moves to a new multi-level property", [{ t: "move", p: "payload", pt: "msg", to: "foo.bar", tot: "msg" }], { payload: "x" }),
  one("moves a child to its parent", [{ t: "move", p: "payload.foo", pt: "msg", to: "payload", tot: "msg" }], { payload: { foo: { a: 1 } } }),
  one("moves into its own child", [{ t: "move", p: "payload", pt: "msg", to: "payload.foo", tot: "msg" }], { payload: { a: 1 } }),
  one(
    "moves to flow context and back",
    [
      { t: "move", p: "payload", pt: "msg", to: "saved", tot: "flow" },
      { t: "move", p: "saved", pt: "flow", to: "restored", tot: "msg" },
    ],
    { payload: { a: 1 } },
  ),
  // several rules
  one(
    "applies rules in order",
    [
      { t: "set", p: "payload", pt: "msg", to: "a", tot: "str" },
      { t: "change", p: "payload", pt: "msg", from: "a", fromt: "str", to: "b", tot: "str" },
      { t: "move", p: "payload", pt: "msg", to: "result", tot: "msg" },
      { t: "delete", p: "topic", pt: "msg" },
    ],
    { payload: "x", topic: "t" },
  ),
  // Order: the first message's expression runs long. Node-RED 5.0.7 sends it last (1, 2, 3, 4, then
  // it); ours keeps the order the messages came in.
  one(
    "a long JSONata evaluation keeps the messages in order",
    [{ t: "set", p: "payload", pt: "msg", to: "payload = 0 ? $reduce([1..20000], function($a, $b) { $a + $b }) : payload", tot: "jsonata" }],
    { payload: 0 },
    {
      send: [0, 1, 2, 3, 4].map((payload) => ({ msg: { payload } })),
      expect: 5,
      differs:
        "messages leave in the order they came. Node-RED's change node lets a message whose expression finishes sooner overtake the ones before it (its switch node queues them, as both of ours do). Ours also yields to the event loop during a long expression, so without the queue the order would depend on the machine's load.",
    },
  ),
  // Order against the context: a message's JSONata read is done before the next delivery, as in
  // Node-RED, where each delivery is a turn of its own (a set on another branch comes after it).
  one(
    "a JSONata read of the flow context on one branch sees the value from before a set on the next",
    [],
    { payload: 1 },
    {
      nodes: [
        { id: "start", type: "change", name: "", rules: [{ t: "set", p: "topic", pt: "msg", to: "t", tot: "str" }], wires: [["rd", "wr"]] },
        { id: "rd", type: "change", name: "", rules: [{ t: "set", p: "payload", pt: "msg", to: "[payload, $flowContext('v')]", tot: "jsonata" }], wires: [["out"]] },
        { id: "wr", type: "change", name: "", rules: [{ t: "set", p: "v", pt: "flow", to: "payload", tot: "msg" }], wires: [[]] },
      ],
      flow: { v: "start" },
      send: [1, 2, 3].map((payload) => ({ msg: { payload } })),
      expect: 3,
    },
  ),
  one(
    "a switch with a JSONata rule reading the flow context sees the value from before a set on the next branch",
    [],
    { payload: 1 },
    {
      nodes: [
        { id: "start", type: "change", name: "", rules: [{ t: "set", p: "topic", pt: "msg", to: "t", tot: "str" }], wires: [["sw", "wr"]] },
        { id: "sw", type: "switch", name: "", property: "$flowContext('v') = 'start'", propertyType: "jsonata", rules: [{ t: "true" }, { t: "false" }], checkall: "true", repair: false, outputs: 2, wires: [["out"], ["out2"]] },
        { id: "wr", type: "change", name: "", rules: [{ t: "set", p: "v", pt: "flow", to: "payload", tot: "msg" }], wires: [[]] },
      ],
      flow: { v: "start" },
      send: [1, 2].map((payload) => ({ msg: { payload } })),
      expect: 2,
    },
  ),
  one(
    "a JSONata value written to the flow context is there for a read on the next branch",
    [],
    { payload: 1 },
    {
      nodes: [
        { id: "start", type: "change", name: "", rules: [{ t: "set", p: "topic", pt: "msg", to: "t", tot: "str" }], wires: [["wr", "rd"]] },
        { id: "wr", type: "change", name: "", rules: [{ t: "set", p: "v", pt: "flow", to: "payload * 10", tot: "jsonata" }], wires: [[]] },
        { id: "rd", type: "change", name: "", rules: [{ t: "set", p: "payload", pt: "msg", to: "v", tot: "flow" }], wires: [["out"]] },
      ],
      flow: { v: 0 },
      send: [1, 2].map((payload) => ({ msg: { payload } })),
      expect: 2,
    },
  ),
];
