import type { DiffCase } from "../../../test/node-red-diff/types";

/**
 * The function node against Node-RED 4.1 (cases after test/nodes/core/function/10-function_spec.js).
 * The code runs in our QuickJS sandbox; what it sends must be what Node-RED's vm sends.
 */
const fn = (func: string, extra: Record<string, unknown> = {}, wires: string[][] = [["out"]]) => ({
  id: "fn",
  type: "function",
  func,
  outputs: wires.length,
  noerr: 0,
  initialize: "",
  finalize: "",
  libs: [],
  ...extra,
  wires,
});

/** The `in turn` cases' first node: sets msg.topic and sends the message to `targets`, in that order. */
const fanOut = (topic: string, targets: string[]) => ({ id: "start", type: "change", name: "", rules: [{ t: "set", p: "topic", pt: "msg", to: topic, tot: "str" }], wires: [targets] });
const catchAll = (id = "c", collector = "caught") => ({ id, type: "catch", name: "", scope: null, uncaught: false, wires: [[collector]] });
const completeOf = (scope: string[], collector = "completed") => ({ id: "cn", type: "complete", name: "", scope, uncaught: false, wires: [[collector]] });
/** Node-RED's msg.error of an Error carries its V8 stack (with the server's file paths); ours has none. */
const STACK = { ignore: ["error.stack"], ignoreWhy: "msg.error.stack: Node-RED's is V8's stack with the server's file paths; ours has none" };

export const cases: DiffCase[] = [
  { name: "returns the message", nodes: [fn("return msg;")], send: [{ msg: { payload: "foo", topic: "bar" } }], expect: 1 },
  { name: "changes the payload", nodes: [fn("msg.payload = msg.payload.toUpperCase() + '!'; return msg;")], send: [{ msg: { payload: "foo" } }], expect: 1 },
  {
    name: "returns a new message (only payload)",
    nodes: [fn("return { payload: msg.payload * 2 };")],
    send: [{ msg: { payload: 21, topic: "t" } }],
    expect: 1,
  },
  { name: "returns null: nothing is sent", nodes: [fn("return null;")], send: [{ msg: { payload: 1 } }] },
  {
    name: "several outputs, null skips one",
    nodes: [fn("return [null, msg, { payload: 'third' }];", {}, [["out1"], ["out2"], ["out3"]])],
    send: [{ msg: { payload: "x" } }],
    expect: 2,
  },
  {
    name: "an array on one output sends each message in order",
    nodes: [fn("return [[{ payload: 1 }, { payload: 2 }, { payload: 3 }]];")],
    send: [{ msg: { payload: 0 } }],
    expect: 3,
  },
  {
    name: "node.send then return",
    nodes: [fn("node.send({ payload: 'sent' }); msg.payload = 'returned'; return msg;")],
    send: [{ msg: { payload: 0 } }],
    expect: 2,
  },
  {
    name: "context keeps state between messages",
    nodes: [fn("const n = (context.get('n') || 0) + 1; context.set('n', n); msg.payload = n; return msg;")],
    send: [{ msg: {} }, { msg: {} }, { msg: {} }],
    expect: 3,
  },
  {
    name: "async code with await",
    nodes: [fn("await new Promise((r) => setTimeout(r, 20)); msg.payload = 'later'; return msg;")],
    send: [{ msg: { payload: 0 } }],
    expect: 1,
  },
  {
    name: "setTimeout sends later with node.send",
    nodes: [fn("setTimeout(() => node.send({ payload: 'tick' }), 30); return null;")],
    send: [{ msg: {} }],
    expect: 1,
  },
  {
    name: "nested objects and arrays survive",
    nodes: [fn("msg.payload = { list: [1, 'two', { three: 3 }], nothing: null, yes: true }; return msg;")],
    send: [{ msg: {} }],
    expect: 1,
  },
  {
    name: "RED.util.cloneMessage copies",
    nodes: [fn("const copy = RED.util.cloneMessage(msg); copy.payload.a = 2; return [[msg, copy]];")],
    send: [{ msg: { payload: { a: 1 } } }],
    expect: 2,
  },
  {
    name: "RED.util.getMessageProperty and setMessageProperty walk Node-RED's property expressions",
    nodes: [
      fn(
        [
          "const u = RED.util;",
          "const out = {};",
          "out.a = u.getMessageProperty(msg, 'msg.payload.list[1]');",
          "out.b = u.getMessageProperty(msg, 'payload[\"odd key\"].x');",
          "out.c = u.getMessageProperty(msg, 'payload.missing');",
          "out.d = u.setMessageProperty(msg, 'made.deep[0].x', 5);",
          "out.e = u.setMessageProperty(msg, 'payload.n.x', 1);",
          "out.f = u.setMessageProperty(msg, 'none.x', 1, false);",
          "out.g = u.getMessageProperty(msg, 'payload.list[msg.idx]');",
          "out.h = u.setMessageProperty(msg, 'payload.list[0]');",
          "out.i = u.normalisePropertyExpression(\"a['b'].c[2]\");",
          "out.j = u.normalisePropertyExpression('a[msg.idx].b', msg, true);",
          "out.k = u.normalisePropertyExpression('a[msg.topic]');",
          "out.l = u.getObjectProperty({ x: { y: [7] } }, 'x.y[0]');",
          "const o = {}; out.m = [u.setObjectProperty(o, 'p.q', 'r'), o];",
          "u.setMessageProperty(msg, 'payload[\"odd key\"]');",
          "msg.out = out;",
          "return msg;",
        ].join("\n"),
      ),
    ],
    send: [{ msg: { payload: { list: [1, 2, 3], "odd key": { x: "y" }, n: 4 }, idx: 1, topic: "t" } }],
    expect: 1,
  },
  {
    name: "RED.util.normalisePropertyExpression rejects what Node-RED rejects, with its words and code",
    nodes: [
      fn(
        [
          "const bad = ['', 'a..b', '.a', 'a[', 'a[b]', 'a b', \"a['']\", 'a]', 'a[msg.nope]', 'a.', \"a['b'c\", 'a[\"b\"]c'];",
          "msg.payload = bad.map((e) => { try { return ['ok', RED.util.normalisePropertyExpression(e, msg)]; } catch (err) { return [err.message, err.code]; } });",
          "return msg;",
        ].join("\n"),
      ),
    ],
    send: [{ msg: { payload: 0 } }],
    expect: 1,
  },
  {
    name: "RED.util.getMessageProperty under a missing parent throws Node-RED's TypeError to the catch node",
    nodes: [fn("return RED.util.getMessageProperty(msg, 'nothing.x.y');"), catchAll()],
    send: [{ msg: { payload: 1 } }],
    expect: 1,
    ...STACK,
  },
  {
    name: "RED.util's comparisons, conversions and names",
    nodes: [
      fn(
        [
          "const u = RED.util;",
          "msg.payload = {",
          "  eq: [u.compareObjects({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), u.compareObjects({ a: 1 }, { a: 1, b: 2 }), u.compareObjects([1], { 0: 1 }), u.compareObjects(Buffer.from('ab'), Buffer.from('ab')), u.compareObjects(Buffer.from('ab'), 'ab'), u.compareObjects(null, undefined), u.compareObjects({ a: 1, b: 2 }, { b: 2, a: 1 })],",
          "  str: [u.ensureString({ a: 1 }), u.ensureString(5), u.ensureString(Buffer.from('hi')), u.ensureString('s'), u.ensureString(null), u.ensureString(undefined)],",
          "  buf: [u.ensureBuffer('hi'), u.ensureBuffer({ a: 1 }), u.ensureBuffer(12)],",
          "  names: [u.normaliseNodeTypeName('a-random node type'), u.normaliseNodeTypeName('MQTT in')],",
          "  stores: [u.parseContextStore('#:(file)::foo.bar'), u.parseContextStore('plain')],",
          "  id: /^[0-9a-f]{16}$/.test(u.generateId()),",
          "  keys: Object.keys(u),",
          "};",
          "return msg;",
        ].join("\n"),
      ),
    ],
    send: [{ msg: {} }],
    expect: 1,
  },
  {
    name: "RED.util.evaluateNodeProperty evaluates Node-RED's typed values",
    nodes: [
      fn(
        [
          "const u = RED.util;",
          "const got = [];",
          "u.evaluateNodeProperty('payload.a', 'msg', node, msg, (err, value) => got.push([err, value]));",
          "u.evaluateNodeProperty('a..b', 'msg', node, msg, (err, value) => got.push([err && err.message, value]));",
          "msg.payload = [",
          "  u.evaluateNodeProperty('12', 'num', node, msg),",
          "  u.evaluateNodeProperty('{\"a\":1}', 'json', node, msg),",
          "  u.evaluateNodeProperty('TRUE', 'bool', node, msg),",
          "  u.evaluateNodeProperty('topic', 'msg', node, msg),",
          "  u.evaluateNodeProperty('[1,2]', 'bin', node, msg),",
          "  u.evaluateNodeProperty(7, 'str', node, msg),",
          "  typeof u.evaluateNodeProperty('', 'date', node, msg),",
          "  typeof u.evaluateNodeProperty('iso', 'date', node, msg),",
          "  u.evaluateNodeProperty('^a', 're', node, msg).test('abc'),",
          "  u.evaluateNodeProperty('as is', 'other', node, msg),",
          "  got,",
          "];",
          "return msg;",
        ].join("\n"),
      ),
    ],
    send: [{ msg: { payload: { a: "A" }, topic: "T" } }],
    expect: 1,
  },
  {
    name: "Intl: dates in a locale and a time zone, as V8 writes them",
    nodes: [
      fn(
        [
          "const d = new Date(Date.UTC(2024, 0, 15, 13, 5, 9));",
          "msg.payload = [",
          "  d.toLocaleString('en-US', { timeZone: 'UTC' }),",
          "  d.toLocaleString('de-DE', { timeZone: 'Europe/Berlin' }),",
          "  d.toLocaleDateString('en-GB', { timeZone: 'UTC', weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' }),",
          "  d.toLocaleTimeString('en-US', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit' }),",
          "  d.toLocaleDateString('ja-JP', { timeZone: 'Asia/Tokyo' }),",
          "  d.toLocaleTimeString(['fr-FR'], { timeZone: 'UTC', hour12: true }),",
          "  new Date(NaN).toLocaleString('en-US'),",
          "  [1234.5, 7].toLocaleString('de-DE'),",
          "];",
          "try { d.toLocaleString('en', { timeZone: 'Mars/Base' }); } catch (e) { msg.payload.push([e.name, e.message]); }",
          "return msg;",
        ].join("\n"),
      ),
    ],
    send: [{ msg: {} }],
    expect: 1,
  },
  {
    name: "Intl: numbers in a locale, currencies, units and BigInts",
    nodes: [
      fn(
        [
          "const n = 1234567.891;",
          "msg.payload = [",
          "  n.toLocaleString('en-US'), n.toLocaleString('de-DE'), n.toLocaleString('en-IN'), n.toLocaleString('fr-FR', { style: 'currency', currency: 'EUR' }),",
          "  n.toLocaleString('en-US', { maximumFractionDigits: 1 }), (0.256).toLocaleString('en-US', { style: 'percent' }), (-0).toLocaleString('en-US'), NaN.toLocaleString('en-US'),",
          "  (12n ** 20n).toLocaleString('en-US'), (88).toLocaleString('en-US', { style: 'unit', unit: 'kilometer-per-hour' }), (5).toLocaleString('en-US', { minimumIntegerDigits: 3 }),",
          "];",
          "try { (1).toLocaleString('en', { style: 'currency' }); } catch (e) { msg.payload.push([e.name, e.message]); }",
          "return msg;",
        ].join("\n"),
      ),
    ],
    send: [{ msg: {} }],
    expect: 1,
  },
  {
    name: "Intl: localeCompare sorts as ICU does, and locale case mappings",
    nodes: [
      fn(
        [
          "msg.payload = [",
          "  ['b', 'a', 'B', 'ä', 'z', 'Z', '10', '9', 'Ärger', 'apple', '_x', 'é'].sort((x, y) => x.localeCompare(y)),",
          "  'a'.localeCompare('B'), 'b'.localeCompare('a'), 'a'.localeCompare('a'),",
          "  'ä'.localeCompare('z', 'de'), 'ä'.localeCompare('z', 'sv'), 'a'.localeCompare('A', undefined, { sensitivity: 'base' }),",
          "  ['item10', 'item9', 'item1'].sort(new Intl.Collator(undefined, { numeric: true }).compare),",
          "  'I'.toLocaleLowerCase('tr'), 'i'.toLocaleUpperCase('tr-TR'), 'Straße'.toLocaleUpperCase(),",
          "];",
          "return msg;",
        ].join("\n"),
      ),
    ],
    send: [{ msg: {} }],
    expect: 1,
  },
  {
    name: "Intl: the formatters' objects, parts and resolved options",
    nodes: [
      fn(
        [
          "const d = new Date(Date.UTC(2024, 0, 15, 13, 5, 9));",
          "const dtf = new Intl.DateTimeFormat('en-GB', { dateStyle: 'full', timeStyle: 'short', timeZone: 'UTC' });",
          "const money = Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });",
          "const r = dtf.resolvedOptions();",
          "msg.payload = {",
          "  typeofIntl: typeof Intl, tag: Object.prototype.toString.call(money), isInstance: money instanceof Intl.NumberFormat,",
          "  date: dtf.format(d), parts: new Intl.DateTimeFormat('en-US', { timeZone: 'UTC' }).formatToParts(d), resolved: [r.locale, r.timeZone, r.calendar, r.dateStyle],",
          "  mapped: [d, new Date(0)].map(new Intl.DateTimeFormat('en-US', { timeZone: 'UTC' }).format),",
          "  range: new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', month: 'short', day: 'numeric' }).formatRange(d, new Date(Date.UTC(2024, 0, 20))),",
          "  money: [money.format(1234.5), money.formatToParts(-1.5), money.resolvedOptions().currency],",
          "  plural: [new Intl.PluralRules('en-US').select(1), new Intl.PluralRules('en-US').select(2), new Intl.PluralRules('en-US', { type: 'ordinal' }).select(2), new Intl.PluralRules('ar').select(3)],",
          "  relative: [new Intl.RelativeTimeFormat('en', { numeric: 'auto' }).format(-1, 'day'), new Intl.RelativeTimeFormat('de').format(3, 'hours')],",
          "  list: new Intl.ListFormat('en', { style: 'long', type: 'conjunction' }).format(['a', 'b', 'c']),",
          "  region: new Intl.DisplayNames(['en'], { type: 'region' }).of('DE'),",
          "  canonical: Intl.getCanonicalLocales('EN-us'),",
          "  supported: Intl.DateTimeFormat.supportedLocalesOf(['en-US', 'de']),",
          "};",
          "try { Intl.PluralRules('en'); } catch (e) { msg.payload.needsNew = [e.name, e.message]; }",
          "try { new Intl.DateTimeFormat('en', { timeZone: 'Mars/Base' }); } catch (e) { msg.payload.badZone = [e.name, e.message]; }",
          "return msg;",
        ].join("\n"),
      ),
    ],
    send: [{ msg: {} }],
    expect: 1,
  },
  {
    name: "Intl: edges (map callbacks, null, undefined answers, BigInts, cycles)",
    nodes: [
      fn(
        [
          "const nf = new Intl.NumberFormat('en-US');",
          "const list = [1, 2.5, 3000]; let joins = 0; list.toString = () => { joins++; return 'x'; };",
          "const out = { mapped: list.map(nf.format), joins };",
          "const tryIt = (f) => { try { return ['ok', f()]; } catch (e) { return [e.name, e.message]; } };",
          "out.nullLocale = tryIt(() => (1).toLocaleString(null));",
          "out.nullOptions = tryIt(() => new Intl.NumberFormat('en', null).format(1));",
          "out.unknownRegion = tryIt(() => new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' }).of('ZZ') === undefined);",
          "out.rangeUndefined = tryIt(() => new Intl.DateTimeFormat('en', { timeZone: 'UTC' }).formatRange(undefined, new Date(0)));",
          "out.pluralBigInt = tryIt(() => new Intl.PluralRules('en').select(1n));",
          "out.nanDigits = tryIt(() => (1).toLocaleString('en', { maximumFractionDigits: NaN }));",
          "const cyclic = [1, 2]; cyclic.push(cyclic);",
          "out.cyclic = cyclic.toLocaleString('de-DE');",
          "out.negativeLength = Array.prototype.toLocaleString.call({ length: -1, 0: 5 });",
          "out.hugeLength = tryIt(() => Array.prototype.toLocaleString.call({ length: 2 ** 32 }));",
          "out.longLength = tryIt(() => Array.prototype.toLocaleString.call({ length: 600000000 }));",
          "out.sparse = [1000, , null, undefined, 2000].toLocaleString('en-US');",
          "out.typed = [new Float64Array([1234.5, -0.25]).toLocaleString('de-DE'), new Uint8Array([200, 7]).toLocaleString('en-US', { style: 'percent' }), Buffer.from('hi').toLocaleString()];",
          "msg.payload = out;",
          "return msg;",
        ].join("\n"),
      ),
    ],
    send: [{ msg: {} }],
    expect: 1,
  },
  {
    name: "node.path and NR_NODE_PATH: the tab's id and the node's",
    nodes: [fn("msg.payload = [env.get('NR_NODE_PATH') === env.get('NR_FLOW_ID') + '/' + node.id, node.path === env.get('NR_NODE_PATH'), typeof node.path];\nreturn msg;")],
    send: [{ msg: {} }],
    expect: 1,
  },
  {
    name: "env.get inside groups: NR_GROUP_ID/NAME, the group's env properties over the outer group's, $parent.",
    input: "gfn",
    nodes: [
      {
        id: "gOuter", type: "group", name: "Outer", style: {}, nodes: ["gInner", "gset"], x: 10, y: 10, w: 400, h: 200,
        env: [
          { name: "COLOR", type: "str", value: "red" },
          { name: "N", type: "num", value: "5" },
          { name: "SHARED", type: "str", value: "outer" },
        ],
      },
      {
        id: "gInner", type: "group", name: "Inner", g: "gOuter", style: {}, nodes: ["gfn"], x: 20, y: 20, w: 200, h: 100,
        env: [
          { name: "SHARED", type: "str", value: "inner" },
          { name: "REF", type: "env", value: "${COLOR}-${SHARED}" },
          { name: "J", type: "json", value: "{\"a\":1}" },
          { name: "ON", type: "bool", value: "true" },
        ],
      },
      {
        ...fn(
          "msg.payload = [env.get('NR_GROUP_ID'), env.get('NR_GROUP_NAME'), env.get('COLOR'), env.get('N'), env.get('SHARED'), env.get('$parent.SHARED'), env.get('$parent.NR_GROUP_NAME'), env.get('REF'), env.get('J'), env.get('ON'), env.get('NR_NODE_ID')];\nreturn msg;",
          {},
          [["gset"]],
        ),
        id: "gfn",
        g: "gInner",
      },
      { id: "gset", type: "change", name: "", g: "gOuter", rules: [{ t: "set", p: "outer", pt: "msg", to: "SHARED", tot: "env" }, { t: "set", p: "group", pt: "msg", to: "NR_GROUP_NAME", tot: "env" }], wires: [["out"]] },
    ],
    send: [{ msg: {} }],
    expect: 1,
  },
  {
    name: "env.get reads the tab's variables and the built-in names",
    nodes: [fn("msg.payload = [env.get('GREETING'), env.get('API_URL'), env.get('NR_NODE_ID'), env.get('NR_FLOW_NAME'), env.get('MISSING') === undefined]; return msg;")],
    env: { GREETING: "hello", API_URL: "https://api.example.test/v1" },
    send: [{ msg: {} }],
    expect: 1,
  },
  {
    name: "env.get of a name that is not defined is undefined",
    nodes: [fn("msg.payload = typeof env.get('NOT_DEFINED'); return msg;")],
    env: { OTHER: "x" },
    send: [{ msg: {} }],
    expect: 1,
  },
  // Flow and global context (issue 23), after Node-RED's 10-function_spec.js context tests.
  {
    name: "flow context: get, set and keys, with a preset value",
    nodes: [fn("flow.set('count', (flow.get('count') || 0) + 1); msg.payload = [flow.get('count'), flow.get('preset'), flow.keys()]; return msg;")],
    flow: { preset: { a: 1 } },
    send: [{ msg: {} }, { msg: {} }],
    expect: 2,
  },
  {
    name: "global context: get, set and keys, with a preset value",
    nodes: [fn("global.set('double', global.get('g') * 2); msg.payload = [global.get('double'), global.keys().sort()]; return msg;")],
    global: { g: 21 },
    send: [{ msg: {} }],
    expect: 1,
  },
  {
    name: "context.flow and context.global reach the same stores",
    nodes: [fn("context.flow.set('f', 'via context.flow'); msg.payload = [flow.get('f'), context.global.get('g')]; return msg;")],
    global: { g: "global value" },
    send: [{ msg: {} }],
    expect: 1,
  },
  {
    name: "flow context set to undefined deletes the key",
    nodes: [fn("flow.set('gone', 1); flow.set('gone', undefined); msg.payload = [flow.get('gone') === undefined, flow.keys()]; return msg;")],
    send: [{ msg: {} }],
    expect: 1,
  },
  // The code runs in the flow's turn (NodeRoles.inTurn): FlowFuse's multi-user dashboard blueprint
  // sets `loggedUser` in a function on one branch of a ui-event and reads it with JSONata on another.
  {
    name: "in turn: a branch after the function reads the flow context the code set",
    nodes: [
      fanOut("user", ["fn", "rd"]),
      { ...fn("flow.set('user', msg.payload); msg.payload = 'set ' + msg.payload; return msg;"), wires: [["fnout"]] },
      { id: "rd", type: "change", name: "", rules: [{ t: "set", p: "payload", pt: "msg", to: "user", tot: "flow" }], wires: [["out"]] },
    ],
    send: [{ msg: { payload: "ann" } }, { msg: { payload: "bob" } }],
    expect: 4,
  },
  {
    name: "in turn: a JSONata branch after the function reads the flow context the code set",
    nodes: [
      fanOut("user", ["fn", "rd"]),
      { ...fn("flow.set('user', msg.payload); return null;"), wires: [["fnout"]] },
      { id: "rd", type: "change", name: "", rules: [{ t: "set", p: "payload", pt: "msg", to: "'hello ' & $flowContext('user')", tot: "jsonata" }], wires: [["out"]] },
    ],
    send: [{ msg: { payload: "ann" } }, { msg: { payload: "bob" } }],
    expect: 2,
  },
  {
    name: "in turn: a branch before the function reads the value from before, and the outputs interleave as in Node-RED",
    nodes: [
      fanOut("user", ["rd", "fn"]),
      { ...fn("flow.set('user', msg.payload); node.send({ payload: 'first ' + msg.payload }); return { payload: 'second ' + msg.payload };"), wires: [["fnout"]] },
      { id: "rd", type: "change", name: "", rules: [{ t: "set", p: "payload", pt: "msg", to: "user", tot: "flow" }], wires: [["out", "more"]] },
      { id: "more", type: "change", name: "", rules: [{ t: "set", p: "topic", pt: "msg", to: "more", tot: "str" }], wires: [["out2"]] },
    ],
    flow: { user: "nobody" },
    send: [{ msg: { payload: "ann" } }, { msg: { payload: "bob" } }],
    expect: 8,
  },
  {
    name: "in turn: two function nodes in a row keep their order against a plain branch",
    nodes: [
      fanOut("t", ["f1", "plain"]),
      { ...fn("flow.set('n', (flow.get('n') || 0) + 1); msg.payload = 'f1 ' + flow.get('n'); return msg;"), id: "f1", wires: [["f2"]] },
      { ...fn("msg.payload = msg.payload + ' f2 ' + flow.get('n'); return msg;"), id: "f2", wires: [["out"]] },
      { id: "plain", type: "change", name: "", rules: [{ t: "set", p: "payload", pt: "msg", to: "n", tot: "flow" }], wires: [["out"]] },
    ],
    send: [{ msg: {} }, { msg: {} }, { msg: {} }],
    expect: 6,
  },
  {
    // A subflow instance's context is a sandbox group of its own (another worker): the outer
    // function does not run beside the inner one's turns, and reads what they set, in order.
    name: "in turn: a function after a subflow's function reads the global value it set, message by message",
    subflows: [
      { id: "sf", type: "subflow", name: "setter", info: "", category: "", in: [{ x: 50, y: 30, wires: [{ id: "g" }] }], out: [{ x: 350, y: 30, wires: [{ id: "g", port: 0 }] }], env: [], meta: {}, color: "#DDAA99" },
      { ...fn("global.set('n', msg.payload); return msg;"), id: "g", z: "sf", wires: [[]] },
    ],
    nodes: [
      { id: "inst", type: "subflow:sf", env: [], wires: [["f"]] },
      { ...fn("msg.payload = [msg.payload, global.get('n')]; return msg;"), id: "f", wires: [["out"]] },
    ],
    send: [{ msg: { payload: 1 } }, { msg: { payload: 2 } }, { msg: { payload: 3 } }],
    expect: 3,
  },
  {
    name: "flow context shared by two function nodes of the flow",
    nodes: [
      { ...fn("flow.set('seen', msg.payload); return msg;"), id: "w", wires: [["r"]] },
      { ...fn("msg.payload = 'read ' + flow.get('seen'); return msg;"), id: "r", wires: [["out"]] },
    ],
    input: "w",
    send: [{ msg: { payload: "x" } }],
    expect: 1,
  },
  {
    name: "context callback forms",
    nodes: [fn("flow.set('k', 5, function (err) { flow.get('k', function (err2, v) { msg.payload = [err, err2, v]; node.send(msg); }); }); return null;")],
    send: [{ msg: {} }],
    expect: 1,
  },
  // Errors as catch nodes see them (10-function.js: node.error, a thrown error, node.done(err)).
  {
    name: "node.error(text, msg) reaches the catch node with that msg",
    nodes: [fn("msg.payload = 'changed'; node.error('went wrong', msg); return null;"), catchAll()],
    send: [{ msg: { payload: "p", topic: "t" } }],
    expect: 1,
  },
  {
    name: "node.error(err, msg) with an Error",
    nodes: [fn("node.error(new Error('an error object'), { payload: 'other msg' }); return msg;"), catchAll()],
    send: [{ msg: { payload: "p" } }],
    expect: 2,
    ...STACK,
  },
  {
    name: "node.error(text) without a msg is not caught",
    nodes: [fn("node.error('only logged'); return msg;"), catchAll()],
    send: [{ msg: { payload: "p" } }],
    expect: 1,
    settleMs: 300,
  },
  {
    name: "node.warn and node.log send nothing",
    nodes: [fn("node.warn('careful'); node.log('note'); node.debug('d'); node.trace('t'); return msg;"), catchAll()],
    send: [{ msg: { payload: "p" } }],
    expect: 1,
    settleMs: 300,
  },
  {
    name: "a thrown Error: the catch node gets Error: text, and the msg as the code left it",
    nodes: [fn("msg.payload = 'mutated'; throw new Error('boom');"), catchAll()],
    send: [{ msg: { payload: "p", topic: "t" } }],
    expect: 1,
    ...STACK,
  },
  {
    name: "a thrown TypeError",
    nodes: [fn("const x = null; return x.y;"), catchAll()],
    send: [{ msg: { payload: 1 } }],
    expect: 1,
    ...STACK,
  },
  {
    name: "a ReferenceError names the line and column",
    nodes: [fn("const a = 1;\n  msg.payload = notDefined + a;\n  return msg;"), catchAll()],
    send: [{ msg: { payload: 1 } }],
    expect: 1,
    ...STACK,
  },
  {
    name: "a call of something that is not a function names it as V8 does (a chain with a call in it, a member, a bracket)",
    nodes: [
      fn(
        "if (msg.topic === 'chain') msg.payload = msg.payload.trim().toUpper();\nif (msg.topic === 'member') node.sendd(msg);\nif (msg.topic === 'bracket') msg['handler'](1);\nif (msg.topic === 'new') msg.payload = new msg.Thing();\nif (msg.topic === 'tail') return msg.payload.toUpperCase();\nreturn msg;",
      ),
      catchAll(),
    ],
    send: ["chain", "member", "bracket", "new", "tail"].map((topic) => ({ msg: { payload: topic === "tail" ? 5 : " x ", topic } })),
    expect: 5,
    ...STACK,
  },
  {
    name: "V8's words for a constant assigned, a recursion too deep, an empty reduce, a bad URI, an array length, a Symbol as text",
    nodes: [
      fn(
        "const c = 1;\nswitch (msg.topic) {\n  case 'const': c = 2; break;\n  case 'deep': (function f() { f(); })(); break;\n  case 'reduce': [].reduce((a, b) => a + b); break;\n  case 'uri': decodeURIComponent('%'); break;\n  case 'length': new Array(-1); break;\n  case 'symbol': msg.payload = Symbol('s') + ''; break;\n}\nreturn msg;",
      ),
      catchAll(),
    ],
    send: ["const", "deep", "reduce", "uri", "length", "symbol"].map((topic) => ({ msg: { payload: 1, topic } })),
    expect: 6,
    ...STACK,
  },
  {
    name: "Buffer: made in one function, carried to the next as a Buffer, read with Node's API",
    nodes: [
      { ...fn("msg.payload = Buffer.from(msg.payload, 'utf8');\nmsg.bytes = Buffer.from([0x01, 0x02, 0xff, 0x10]);\nmsg.nested = { list: [Buffer.alloc(2), 'text'] };\nreturn msg;"), id: "f1", wires: [["f2"]] },
      {
        ...fn(
          "const b = msg.bytes;\nmsg.info = {\n  isBuffer: Buffer.isBuffer(msg.payload), nestedIsBuffer: Buffer.isBuffer(msg.nested.list[0]), length: msg.payload.length,\n  text: msg.payload.toString(), hex: msg.payload.toString('hex'), b64: msg.payload.toString('base64'),\n  word: b.readUInt16BE(1), le: b.readUInt16LE(0), int8: b.readInt8(2), json: JSON.stringify(b),\n  slice: b.slice(1, 3).toString('hex'), index: msg.payload.indexOf('l'), equals: b.equals(Buffer.from([1, 2, 255, 16])),\n  concat: Buffer.concat([msg.payload, b]).length, byteLength: Buffer.byteLength('héllo'), compare: Buffer.compare(b, msg.payload),\n};\nconst out = Buffer.alloc(6);\nout.writeUInt16BE(513, 0);\nout.writeFloatLE(1.5, 2);\nmsg.written = out;\nmsg.float = out.readFloatLE(2);\nreturn msg;",
        ),
        id: "f2",
        wires: [["out"]],
      },
    ],
    send: [{ msg: { payload: "héllo" } }],
    expect: 1,
  },
  {
    name: "Buffer: a plain object shaped like a Buffer's JSON stays a plain object, and RED.util.cloneMessage copies Buffers",
    nodes: [
      { ...fn("msg.payload = { type: 'Buffer', data: [1, 2] };\nmsg.raw = Buffer.from('AB');\nreturn msg;"), id: "f1", wires: [["f2"]] },
      {
        ...fn("const copy = RED.util.cloneMessage(msg);\ncopy.raw[0] = 0x5a;\nmsg.seen = [Buffer.isBuffer(msg.payload), typeof msg.payload.type, Buffer.isBuffer(copy.raw), msg.raw.toString(), copy.raw.toString()];\nreturn msg;"),
        id: "f2",
        wires: [["out"]],
      },
    ],
    send: [{ msg: { payload: 1 } }],
    expect: 1,
  },
  {
    name: "a thrown string",
    nodes: [fn("throw 'just a string';"), catchAll()],
    send: [{ msg: { payload: 1 } }],
    expect: 1,
  },
  {
    name: "a thrown object",
    nodes: [fn("throw { code: 42 };"), catchAll()],
    send: [{ msg: { payload: 1 } }],
    expect: 1,
  },
  {
    name: "an error after an await",
    nodes: [fn("await new Promise((r) => setTimeout(r, 10)); throw new Error('later');"), catchAll()],
    send: [{ msg: { payload: 1 } }],
    expect: 1,
    ...STACK,
  },
  {
    name: "an error in a setTimeout callback is caught with an empty msg",
    nodes: [fn("setTimeout(() => { throw new Error('in a timer'); }, 10); return null;"), catchAll()],
    send: [{ msg: { payload: 1 } }],
    expect: 1,
    compare: ["error", "payload", "topic"],
    ...STACK,
  },
  {
    name: "node.done(err) reaches the catch node",
    nodes: [fn("node.done('failed here'); return null;"), catchAll()],
    send: [{ msg: { payload: 1 } }],
    expect: 1,
  },
  {
    name: "node.done() later: the complete node fires then",
    nodes: [fn("setTimeout(() => { msg.payload = 'finished'; node.send(msg); node.done(); }, 30); return null;"), completeOf(["fn"])],
    send: [{ msg: { payload: 1 } }],
    expect: 2,
  },
  {
    name: "without node.done() the complete node fires when the code returns",
    nodes: [fn("msg.payload = 'returned'; return msg;"), completeOf(["fn"])],
    send: [{ msg: { payload: 1 } }],
    expect: 2,
  },
  // On Start (initialize) returning a promise: messages wait for it, in order.
  {
    name: "On Start's promise is awaited before the first message",
    nodes: [fn("msg.payload = [msg.payload, context.get('ready')]; return msg;", { initialize: "await new Promise((r) => setTimeout(r, 100));\ncontext.set('ready', 'yes');" })],
    send: [{ msg: { payload: 1 } }, { msg: { payload: 2 } }, { msg: { payload: 3 } }],
    expect: 3,
  },
  {
    name: "On Start returning a promise explicitly",
    nodes: [fn("msg.payload = flow.get('started'); return msg;", { initialize: "return new Promise((resolve) => setTimeout(() => { flow.set('started', 'after start'); resolve(); }, 50));" })],
    send: [{ msg: { payload: 1 } }, { msg: { payload: 2 } }],
    expect: 2,
  },
  {
    name: "a timer set in On Start runs and sends",
    nodes: [fn("return msg;", { initialize: "setTimeout(() => node.send({ payload: 'from On Start' }), 300);" })],
    send: [],
    expect: 1,
    compare: ["payload"],
  },
  // node.linkcall (Node-RED 5.0): a link-in called from the code, answered by a link-out in return mode.
  ...linkcallCases(),
];

function linkcallCases(): DiffCase[] {
  const linkIn = (id: string, name: string, wires: string[][]) => ({ id, type: "link in", name, links: [], wires });
  const ret = (id: string) => ({ id, type: "link out", name: "", mode: "return", links: [], wires: [] });
  const set = (id: string, p: string, to: string, wires: string[][]) => ({ id, type: "change", name: "", rules: [{ t: "set", p, pt: "msg", to, tot: "str" }], wires });
  const subroutine = [linkIn("li", "subroutine-1", [["chg"]]), set("chg", "payload", "Hello, from subroutine-1", [["lo"]]), ret("lo")];
  const catchAll = { id: "ct", type: "catch", name: "", scope: null, uncaught: false, wires: [["caught"]] };
  return [
    {
      name: "node.linkcall by the link-in's name resolves to the link-out's answer",
      nodes: [fn("const m = await node.linkcall('subroutine-1', msg, { timeout: 1000 });\nreturn m;"), ...subroutine],
      send: [{ msg: { payload: 1, topic: "t" } }],
      expect: 1,
    },
    {
      name: "node.linkcall by the link-in's id; the caller's msg is not changed",
      nodes: [fn("const m = await node.linkcall('li', msg);\nmsg.answer = m.payload;\nreturn msg;"), ...subroutine],
      send: [{ msg: { payload: 2 } }],
      expect: 1,
    },
    {
      name: "node.linkcall: the answers of several calls in one run",
      nodes: [fn("const a = await node.linkcall('subroutine-1', { payload: 'a' });\nconst b = await node.linkcall('subroutine-1', { payload: 'b' });\nreturn { payload: [a.payload, b.payload] };"), ...subroutine],
      send: [{ msg: { payload: 3 } }],
      expect: 1,
    },
    {
      name: "node.linkcall to a target that does not exist rejects, and the code can catch it",
      nodes: [fn("try { await node.linkcall('nowhere', msg); } catch (e) { msg.payload = e.message; }\nreturn msg;")],
      send: [{ msg: { payload: 4 } }],
      expect: 1,
    },
    {
      name: "node.linkcall that is never answered rejects with timeout",
      nodes: [fn("try { await node.linkcall('slow', msg, { timeout: 200 }); } catch (e) { msg.payload = e.message; }\nreturn msg;"), linkIn("slow", "slow", [[]])],
      send: [{ msg: { payload: 5 } }],
      expect: 1,
      settleMs: 500,
    },
    {
      name: "node.linkcall with a target that is not a string rejects",
      nodes: [fn("try { await node.linkcall(42, msg); } catch (e) { msg.payload = e.message; }\nreturn msg;")],
      send: [{ msg: { payload: 6 } }],
      expect: 1,
    },
    {
      name: "node.linkcall rejected and not caught reaches the catch nodes",
      nodes: [fn("await node.linkcall('nowhere', msg);\nreturn msg;"), catchAll],
      send: [{ msg: { payload: 7 } }],
      expect: 1,
      ...STACK,
    },
  ];
}
