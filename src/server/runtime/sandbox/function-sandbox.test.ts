import { describe, it, expect, afterAll } from "vitest";
import { SandboxError, SandboxPool, type FunctionSandboxOptions } from "./function-sandbox";
import type { Message } from "../types";
import { maxEventLoopGap } from "@/test/event-loop-gap";
import { SANDBOX_CRYPTO, SANDBOX_NODE_UTIL, SANDBOX_PACKAGES, functionNode } from "../../nodes/function/definition";
import { PACKAGE_FILES, packageSource, packageVersion } from "./packages-source";
import lodash from "lodash";
import momentOnHost from "moment";
import momentTimezone from "moment-timezone";
import nodeCrypto from "node:crypto";
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const pool = new SandboxPool();
const createFunctionSandbox = (options: FunctionSandboxOptions) => pool.create(options);
const sandboxDiagnostics = () => pool.diagnostics();

afterAll(async () => {
  // Every engine of every test was freed without a leak (abandoned ones are dropped whole, on purpose).
  // close() does not wait for the worker (without finalize): let the workers report first.
  await pool.idle();
  const { disposeFailures, enginesLive } = sandboxDiagnostics();
  expect(disposeFailures).toBe(0);
  expect(enginesLive).toBe(0);
  await pool.close();
});

function options(code: string, extra: Partial<FunctionSandboxOptions> = {}): FunctionSandboxOptions {
  return {
    code,
    outputs: 1,
    timeoutMs: 1000,
    flowContext: new Map(),
    nodeInfo: { id: "n1", name: "fn", flowId: "f1" },
    ...extra,
  };
}

function msg(payload: unknown, extra: Record<string, unknown> = {}): Message {
  return { _msgid: "m-1", payload, ...extra };
}

async function sandboxError(promise: Promise<unknown>): Promise<SandboxError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(SandboxError);
    return err as SandboxError;
  }
  throw new Error("expected a SandboxError");
}

describe("function sandbox: Node-RED semantics", () => {
  it("return msg sends one message on output 0", async () => {
    const sandbox = await createFunctionSandbox(options("msg.payload = msg.payload * 2; return msg;"));
    const result = await sandbox.run(msg(21, { topic: "t" }));
    expect(result.outputs).toEqual([[{ _msgid: "m-1", payload: 42, topic: "t" }]]);
    expect(result.sent).toEqual([]);
    expect(result.status).toBeUndefined();
    expect(result.logs).toEqual([]);
    sandbox.close();
  });

  it("null, undefined and no return send nothing", async () => {
    for (const code of ["return null;", "return undefined;", "msg.payload = 1;", "return [null, undefined];", ""]) {
      const sandbox = await createFunctionSandbox(options(code, { outputs: 2 }));
      const result = await sandbox.run(msg(1));
      expect(result.outputs).toEqual([[], []]);
      sandbox.close();
    }
  });

  it("an array sends one entry per output; ports beyond outputs are dropped", async () => {
    const sandbox = await createFunctionSandbox(
      options("return [{ payload: 'a' }, null, { payload: 'c' }, { payload: 'dropped' }];", { outputs: 3 }),
    );
    const result = await sandbox.run(msg(0));
    expect(result.outputs).toEqual([[{ _msgid: "m-1", payload: "a" }], [], [{ _msgid: "m-1", payload: "c" }]]);
    sandbox.close();
  });

  it("an array inside the array sends several messages on that output", async () => {
    const sandbox = await createFunctionSandbox(
      options("return [[{ payload: 1 }, { payload: 2 }, null], { payload: 3 }];", { outputs: 2 }),
    );
    const result = await sandbox.run(msg(0));
    expect(result.outputs).toEqual([
      [
        { _msgid: "m-1", payload: 1 },
        { _msgid: "m-1", payload: 2 },
      ],
      [{ _msgid: "m-1", payload: 3 }],
    ]);
    sandbox.close();
  });

  it("messages get the input's _msgid, as Node-RED does (new objects and explicit ids alike)", async () => {
    const sandbox = await createFunctionSandbox(
      options("node.send({ payload: 'sent' }); return [{ payload: 'new' }, { _msgid: 'other', payload: 'x' }];", { outputs: 2 }),
    );
    const result = await sandbox.run(msg(0, { _msgid: "abc.123" }));
    expect(result.outputs).toEqual([[{ _msgid: "abc.123", payload: "new" }], [{ _msgid: "abc.123", payload: "x" }]]);
    expect(result.sent).toEqual([[[{ _msgid: "abc.123", payload: "sent" }], []]]);
    sandbox.close();
  });

  it("non-object messages are dropped with an error log", async () => {
    const sandbox = await createFunctionSandbox(options("return [[5, 'text', { payload: 1 }]];"));
    const result = await sandbox.run(msg(0));
    expect(result.outputs).toEqual([[{ _msgid: "m-1", payload: 1 }]]);
    expect(result.logs.map((l) => l.level)).toEqual(["error", "error"]);
    expect(result.logs[0]!.message).toContain("number");
    sandbox.close();
  });

  it("messages cross as JSON: functions and undefined drop out, the input is not shared", async () => {
    const sandbox = await createFunctionSandbox(
      options("msg.fn = function () {}; msg.u = undefined; msg.d = new Date(0); msg.nested.x = 2; return msg;"),
    );
    const input = msg(1, { nested: { x: 1 } });
    const result = await sandbox.run(input);
    expect(result.outputs[0]).toEqual([{ _msgid: "m-1", payload: 1, nested: { x: 2 }, d: "1970-01-01T00:00:00.000Z" }]);
    expect(input.nested).toEqual({ x: 1 });
    sandbox.close();
  });

  it("node.send can be called several times, in order, snapshotting the message at the call", async () => {
    const sandbox = await createFunctionSandbox(
      options(
        `
        for (let i = 0; i < 3; i++) { msg.payload = i; node.send(msg); }
        node.send([null, { payload: 'second' }]);
        node.send([[{ payload: 'a' }, { payload: 'b' }], null]);
        node.send(null);
        return null;`,
        { outputs: 2 },
      ),
    );
    const result = await sandbox.run(msg(0));
    expect(result.outputs).toEqual([[], []]);
    expect(result.sent).toEqual([
      [[{ _msgid: "m-1", payload: 0 }], []],
      [[{ _msgid: "m-1", payload: 1 }], []],
      [[{ _msgid: "m-1", payload: 2 }], []],
      [[], [{ _msgid: "m-1", payload: "second" }]],
      [
        [
          { _msgid: "m-1", payload: "a" },
          { _msgid: "m-1", payload: "b" },
        ],
        [],
      ],
    ]);
    sandbox.close();
  });

  it("node.status keeps the last call; {} and null clear it", async () => {
    const sandbox = await createFunctionSandbox(
      options(`
        if (msg.payload === 'clear') { node.status({}); return; }
        if (msg.payload === 'null') { node.status(null); return; }
        node.status({ fill: 'red', shape: 'ring', text: 'first' });
        node.status({ fill: 'green', shape: 'dot', text: 'n=' + msg.payload });
        return msg;`),
    );
    expect((await sandbox.run(msg(3))).status).toEqual({ fill: "green", shape: "dot", text: "n=3" });
    expect((await sandbox.run(msg("clear"))).status).toBeNull();
    expect((await sandbox.run(msg("null"))).status).toBeNull();
    sandbox.close();
  });

  it("node.log/warn/error and console.* go to logs", async () => {
    const sandbox = await createFunctionSandbox(
      options(`
        node.log('hello');
        node.warn({ a: 1 });
        node.error(new Error('bad'));
        console.log('x', 1, [2]);
        console.warn('w');
        console.error('e');
        return msg;`),
    );
    const result = await sandbox.run(msg(0));
    expect(result.logs).toEqual([
      { level: "log", message: "hello" },
      { level: "warn", message: '{"a":1}' },
      { level: "error", message: "Error: bad" },
      { level: "log", message: "x 1 [2]" },
      { level: "warn", message: "w" },
      { level: "error", message: "e" },
    ]);
    sandbox.close();
  });

  it("node.id, node.name and env.get; host environment variables are not visible", async () => {
    process.env.FLOWPLANE_SANDBOX_SECRET = "secret";
    const sandbox = await createFunctionSandbox(
      options("return { payload: [node.id, node.name, env.get('NR_FLOW_ID'), env.get('FLOWPLANE_SANDBOX_SECRET'), env.get('PATH')] };"),
    );
    const result = await sandbox.run(msg(0));
    expect(result.outputs[0]![0]!.payload).toEqual(["n1", "fn", "f1", null, null]);
    sandbox.close();
    delete process.env.FLOWPLANE_SANDBOX_SECRET;
  });

  it("RED.util reads the flow's variables where Node-RED reads the server's environment, and its flow context", async () => {
    process.env.FLOWPLANE_SANDBOX_SECRET = "secret";
    const sandbox = await createFunctionSandbox(
      options(
        [
          "flow.set('k', { v: 3 });",
          "const u = RED.util;",
          "return { payload: [",
          "  u.getSetting(node, 'GREETING'), u.getSetting(node, 'FLOWPLANE_SANDBOX_SECRET'), u.getSetting(node, 'PATH'),",
          "  u.evaluateNodeProperty('GREETING', 'env', node, msg), u.evaluateNodeProperty('${GREETING} and ${NOPE}!', 'env', node, msg),",
          "  u.evaluateNodeProperty('FLOWPLANE_SANDBOX_SECRET', 'env', node, msg),",
          "  u.evaluateNodeProperty('k', 'flow', node, msg), u.evaluateNodeProperty('#:(file)::k', 'flow', node, msg), u.evaluateNodeProperty('k', 'flow', null, msg),",
          "] };",
        ].join("\n"),
        { env: { GREETING: "hello", NR_NODE_ID: "n1" } },
      ),
    );
    const result = await sandbox.run(msg(0));
    expect(result.outputs[0]![0]!.payload).toEqual(["hello", null, null, "hello", "hello and !", "", { v: 3 }, { v: 3 }, "k"]);
    sandbox.close();
    delete process.env.FLOWPLANE_SANDBOX_SECRET;
  });

  it("RED.util's functions the sandbox cannot offer say so, and the code can catch it", async () => {
    const sandbox = await createFunctionSandbox(
      options(
        [
          "const u = RED.util;",
          "const tries = [() => u.encodeObject({ msg: 1 }), () => u.prepareJSONataExpression('1', node), () => u.evaluateJSONataExpression({}, msg, () => {}),",
          "  () => u.evaluateNodeProperty('1 + 1', 'jsonata', node, msg), () => u.evaluateNodeProperty('YYYY', 'date', node, msg)];",
          "return { payload: tries.map((t) => { try { t(); return 'no error'; } catch (e) { return e.message; } }) };",
        ].join("\n"),
      ),
    );
    const result = await sandbox.run(msg(0));
    expect(result.outputs[0]![0]!.payload).toEqual([
      "RED.util.encodeObject is not available in Flowplane's function sandbox: it encodes for Node-RED's debug sidebar; send the value to a debug node",
      "RED.util.prepareJSONataExpression is not available in Flowplane's function sandbox: JSONata expressions; use a change node",
      "RED.util.evaluateJSONataExpression is not available in Flowplane's function sandbox: JSONata expressions; use a change node",
      "RED.util.evaluateNodeProperty is not available in Flowplane's function sandbox: JSONata expressions; use a change node",
      'RED.util.evaluateNodeProperty is not available in Flowplane\'s function sandbox: a date in a format of moment.js ("YYYY"); use "", "iso" or "object", or a change node',
    ]);
    sandbox.close();
  });

  it("RED.util's library is evaluated per engine: code that changes it changes only its own", async () => {
    const first = await createFunctionSandbox(options("RED.util.getMessageProperty = () => 'mine'; return { payload: RED.util.getMessageProperty(msg, 'payload') };"));
    const second = await createFunctionSandbox(options("return { payload: RED.util.getMessageProperty(msg, 'payload') };"));
    expect((await first.run(msg(1))).outputs[0]![0]!.payload).toBe("mine");
    expect((await second.run(msg(2))).outputs[0]![0]!.payload).toBe(2);
    first.close();
    second.close();
  });

  // Letters, digits, punctuation, whitespace, and some codes that leave the sandbox's path (é, ß, a control code).
  const collationAlphabet = "aAbBzZ09 _-.,;:!?'\"()[]{}@*/\\&#%`^+<=>|~$\t\n\r\u00e9\u00df\u0001";
  let collationSeed = 7;
  const collationRandom = () => (collationSeed = (collationSeed * 1103515245 + 12345) % 2147483648) / 2147483648;
  // Most short (sort keys), some past 64 characters (compared code by code), sharing long prefixes.
  const collationStrings = Array.from({ length: 1500 }, (_, i) => {
    const tail = Array.from({ length: 1 + Math.floor(collationRandom() * 6) }, () => collationAlphabet[Math.floor(collationRandom() * collationAlphabet.length)]).join("");
    return i % 10 === 0 ? "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor " + tail : tail;
  });
  // One test per locale and option set: each sorts 1,500 strings with ~16,000 comparisons in the
  // interpreter (a few hundred ms on a slow machine), so twelve in one test outran the test timeout.
  it.each<[string | undefined, Intl.CollatorOptions | undefined]>([
    [undefined, undefined],
    ["en", undefined],
    ["en-GB", { sensitivity: "base" }],
    [undefined, { sensitivity: "accent" }],
    [undefined, { sensitivity: "case" }],
    ["en", { caseFirst: "upper" }],
    ["en", { numeric: true }],
    ["cs", undefined],
    ["de", undefined],
    ["tr", undefined],
    ["et", undefined],
    ["da", undefined],
  ])("localeCompare of ASCII strings, compared in the sandbox, answers as ICU's collator (locale %s, options %o)", async (locale, collatorOptions) => {
    const sandbox = await createFunctionSandbox(
      options(
        [
          "const s = msg.payload; const [l, o] = msg.variant;",
          "const pairs = []; for (let i = 0; i + 1 < s.length; i++) pairs.push(s[i].localeCompare(s[i + 1], l ?? undefined, o ?? undefined));",
          "const c = new Intl.Collator(l ?? undefined, o ?? undefined);",
          "return { payload: [pairs, s.slice().sort(c.compare)] };",
        ].join("\n"),
        { timeoutMs: 10_000 },
      ),
    );
    const result = await sandbox.run(msg(collationStrings, { variant: [locale ?? null, collatorOptions ?? null] }));
    const c = new Intl.Collator(locale, collatorOptions);
    const expected = [collationStrings.slice(0, -1).map((x, i) => c.compare(x, collationStrings[i + 1]!)), collationStrings.slice().sort(c.compare)];
    expect(result.outputs[0]![0]!.payload).toEqual(expected);
    sandbox.close();
  });

  // One host call for array.sort(collator.compare) (driver.ts): the same order as V8's sort with that
  // collator, the same array back, holes and non-strings as Array.prototype.sort leaves them.
  const sortBody = [
    "const out = [];",
    "for (const [l, o] of msg.variants) {",
    "  const c = new Intl.Collator(l ?? undefined, o ?? undefined);",
    "  const a = msg.payload.slice();",
    "  const r = a.sort(c.compare);",
    "  out.push([a, r === a]);",
    "}",
    "const de = new Intl.Collator('de').compare;",
    "const mixed = [3, 'b', undefined, 'a', 10, , 'B', null, '\u00e4', 'a', , 'z'];",
    "mixed.sort(de);",
    "out.push([mixed.length, Object.keys(mixed), mixed.map((v) => v === undefined ? 'u' : v)]);",
    "const few = ['b', 'a', 'C'];",
    "out.push(few.sort(de));",
    "const frozen = Object.freeze(['b', 'a', 'c', 'd', 'e', 'f', 'g', 'h', 'i']);",
    "try { frozen.sort(de); out.push('no error'); } catch (e) { out.push(e.name); }",
    "const sparse = ['h', , 'g', 'f', 'e', 'd', 'c', 'b', 'a', , 'a'];",
    "sparse.sort(de);",
    "out.push([sparse.length, Object.keys(sparse), sparse]);",
    "return { payload: out };",
  ].join("\n");
  const sortStrings = [
    ...collationStrings.slice(0, 1200),
    "",
    "\u00e4",
    "a\u0308",
    "\u00df",
    "ss",
    "\u00e9t\u00e9",
    "ete",
    "\u{1F600}",
    "\u4e2d\u6587",
    "\ud800x",
    "a10",
    "a2",
    "A2",
    "\u0130",
    "i",
    "\u00f8",
    "\u00e5",
    "aa",
    "ch",
    "h",
    "c",
  ];
  it.each<[string, Array<[string | null, Intl.CollatorOptions | null]>]>([
    ["the root locale and English", [[null, null], ["en", { sensitivity: "base" }], ["en", { caseFirst: "upper" }], ["en", { numeric: true }]]],
    ["locales that tailor", [["de", null], ["sv", null], ["da", null], ["cs", null], ["tr", null], ["ja", null]]],
  ])("array.sort(collator.compare) orders strings as V8's sort with that collator does (%s)", async (_name, variants) => {
    const sandbox = await createFunctionSandbox(options(sortBody, { timeoutMs: 10_000 }));
    const input = { _msgid: "m-1", payload: sortStrings, variants };
    const result = await sandbox.run(msg(sortStrings, { variants }));
    const expected = (JSON.parse(JSON.stringify(new Function("msg", sortBody)(structuredClone(input)))) as { payload: unknown }).payload;
    expect(result.outputs[0]![0]!.payload).toEqual(expected);
    sandbox.close();
  });

  it("array.sort(collator.compare) is shaped as the built-in, reads a proxy's length once as ToLength does, and looks up no toJSON", async () => {
    const body = [
      "const c = new Intl.Collator('en').compare;",
      "const out = [typeof Array.prototype.sort, Array.prototype.sort.length, Array.prototype.sort.name, Object.hasOwn(Array.prototype.sort, 'prototype')];",
      "try { new [].sort(); out.push('constructed'); } catch (e) { out.push(e.name); }",
      "Array.prototype.toJSON = () => 'polluted'; Object.prototype.toJSON = () => 'polluted';",
      "const words = ['kiwi', 'Apple', 'banana', 'apple', 'cherry', 'Banana', 'date', 'fig', 'grape'];",
      "const sorted = words.slice().sort(c);",
      "delete Array.prototype.toJSON; delete Object.prototype.toJSON;",
      "out.push(sorted);",
      "let reads = 0;",
      "const target = ['j', 'i', 'h', 'g', 'f', 'e', 'd', 'c', 'b', 'a'];",
      "const proxy = new Proxy(target, { get: (t, k) => k === 'length' ? (reads++, 9.5) : t[k] });",
      "proxy.sort(c);",
      "out.push(reads, target);",
      "return { payload: out };",
    ].join("\n");
    const sandbox = await createFunctionSandbox(options(body, { timeoutMs: 5_000 }));
    const result = await sandbox.run(msg(0));
    const expected = (new Function("msg", body)({}) as { payload: unknown }).payload;
    expect(result.outputs[0]![0]!.payload).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(result.outputs[0]![0]!.payload).toEqual(["function", 1, "sort", false, "TypeError", ["apple", "Apple", "banana", "Banana", "cherry", "date", "fig", "grape", "kiwi"], 1, ["b", "c", "d", "e", "f", "g", "h", "i", "j", "a"]]);
    sandbox.close();
  });

  it("array.sort(collator.compare) past 10,000 items is the per-comparison sort, with the same order", async () => {
    const many = Array.from({ length: 10_050 }, (_, i) => collationStrings[i % collationStrings.length]! + (i % 7 === 0 ? "\u00e9" : ""));
    const body = "const c = new Intl.Collator('en'); return { payload: msg.payload.slice().sort(c.compare) };";
    const sandbox = await createFunctionSandbox(options(body, { timeoutMs: 60_000 }));
    const result = await sandbox.run(msg(many));
    expect(result.outputs[0]![0]!.payload).toEqual(many.slice().sort(new Intl.Collator("en").compare));
    sandbox.close();
  }, 120_000);

  it("Date, Math and JSON are available", async () => {
    const sandbox = await createFunctionSandbox(
      options("return { payload: [typeof Date.now(), Math.max(1, 2), JSON.parse(JSON.stringify({ a: 1 })).a, new Date(0).toISOString()] };"),
    );
    expect((await sandbox.run(msg(0))).outputs[0]![0]!.payload).toEqual(["number", 2, 1, "1970-01-01T00:00:00.000Z"]);
    sandbox.close();
  });

  it("context persists across calls, per node", async () => {
    const code = "const n = (context.get('n') || 0) + 1; context.set('n', n); msg.payload = n; return msg;";
    const a = await createFunctionSandbox(options(code));
    const b = await createFunctionSandbox(options(code));
    expect((await a.run(msg(0))).outputs[0]![0]!.payload).toBe(1);
    expect((await a.run(msg(0))).outputs[0]![0]!.payload).toBe(2);
    expect((await a.run(msg(0))).outputs[0]![0]!.payload).toBe(3);
    expect((await b.run(msg(0))).outputs[0]![0]!.payload).toBe(1);
    a.close();
    b.close();
  });

  it("context supports keys, array keys and callbacks", async () => {
    const sandbox = await createFunctionSandbox(
      options(`
        context.set(['a', 'b'], [1, 2]);
        let viaCallback;
        context.get('a', (err, v) => { viaCallback = v; });
        context.set('b', undefined);
        return { payload: [context.keys(), context.get(['a', 'b']), viaCallback] };`),
    );
    expect((await sandbox.run(msg(0))).outputs[0]![0]!.payload).toEqual([["a"], [1, null], 1]);
    sandbox.close();
  });

  it("flow context is shared between sandboxes of the same Map, as JSON copies", async () => {
    const flowContext = new Map<string, unknown>([["preset", { from: "host" }]]);
    const writer = await createFunctionSandbox(
      options("flow.set('count', msg.payload); flow.set('obj', { list: [1, 2] }); return { payload: flow.get('preset') };", { flowContext }),
    );
    const reader = await createFunctionSandbox(
      options(
        "const obj = flow.get('obj'); obj.list.push(3); return { payload: [flow.get('count'), obj, flow.get('obj'), flow.keys().sort(), context.flow.get('count')] };",
        { flowContext },
      ),
    );
    expect((await writer.run(msg(7))).outputs[0]![0]!.payload).toEqual({ from: "host" });
    expect(flowContext.get("count")).toBe(7);
    expect(flowContext.get("obj")).toEqual({ list: [1, 2] });
    const result = await reader.run(msg(0));
    expect(result.outputs[0]![0]!.payload).toEqual([7, { list: [1, 2, 3] }, { list: [1, 2] }, ["count", "obj", "preset"], 7]);

    const deleter = await createFunctionSandbox(options("flow.set('count', undefined); return null;", { flowContext }));
    await deleter.run(msg(0));
    expect(flowContext.has("count")).toBe(false);
    writer.close();
    reader.close();
    deleter.close();
  });

  it("flow.set beyond the flow context limit fails inside the sandbox", async () => {
    const flowContext = new Map<string, unknown>();
    const sandbox = await createFunctionSandbox(
      options("flow.set('k' + msg.payload, 'x'.repeat(600)); return msg;", { flowContext, flowContextLimitBytes: 1500 }),
    );
    await sandbox.run(msg(1));
    await sandbox.run(msg(2));
    await sandbox.run(msg(2)); // overwriting does not count twice
    const error = await sandboxError(sandbox.run(msg(3)));
    expect(error.kind).toBe("runtime");
    expect(error.message).toContain("flow context is full");
    sandbox.close();
  });

  it("initialize runs once at creation, with context; finalize runs at close", async () => {
    const flowContext = new Map<string, unknown>();
    const sandbox = await createFunctionSandbox(
      options("context.set('calls', context.get('calls') + 1); msg.payload = [context.get('base'), context.get('calls')]; return msg;", {
        flowContext,
        initialize: "context.set('base', 100); context.set('calls', 0); node.log('init'); node.status({ fill: 'blue', shape: 'dot', text: 'ready' });",
        finalize: "flow.set('finalCalls', context.get('calls')); node.warn('bye');",
      }),
    );
    expect(sandbox.initResult.logs).toEqual([{ level: "log", message: "init" }]);
    expect(sandbox.initResult.status).toEqual({ fill: "blue", shape: "dot", text: "ready" });
    expect((await sandbox.run(msg(0))).outputs[0]![0]!.payload).toEqual([100, 1]);
    expect((await sandbox.run(msg(0))).outputs[0]![0]!.payload).toEqual([100, 2]);
    const closing = await sandbox.close();
    expect(closing?.logs).toEqual([{ level: "warn", message: "bye" }]);
    expect(flowContext.get("finalCalls")).toBe(2);
    expect(await sandbox.close()).toBeNull();
    await expect(sandbox.run(msg(0))).rejects.toBeInstanceOf(SandboxError);
  });

  it("await works: the body runs as an async function when it uses await", async () => {
    const sandbox = await createFunctionSandbox(
      options("const v = await Promise.resolve(msg.payload + 1); node.send({ payload: 'early' }); msg.payload = v; return msg;"),
    );
    const result = await sandbox.run(msg(1));
    expect(result.outputs).toEqual([[{ _msgid: "m-1", payload: 2 }]]);
    expect(result.sent).toEqual([[[{ _msgid: "m-1", payload: "early" }]]]);
    sandbox.close();
  });

  it("a thrown error is a runtime SandboxError in Node-RED's words (V8's message, no line), keeping what was sent before", async () => {
    const sandbox = await createFunctionSandbox(options("node.send({ payload: 'before' });\nnode.warn('w');\nreturn msg.payload.x.y;"));
    const error = await sandboxError(sandbox.run(msg(undefined)));
    expect(error.kind).toBe("runtime");
    expect(error.message).toBe("TypeError: Cannot read properties of undefined (reading 'x')");
    expect(error.thrownError).toBe(true);
    // The msg as the code left it, for the catch nodes.
    expect(error.result?.msg).toEqual({ _msgid: "m-1" });
    expect(error.result?.sent).toEqual([[[{ _msgid: "m-1", payload: "before" }]]]);
    expect(error.result?.logs).toEqual([{ level: "warn", message: "w" }]);
    // The sandbox is still usable.
    expect((await sandbox.run(msg({ x: { y: 5 } }))).outputs[0]![0]).toBeUndefined();
    sandbox.close();

    const thrower = await createFunctionSandbox(options("throw 'plain string';"));
    expect((await sandboxError(thrower.run(msg(0)))).message).toContain("plain string");
    thrower.close();

    const rejecter = await createFunctionSandbox(options("await null; throw new RangeError('async bad');"));
    const rejected = await sandboxError(rejecter.run(msg(0)));
    expect(rejected.kind).toBe("runtime");
    expect(rejected.message).toContain("RangeError: async bad");
    rejecter.close();
  });

  it("a message that cannot be serialized is rejected on the way out", async () => {
    const sandbox = await createFunctionSandbox(options("msg.self = msg; return msg;"));
    const error = await sandboxError(sandbox.run(msg(0)));
    expect(error.kind).toBe("runtime");
    expect(error.message).toMatch(/circular/i);
    sandbox.close();
  });
});

describe("function sandbox: Node's util", () => {
  it("has exactly the names the import report counts as present (SANDBOX_NODE_UTIL)", async () => {
    const sandbox = await createFunctionSandbox(options("msg.payload = Object.keys(util).sort(); return msg;"));
    const result = await sandbox.run(msg(null));
    expect(result.outputs[0]![0]!.payload).toEqual([...SANDBOX_NODE_UTIL].sort());
    sandbox.close();
  });

  it("is loaded at its first use, also when the code reaches it by a computed name, and code may shadow or replace it", async () => {
    const computed = await createFunctionSandbox(options("msg.payload = globalThis['ut' + 'il'].format('%s=%d', 'a', 1); return msg;"));
    expect((await computed.run(msg(null))).outputs[0]![0]!.payload).toBe("a=1");
    computed.close();
    const shadowed = await createFunctionSandbox(options("const util = { format: () => 'mine' }; msg.payload = util.format(); return msg;"));
    expect((await shadowed.run(msg(null))).outputs[0]![0]!.payload).toBe("mine");
    shadowed.close();
    const replaced = await createFunctionSandbox(options("util = 5; msg.payload = [util, typeof RED.util.getMessageProperty]; return msg;"));
    expect((await replaced.run(msg(null))).outputs[0]![0]!.payload).toEqual([5, "function"]);
    replaced.close();
  });

  it("shows an error as Node-RED does, its header first, with the code's own frames named as Node-RED's and none of the sandbox's", async () => {
    const sandbox = await createFunctionSandbox(options("function parse() { throw new TypeError('bad input'); }\ntry { parse(); } catch (e) { msg.payload = util.inspect(e); }\nreturn msg;"));
    const shown = (await sandbox.run(msg(null))).outputs[0]![0]!.payload as string;
    expect(shown.split("\n")[0]).toBe("TypeError: bad input");
    // Node-RED's frames: its file name for the code, the line one past the code's (its wrapper's first line).
    expect(shown).toBe("TypeError: bad input\n    at parse (Function node:n1 [fn]:2:39)\n    at Function node:n1 [fn]:3:12");
    sandbox.close();
  });

  it("isDeepStrictEqual follows cycles once and compares Maps by deep keys", async () => {
    const code = [
      "const a = { n: 1 }; a.self = a; const b = { n: 1 }; b.self = b; const c = { n: 2 }; c.self = c;",
      "msg.payload = [util.isDeepStrictEqual(a, b), util.isDeepStrictEqual(a, c), util.isDeepStrictEqual(new Map([[{ k: [1] }, 1]]), new Map([[{ k: [1] }, 2]]))];",
      "return msg;",
    ].join("\n");
    const sandbox = await createFunctionSandbox(options(code));
    expect((await sandbox.run(msg(null))).outputs[0]![0]!.payload).toEqual([true, false, false]);
    sandbox.close();
  });

  it("util.deprecate warns once per function (the node's warning), and still calls it", async () => {
    const sandbox = await createFunctionSandbox(options("const f = util.deprecate((x) => x + 1, 'f() is old', 'DEP_F');\nmsg.payload = [f(1), f(2), f(3)];\nreturn msg;"));
    const result = await sandbox.run(msg(null));
    expect(result.outputs[0]![0]!.payload).toEqual([2, 3, 4]);
    expect(result.logs).toEqual([{ level: "warn", message: "[DEP_F] DeprecationWarning: f() is old" }]);
    sandbox.close();
  });

  it("inspects a Buffer the message brought as Node does", async () => {
    const sandbox = await createFunctionSandbox(options("msg.payload = util.inspect(msg.payload); return msg;"));
    const result = await sandbox.run(msg(Buffer.from("hi")));
    expect(result.outputs[0]![0]!.payload).toBe("<Buffer 68 69>");
    sandbox.close();
  });
});

describe("function sandbox: console", () => {
  it("has Node's console methods: none throws, warnings and errors are the node's, a failed assert and trace are errors", async () => {
    const code = [
      "console.time('t'); console.timeLog('t'); console.timeEnd('t'); console.timeEnd('t');",
      "console.count(); console.count('x'); console.countReset('missing'); console.countReset('x'); console.countReset('x');",
      "const now = Date.now; Date.now = undefined; console.time('mocked'); console.timeEnd('mocked'); Date.now = now;",
      "console.group('g'); console.groupCollapsed(); console.groupEnd(); console.table([{ a: 1 }]); console.dir({ b: 2 }, { depth: 0 });",
      "console.assert(true, 'not shown'); console.assert(false, 'shown', 1); console.trace('here');",
      "console.clear(); console.profile(); console.profileEnd(); console.timeStamp(); console.dirxml('x');",
      "return msg;",
    ].join("\n");
    const sandbox = await createFunctionSandbox(options(code));
    const result = await sandbox.run(msg(null));
    expect(result.outputs[0]).toHaveLength(1);
    expect(result.logs.filter((l) => l.level !== "log")).toEqual([
      { level: "warn", message: "No such label 't' for console.timeEnd()" },
      { level: "warn", message: "Count for 'missing' does not exist" },
      { level: "warn", message: "Count for 'x' does not exist" },
      { level: "error", message: "Assertion failed: shown 1" },
      { level: "error", message: "Trace: here" },
    ]);
    sandbox.close();
  });
});

describe("function sandbox: URL and URLSearchParams", () => {
  it("are loaded at their first use, also by a computed name, keep searchParams one object, and may be shadowed", async () => {
    const code = [
      "const U = globalThis['U' + 'RL'];",
      "const u = new U('https://h.example/p?a=1');",
      "const same = u.searchParams === u.searchParams;",
      "u.searchParams.set('a', '2');",
      "msg.payload = [u.href, same, u instanceof U, typeof URLSearchParams];",
      "return msg;",
    ].join("\n");
    const sandbox = await createFunctionSandbox(options(code));
    expect((await sandbox.run(msg(null))).outputs[0]![0]!.payload).toEqual(["https://h.example/p?a=2", true, true, "function"]);
    sandbox.close();
    const shadowed = await createFunctionSandbox(options("const URL = (s) => 'mine:' + s; msg.payload = URL('x'); return msg;"));
    expect((await shadowed.run(msg(null))).outputs[0]![0]!.payload).toBe("mine:x");
    shadowed.close();
  });

  it("a URL of more than 1,000,000 characters is a RangeError the code can catch (the host's parse cannot be interrupted)", async () => {
    const code = "try { new URL('https://h.example/' + 'a'.repeat(1000001)); } catch (e) { msg.payload = [e.name, e.message]; }\nmsg.ok = new URL('https://h.example/' + 'a'.repeat(1000)).pathname.length;\nreturn msg;";
    const sandbox = await createFunctionSandbox(options(code));
    const out = (await sandbox.run(msg(null))).outputs[0]![0]!;
    expect(out.payload).toEqual(["RangeError", "URL: a string of more than 1,000,000 characters"]);
    expect(out.ok).toBe(1001);
    sandbox.close();
  });

  it("a change of searchParams that would make the URL too long is refused whole: the list and the URL stay as they were", async () => {
    const code = [
      "const u = new URL('https://h.example/?q=' + 'é'.repeat(100000));",
      "try { u.searchParams.append('r', 'é'.repeat(100000)); } catch (e) { msg.error1 = e.name; }",
      "msg.payload = [u.searchParams.size, u.searchParams.has('r'), u.search.length];",
      "return msg;",
    ].join("\n");
    const sandbox = await createFunctionSandbox(options(code));
    const out = (await sandbox.run(msg(null))).outputs[0]![0]!;
    expect(out.error1).toBe("RangeError");
    expect(out.payload).toEqual([1, false, 3 + 100000 * 6]);
    sandbox.close();
  });

  it("code that replaces JSON or WeakMap's methods before its first URL neither reaches nor forges a URL's parts", async () => {
    const code = [
      "const leaked = [];",
      "const get = WeakMap.prototype.get;",
      "WeakMap.prototype.get = function (k) { leaked.push(this); return get.call(this, k); };",
      "JSON.parse = () => ['https://forged.example/', '', '', '', '', '', '', '', '', '', ''];",
      "const u = new globalThis['U' + 'RL']('https://real.example/p');",
      "msg.payload = [u.href, u.hostname, leaked.length];",
      "return msg;",
    ].join("\n");
    const sandbox = await createFunctionSandbox(options(code));
    expect((await sandbox.run(msg(null))).outputs[0]![0]!.payload).toEqual(["https://real.example/p", "real.example", 0]);
    sandbox.close();
  });

  it("a URL's private parts are out of the code's reach: a forged object is refused", async () => {
    const code = [
      "const get = Object.getOwnPropertyDescriptor(URL.prototype, 'href').get;",
      "const out = [];",
      "for (const self of [{}, Object.create(URL.prototype), new URLSearchParams('a=1')]) { try { get.call(self); out.push('read'); } catch (e) { out.push(e.code); } }",
      "try { URLSearchParams.prototype.get.call({}, 'a'); } catch (e) { out.push(e.code); }",
      "msg.payload = [out, Object.keys(new URL('https://h.example/')), JSON.stringify(new URL('https://h.example/'))];",
      "return msg;",
    ].join("\n");
    const sandbox = await createFunctionSandbox(options(code));
    expect((await sandbox.run(msg(null))).outputs[0]![0]!.payload).toEqual([
      ["ERR_INVALID_THIS", "ERR_INVALID_THIS", "ERR_INVALID_THIS", "ERR_INVALID_THIS"],
      [],
      '"https://h.example/"',
    ]);
    sandbox.close();
  });
});

describe("function sandbox: timers", () => {
  it("setTimeout reports the timer; fire() runs it once with its arguments, `this` = node, a fresh _msgid", async () => {
    const sandbox = await createFunctionSandbox(
      options("const id = setTimeout(function (a, b) { node.send({ payload: [a, b, msg.payload, this === node] }); node.status('fired'); node.warn('w'); }, 25, 'x', 2); return { payload: id };"),
    );
    const result = await sandbox.run(msg("in"));
    const id = result.outputs[0]![0]!.payload as number;
    expect(result.timers).toEqual({ set: [[id, 25, false]] });
    const fired = await sandbox.fire(id);
    expect(fired.outputs).toEqual([[]]);
    expect(fired.sent).toEqual([[[{ _msgid: expect.stringMatching(/^[0-9a-f]{16}$/), payload: ["x", 2, "in", true] }]]]);
    expect(fired.status).toEqual({ fill: "grey", shape: "dot", text: "fired" });
    expect(fired.logs).toEqual([{ level: "warn", message: "w" }]);
    expect(fired.timers).toBeUndefined();
    // Once: the engine no longer holds it.
    const again = await sandbox.fire(id);
    expect(again.sent).toEqual([]);
    expect(again.timers).toEqual({ clear: [id] });
    sandbox.close();
  });

  it("clearTimeout reports a timer of an earlier call; one set and cleared in the same call is not reported", async () => {
    const sandbox = await createFunctionSandbox(
      options(`if (msg.payload === 'set') return { payload: setTimeout(() => node.send({ payload: 'ran' }), 10) };
               if (msg.payload === 'both') { clearInterval(setInterval(() => {}, 5)); return null; }
               clearTimeout(msg.payload); clearTimeout(msg.payload); clearTimeout(); clearInterval({}); return null;`),
    );
    const id = (await sandbox.run(msg("set"))).outputs[0]![0]!.payload as number;
    expect((await sandbox.run(msg("both"))).timers).toBeUndefined();
    expect((await sandbox.run(msg(id))).timers).toEqual({ clear: [id] });
    const fired = await sandbox.fire(id);
    expect(fired.sent).toEqual([]);
    sandbox.close();
  });

  it("setInterval stays until cleared; its callback keeps the node's context and may clear itself", async () => {
    const sandbox = await createFunctionSandbox(
      options("const id = setInterval(() => { const n = (context.get('n') || 0) + 1; context.set('n', n); node.send({ payload: n }); if (n === 3) clearInterval(id); }, 10); return { payload: id };"),
    );
    const first = await sandbox.run(msg(0));
    const id = first.outputs[0]![0]!.payload as number;
    expect(first.timers).toEqual({ set: [[id, 10, true]] });
    const payloads: unknown[] = [];
    for (let i = 0; i < 4; i++) {
      const fired = await sandbox.fire(id);
      payloads.push(...fired.sent.map((ports) => ports[0]![0]!.payload));
      if (i === 2) expect(fired.timers).toEqual({ clear: [id] });
    }
    expect(payloads).toEqual([1, 2, 3]);
    sandbox.close();
  });

  it("delays are coerced as Node does: not in [1, 2^31 - 1] becomes 1 ms (too large with a warning)", async () => {
    const sandbox = await createFunctionSandbox(
      options("for (const d of [NaN, 0, -5, undefined, '20', 1.5, 2147483647, 2 ** 31, { valueOf: () => 7 }]) setTimeout(() => {}, d); return null;"),
    );
    const result = await sandbox.run(msg(0));
    expect(result.timers!.set!.map(([, delay]) => delay)).toEqual([1, 1, 1, 1, 20, 1.5, 2147483647, 1, 7]);
    expect(result.logs).toEqual([{ level: "warn", message: expect.stringContaining("TimeoutOverflowWarning: 2147483648 does not fit") }]);
    sandbox.close();
  });

  it("a callback that is not a function is a TypeError", async () => {
    const sandbox = await createFunctionSandbox(options("setTimeout('node.send(1)', 5);"));
    const error = await sandboxError(sandbox.run(msg(0)));
    expect(error.message).toMatch(/^TypeError: The "callback" argument of setTimeout must be of type function. Received string/);
    sandbox.close();
  });

  it("an error in a callback rejects fire() in Node-RED's words, keeping what it did before; the other timers go on", async () => {
    const sandbox = await createFunctionSandbox(
      options("setTimeout(() => {\n  node.send({ payload: 'before' });\n  setTimeout(() => node.send({ payload: 'next' }), 5);\n  null.boom;\n}, 5);\nsetInterval(() => { throw new RangeError('tick'); }, 5);"),
    );
    const [bad, tick] = (await sandbox.run(msg(0))).timers!.set!.map(([id]) => id);
    const error = await sandboxError(sandbox.fire(bad!));
    expect(error.kind).toBe("runtime");
    expect(error.message).toBe("TypeError: Cannot read properties of null (reading 'boom')");
    expect(error.result?.sent).toEqual([[[expect.objectContaining({ payload: "before" })]]]);
    const [next] = error.result!.timers!.set![0]!;
    expect((await sandbox.fire(next)).sent).toEqual([[[expect.objectContaining({ payload: "next" })]]]);
    // A throwing interval stays set.
    expect((await sandboxError(sandbox.fire(tick!))).message).toBe("RangeError: tick");
    expect((await sandboxError(sandbox.fire(tick!))).message).toBe("RangeError: tick");
    sandbox.close();
  });

  it("a callback has the call's time limit", async () => {
    const sandbox = await createFunctionSandbox(options("setTimeout(() => { while (true) {} }, 1); return null;", { timeoutMs: 100 }));
    const id = (await sandbox.run(msg(0))).timers!.set![0]![0];
    expect((await sandboxError(sandbox.fire(id!))).kind).toBe("timeout");
    sandbox.close();
  });

  it("initialize may set timers; its result says where the engine's ids start", async () => {
    const sandbox = await createFunctionSandbox(options("return msg;", { initialize: "setTimeout((w) => node.send({ payload: w }), 3, 'init');" }));
    expect(sandbox.initResult.timers).toEqual({ set: [[1, 3, false]], from: 1 });
    expect((await sandbox.fire(1)).sent).toEqual([[[expect.objectContaining({ payload: "init" })]]]);
    sandbox.close();
  });

  it("a node may hold 1,000 timers at once; past it setTimeout throws inside the sandbox", async () => {
    const sandbox = await createFunctionSandbox(
      options(`if (msg.payload === 'fill') { for (let i = 0; i < 1000; i++) setTimeout(() => {}, 1000); return null; }
               try { setInterval(() => {}, 1000); return { payload: 'set' }; } catch (e) { return { payload: String(e) }; }`),
    );
    const set = (await sandbox.run(msg("fill"))).timers!.set!;
    expect(set).toHaveLength(1000);
    expect((await sandbox.run(msg("more"))).outputs[0]![0]!.payload).toMatch(/^Error: setInterval: too many timers/);
    // One has run: there is room for one more.
    await sandbox.fire(set[0]![0]);
    expect((await sandbox.run(msg("more"))).outputs[0]![0]!.payload).toBe("set");
    sandbox.close();
  });

  it("a body still pending at the end of its call sends what it returns when a timer settles it, and says which run settled", async () => {
    const sandbox = await createFunctionSandbox(options("await new Promise((resolve) => setTimeout(resolve, 10)); msg.payload += 1; return msg;"));
    const result = await sandbox.run(msg(1));
    expect(result.outputs).toEqual([[]]);
    expect(result.logs).toEqual([]);
    expect(result.runPending).toBe(true);
    const id = result.timers!.set![0]![0];
    const fired = await sandbox.fire(id!);
    expect(fired.sent).toEqual([[[{ _msgid: expect.any(String), payload: 2 }]]]);
    expect(fired.settled).toEqual([{ run: result.run, thrownError: false, msg: { _msgid: "m-1", payload: 2 } }]);

    // A rejection fails that run (the host gives it to the catch nodes), in Node-RED's words.
    const rejecting = await createFunctionSandbox(options("await new Promise((resolve) => setTimeout(resolve, 10));\nnotDefined;"));
    const run = await rejecting.run(msg(1));
    const rejected = await rejecting.fire(run.timers!.set![0]![0]!);
    expect(rejected.logs).toEqual([]);
    expect(rejected.settled).toEqual([
      { run: run.run, thrownError: true, error: "ReferenceError: ReferenceError: notDefined is not defined (line 2, col 1)", msg: { _msgid: "m-1", payload: 1 } },
    ]);
    rejecting.close();
    sandbox.close();
  });

  it("timers are lost with an engine re-created after running out of memory; old ids run nothing and are never reused", async () => {
    const sandbox = await createFunctionSandbox(
      options("if (msg.payload === 'bomb') { const a = []; while (true) a.push(new Array(1e5).fill(1)); } return { payload: setTimeout(() => node.send({ payload: 'old' }), 5) };", {
        memoryLimitBytes: 8 * 1024 * 1024,
        initialize: "setInterval(() => {}, 1000);",
      }),
    );
    const old = (await sandbox.run(msg(0))).outputs[0]![0]!.payload as number;
    expect((await sandboxError(sandbox.run(msg("bomb")))).kind).toBe("memory");
    const stale = await sandbox.fire(old);
    expect(stale.sent).toEqual([]);
    // The new engine's initialize set its interval again, above every id seen before.
    expect(stale.timers?.from).toBeGreaterThan(old);
    expect(stale.timers?.set).toEqual([[stale.timers!.from!, 1000, true]]);
    expect(stale.timers?.clear).toEqual([old]);
    const fresh = (await sandbox.run(msg(0))).outputs[0]![0]!.payload as number;
    expect(fresh).toBeGreaterThan(stale.timers!.from!);
    sandbox.close();
  });
});

describe("function sandbox: isolation", () => {
  it("host globals are absent: process, require, fetch, host timers (`global` is Node-RED's global context)", async () => {
    const sandbox = await createFunctionSandbox(
      options(`return { payload: {
        process: typeof process, globalProcess: typeof globalThis.process, require: typeof require,
        module: typeof module, fetch: typeof fetch, setImmediate: typeof setImmediate,
        queueMicrotask: typeof queueMicrotask, globalProcessOfContext: typeof global.process, XMLHttpRequest: typeof XMLHttpRequest,
        WebSocket: typeof WebSocket, std: typeof std, os: typeof os, Deno: typeof Deno, Bun: typeof Bun,
      } };`),
    );
    const payload = (await sandbox.run(msg(0))).outputs[0]![0]!.payload as Record<string, string>;
    for (const [name, type] of Object.entries(payload)) expect([name, type]).toEqual([name, "undefined"]);
    sandbox.close();
  });

  it("Buffer is Node's API, evaluated in the engine, not the host's: it reaches nothing outside", async () => {
    const sandbox = await createFunctionSandbox(
      options(`const b = Buffer.from('héllo');
        return { payload: { type: typeof Buffer, text: b.toString('hex'), isBuffer: Buffer.isBuffer(b), proc: typeof Buffer.prototype.constructor.process, ctor: Buffer === b.constructor, poolSize: typeof Buffer.poolSize } };`),
    );
    expect((await sandbox.run(msg(0))).outputs[0]![0]!.payload).toEqual({ type: "function", text: "68c3a96c6c6f", isBuffer: true, proc: "undefined", ctor: true, poolSize: "number" });
    sandbox.close();
  });

  it("a message's Buffers reach the code as Buffers and leave it as Buffers (a link call's answer too); an object shaped like a Buffer's JSON stays an object", async () => {
    const sandbox = await createFunctionSandbox(
      options(`if (msg.topic === 'link') { const answer = await node.linkcall('target', { payload: 1 }); return { payload: [Buffer.isBuffer(answer.payload), answer.payload.toString()] }; }
        msg.seen = [Buffer.isBuffer(msg.payload), msg.payload.readUInt16BE(0), Buffer.isBuffer(msg.shaped)];
        msg.payload = Buffer.concat([msg.payload, Buffer.from([0xff])]);
        return msg;`),
    );
    const out = (await sandbox.run({ _msgid: "b1", payload: Buffer.from([1, 2]), shaped: { type: "Buffer", data: [1] } })).outputs[0]![0]!;
    expect(out.seen).toEqual([true, 258, false]);
    expect(Buffer.isBuffer(out.payload)).toBe(true);
    expect(out.payload).toEqual(Buffer.from([1, 2, 0xff]));
    expect(out.shaped).toEqual({ type: "Buffer", data: [1] });
    const pending = await sandbox.run({ _msgid: "b2", topic: "link" });
    const answered = await sandbox.linkReturn(pending.linkCalls![0]!.id, { msg: { payload: Buffer.from("pong") } });
    expect(answered.sent.flat(2)[0]?.payload ?? answered.outputs[0]?.[0]?.payload).toEqual([true, "pong"]);
    sandbox.close();
  });

  it("Buffer's evaluation is not counted in a run's time limit (a node with a few ms gets its Buffers), and a run that times out while writing one leaves Buffer's JSON as Node's", async () => {
    const quick = await createFunctionSandbox(options("msg.hex = msg.payload.toString('hex'); return msg;", { timeoutMs: 5 }));
    const out = (await quick.run({ _msgid: "q1", payload: Buffer.from([0xab, 0xcd]) })).outputs[0]![0]!;
    expect(out.hex).toBe("abcd");
    quick.close();
    const looping = await createFunctionSandbox(
      options("if (msg.topic === 'json') return { payload: JSON.stringify(Buffer.from('A')) };\nconst b = Buffer.alloc(4096); for (;;) node.send({ payload: b });", { timeoutMs: 100 }),
    );
    await expect(looping.run({ _msgid: "l1", topic: "loop" })).rejects.toMatchObject({ kind: "timeout" });
    expect((await looping.run({ _msgid: "l2", topic: "json" })).outputs[0]![0]!.payload).toBe('{"type":"Buffer","data":[65]}');
    looping.close();
  });

  it("RED.util, Intl and a Buffer that RED.util makes work from the first run of a node whose time limit is a few ms (each evaluated with the engine when the code names it)", async () => {
    for (const code of [
      "return { payload: RED.util.ensureBuffer('hi').toString('hex') };",
      "const u = RED.util; return { payload: u.getMessageProperty(msg, 'topic') };",
      "return { payload: new Intl.NumberFormat('de-DE').format(1234.5) };",
    ]) {
      const quick = await createFunctionSandbox(options(code, { timeoutMs: 3 }));
      const out = await quick.run({ _msgid: "q", topic: "t" });
      expect(out.outputs[0]![0]!.payload, code).toBe(code.includes("ensureBuffer") ? "6869" : code.includes("Intl") ? "1.234,5" : "t");
      quick.close();
    }
  });

  it("a locale call carries at most 1,000,000 characters to the host (which cannot interrupt it), and at most 16,384 of locales and options: past it a RangeError the code can catch", async () => {
    const sandbox = await createFunctionSandbox(
      options(
        [
          "const big = 'é'.repeat(1000001);",
          "const tries = [() => big.localeCompare('y', 'de'), () => big.toLocaleUpperCase('tr'), () => new Intl.ListFormat('en').format(new Array(250000).fill('abcd')), () => 'é'.repeat(1000).localeCompare('y', 'de')];",
          "return { payload: tries.map((t) => { try { return t(); } catch (e) { return [e.name, e.message]; } }) };",
        ].join("\n"),
        { timeoutMs: 5_000 },
      ),
    );
    const tooLong = ["RangeError", "Intl: the arguments are too long for the function sandbox (over 1,000,000 characters)"];
    expect((await sandbox.run(msg(0))).outputs[0]![0]!.payload).toEqual([tooLong, tooLong, tooLong, -1]);
    sandbox.close();
    // Locales and options are bounded further (V8's locale list handling is quadratic in the tags).
    const locales = await createFunctionSandbox(
      options(
        [
          "const many = Array.from({ length: 3000 }, (_, i) => 'en-x-' + i.toString(36).padStart(4, '0'));",
          "const tries = [() => 'a'.localeCompare('b', many), () => (1).toLocaleString(many), () => new Intl.NumberFormat(many), () => Intl.getCanonicalLocales(many), () => Intl.Collator.supportedLocalesOf(many), () => 'a'.localeCompare('b', many.slice(0, 10))];",
          "return { payload: tries.map((t) => { try { t(); return 'ok'; } catch (e) { return [e.name, e.message]; } }) };",
        ].join("\n"),
      ),
    );
    const argsTooLong = ["RangeError", "Intl: the locales and options are too long for the function sandbox (over 16,384 characters as JSON)"];
    expect((await locales.run(msg(0))).outputs[0]![0]!.payload).toEqual([argsTooLong, argsTooLong, argsTooLong, argsTooLong, argsTooLong, "ok"]);
    locales.close();
  });

  it("a part of a Buffer (slice, subarray) leaves as its own bytes; the stand-in's key is not one a message can forge", async () => {
    const sandbox = await createFunctionSandbox(
      options("const big = Buffer.alloc(1000, 1); big[500] = 9;\nmsg.part = big.subarray(500, 503); msg.forged = RED.util.cloneMessage({ x: msg.forged }).x; return msg;"),
    );
    const out = (await sandbox.run({ _msgid: "p1", forged: { "\u0000b": "QUI=" } })).outputs[0]![0]!;
    expect(out.part).toEqual(Buffer.from([9, 1, 1]));
    expect(out.forged).toEqual({ "\u0000b": "QUI=" });
    sandbox.close();
  });

  it("referencing process or require is a ReferenceError inside the sandbox", async () => {
    for (const code of ["return process.env;", "return require('fs');", "return fetch('http://127.0.0.1/');", "setImmediate(() => {});"]) {
      const sandbox = await createFunctionSandbox(options(code));
      const error = await sandboxError(sandbox.run(msg(0)));
      expect(error.kind).toBe("runtime");
      expect(error.message).toContain("ReferenceError");
      sandbox.close();
    }
  });

  it("import() cannot load modules", async () => {
    const sandbox = await createFunctionSandbox(
      options(`
        const results = [];
        for (const name of ['fs', 'node:child_process', './function-sandbox.ts', 'data:text/javascript,export default 1']) {
          try { await import(name); results.push('loaded ' + name); } catch (e) { results.push(String(e)); }
        }
        return { payload: results };`),
    );
    const payload = (await sandbox.run(msg(0))).outputs[0]![0]!.payload as string[];
    expect(payload).toHaveLength(4);
    for (const entry of payload) expect(entry).not.toMatch(/^loaded/);
    sandbox.close();
  });

  it("the function constructor and eval stay inside the sandbox", async () => {
    const sandbox = await createFunctionSandbox(
      options(`return { payload: [
        typeof Function('return this')().process,
        typeof (0, eval)('globalThis').require,
        typeof node.send.constructor('return process')().env,
      ] };`),
    );
    const error = await sandboxError(sandbox.run(msg(0)));
    expect(error.message).toContain("ReferenceError");
    sandbox.close();
    const sandbox2 = await createFunctionSandbox(
      options("return { payload: [typeof Function('return this')().process, typeof (0, eval)('globalThis').require] };"),
    );
    expect((await sandbox2.run(msg(0))).outputs[0]![0]!.payload).toEqual(["undefined", "undefined"]);
    sandbox2.close();
  });

  it("two sandboxes never share globals or prototypes", async () => {
    const a = await createFunctionSandbox(
      options("globalThis.x = 1; Array.prototype.polluted = true; Object.prototype.evil = 1; JSON.stringify = () => 'hacked'; return msg;"),
    );
    const b = await createFunctionSandbox(
      options("return { payload: [typeof globalThis.x, [].polluted, ({}).evil, JSON.stringify({ a: 1 })] };"),
    );
    await a.run(msg(0));
    expect((await b.run(msg(0))).outputs[0]![0]!.payload).toEqual(["undefined", null, null, '{"a":1}']);
    // The host is not polluted either.
    expect((Object.prototype as Record<string, unknown>).evil).toBeUndefined();
    expect(JSON.stringify({ a: 1 })).toBe('{"a":1}');
    // The polluting sandbox still delivers its messages (the driver captured JSON before user code ran).
    expect((await a.run(msg(5))).outputs[0]![0]!.payload).toBe(5);
    a.close();
    b.close();
  });

  it("the flow-context callbacks are not reachable as globals", async () => {
    const sandbox = await createFunctionSandbox(
      options("return { payload: Object.getOwnPropertyNames(globalThis).filter((n) => /flow|host/i.test(n)) };"),
    );
    expect((await sandbox.run(msg(0))).outputs[0]![0]!.payload).toEqual([]);
    sandbox.close();
  });

  it("a syntax error is reported at creation with the engine's message and line", async () => {
    const error = await sandboxError(createFunctionSandbox(options("let x = 1;\nreturn msg +;")));
    expect(error.kind).toBe("syntax");
    expect(error.message).toMatch(/^SyntaxError: unexpected token.*\(line 2, column \d+\)$/);

    const initError = await sandboxError(createFunctionSandbox(options("return msg;", { initialize: "let = ;" })));
    expect(initError.kind).toBe("syntax");
    const finError = await sandboxError(createFunctionSandbox(options("return msg;", { finalize: "}" })));
    expect(finError.kind).toBe("syntax");
  });

  it("code nested too deeply for the parser is a syntax error, not a crash", async () => {
    for (const code of ["(".repeat(100_000), "return " + "[".repeat(100_000), "let x = " + "{a:".repeat(50_000)]) {
      const error = await sandboxError(createFunctionSandbox(options(code)));
      expect(error.kind).toBe("syntax");
    }
  });

  it("code that closes the wrapper early still cannot reach the driver's host callbacks", async () => {
    const flowContext = new Map<string, unknown>();
    const probe = "[typeof hostFlowGet, typeof hostFlowSet, typeof dispatch, typeof pending, typeof sent, typeof store].join()";
    const sandbox = await createFunctionSandbox(
      options(`return { payload: ${probe} }; }); globalThis.leaked = ${probe}; (function () {`, { flowContext }),
    );
    await sandbox.run(msg(0));
    const reader = await createFunctionSandbox(options(`return { payload: [globalThis.leaked, ${probe}] };`, { flowContext }));
    expect((await reader.run(msg(0))).outputs[0]![0]!.payload).toEqual([null, Array(6).fill("undefined").join()]);
    sandbox.close();
    reader.close();
  });

  it("an infinite loop times out, and the sandbox keeps working with its context", async () => {
    const sandbox = await createFunctionSandbox(
      options("context.set('n', (context.get('n') || 0) + 1); if (msg.payload === 'loop') { while (true) {} } msg.payload = context.get('n'); return msg;", {
        timeoutMs: 200,
      }),
    );
    const started = Date.now();
    const error = await sandboxError(sandbox.run(msg("loop")));
    const elapsed = Date.now() - started;
    expect(error.kind).toBe("timeout");
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(3000);
    expect((await sandbox.run(msg(0))).outputs[0]![0]!.payload).toBe(2);
    sandbox.close();
  });

  it("catch and finally cannot swallow the timeout", async () => {
    const sandbox = await createFunctionSandbox(
      options("try { while (true) {} } catch (e) { return { payload: 'caught' }; } finally { while (true) {} }", { timeoutMs: 100 }),
    );
    expect((await sandboxError(sandbox.run(msg(0)))).kind).toBe("timeout");
    sandbox.close();
  });

  it("an endless promise chain times out, and its leftover jobs do not leak into the next call", async () => {
    const sandbox = await createFunctionSandbox(
      options(
        `if (msg.payload === 'spin') { async function spin() { while (true) { await null; } } try { await spin(); } catch (e) { return { payload: 'caught' }; } }
         if (msg.payload === 'background') { (async () => { while (true) { await null; } })(); }
         return msg;`,
        { timeoutMs: 100 },
      ),
    );
    for (let i = 0; i < 3; i++) expect((await sandboxError(sandbox.run(msg("spin")))).kind).toBe("timeout");
    expect((await sandbox.run(msg("ok"))).outputs[0]![0]!.payload).toBe("ok");
    // A plain return that leaves a spinning job behind.
    expect((await sandboxError(sandbox.run(msg("background")))).kind).toBe("timeout");
    expect((await sandbox.run(msg("ok"))).outputs[0]![0]!.payload).toBe("ok");
    sandbox.close();
  });

  it("promise jobs queued by a plain return run before the result is collected", async () => {
    const sandbox = await createFunctionSandbox(
      options("Promise.resolve().then(() => { node.send({ payload: 'later' }); node.status({ text: 'done' }); }); return msg;"),
    );
    const result = await sandbox.run(msg(1));
    expect(result.outputs).toEqual([[{ _msgid: "m-1", payload: 1 }]]);
    expect(result.sent).toEqual([[[{ _msgid: "m-1", payload: "later" }]]]);
    expect(result.status).toEqual({ fill: "grey", shape: "dot", text: "done" });
    sandbox.close();
  });

  it("a promise that never settles sends nothing, with a warning", async () => {
    const sandbox = await createFunctionSandbox(options("await new Promise(() => {}); return msg;"));
    const result = await sandbox.run(msg(1));
    expect(result.outputs).toEqual([[]]);
    expect(result.logs[0]!.level).toBe("warn");
    sandbox.close();
  });

  it("catastrophic regular expression backtracking is interrupted", async () => {
    const sandbox = await createFunctionSandbox(options("return { payload: /(a*)*b/.test('a'.repeat(5000)) };", { timeoutMs: 200 }));
    const started = Date.now();
    expect((await sandboxError(sandbox.run(msg(0)))).kind).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(3000);
    sandbox.close();
  });

  it("an infinite loop in initialize fails creation with a timeout", async () => {
    const error = await sandboxError(createFunctionSandbox(options("return msg;", { initialize: "while (true) {}", timeoutMs: 100 })));
    expect(error.kind).toBe("timeout");
  });

  it("an allocation bomb fails with kind memory; the host stays responsive and the sandbox is recreated", async () => {
    const rssBefore = process.memoryUsage().rss;
    const sandbox = await createFunctionSandbox(
      options(
        `
        if (msg.payload === 'bomb') { const a = []; while (true) a.push(new Uint8Array(1 << 20)); }
        if (msg.payload === 'objects') { const a = []; while (true) a.push({ n: a.length }); }
        return msg;`,
        { memoryLimitBytes: 16 * 1024 * 1024, timeoutMs: 10_000 },
      ),
    );
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const error = await sandboxError(sandbox.run(msg("bomb")));
    expect(error.kind).toBe("memory");
    expect((await sandbox.run(msg("after"))).outputs[0]![0]!.payload).toBe("after");
    const objects = await sandboxError(sandbox.run(msg("objects")));
    expect(objects.kind).toBe("memory");
    expect((await sandbox.run(msg("again"))).outputs[0]![0]!.payload).toBe("again");
    await new Promise((resolve) => setTimeout(resolve, 30));
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0); // the event loop kept running
    // The host did not absorb the sandbox's allocations.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
    sandbox.close();
  });

  it("many allocations each under the limit are bounded in total (arrays, strings, ArrayBuffers)", async () => {
    const bombs = [
      "let a = []; while (true) a.push(new Array(1e6).fill(1));",
      "const a = []; while (true) a.push(new ArrayBuffer(1 << 20));",
      "const a = []; let i = 0; while (true) a.push('x'.repeat(1 << 20) + i++);",
      "const a = []; const s = 'ab'.repeat(1 << 18); while (true) a.push(s.split('').join('') + a.length);",
    ];
    const rssBefore = process.memoryUsage().rss;
    for (const code of bombs) {
      const sandbox = await createFunctionSandbox(
        options(`if (msg.payload === 'bomb') { ${code} } return msg;`, { memoryLimitBytes: 16 * 1024 * 1024, timeoutMs: 10_000 }),
      );
      const error = await sandboxError(sandbox.run(msg("bomb")));
      expect([code, error.kind]).toEqual([code, "memory"]);
      expect((await sandbox.run(msg("after"))).outputs[0]![0]!.payload).toBe("after");
      sandbox.close();
    }
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
  });

  it("a message too large for the sandbox is refused with kind memory; the sandbox stays usable", async () => {
    const sandbox = await createFunctionSandbox(options("msg.n = msg.payload.length; return msg;", { memoryLimitBytes: 8 * 1024 * 1024 }));
    const error = await sandboxError(sandbox.run(msg("x".repeat(6 * 1024 * 1024))));
    expect(error.kind).toBe("memory");
    expect((await sandbox.run(msg("abc"))).outputs[0]![0]!.n).toBe(3);
    sandbox.close();
  });

  it("string doubling fails cleanly", async () => {
    const sandbox = await createFunctionSandbox(options("if (msg.payload === 'double') { let s = 'x'; while (true) { s = s + s; s.charCodeAt(s.length - 1); } } return null;"));
    const error = await sandboxError(sandbox.run(msg("double")));
    expect(["memory", "runtime"]).toContain(error.kind);
    expect(error.message).toMatch(/memory|too long/);
    const next = await sandbox.run(msg(1));
    expect(next.outputs).toEqual([[]]);
    sandbox.close();
  });

  it("a memory bomb in one sandbox does not disturb another", async () => {
    const victim = await createFunctionSandbox(options("context.set('n', (context.get('n') || 0) + 1); msg.payload = context.get('n'); return msg;"));
    const bomber = await createFunctionSandbox(
      options("const a = []; while (true) a.push({ n: a.length, s: 'y' + a.length });", { memoryLimitBytes: 8 * 1024 * 1024 }),
    );
    expect((await victim.run(msg(0))).outputs[0]![0]!.payload).toBe(1);
    expect((await sandboxError(bomber.run(msg(0)))).kind).toBe("memory");
    expect((await victim.run(msg(0))).outputs[0]![0]!.payload).toBe(2);
    victim.close();
    bomber.close();
  });

  it("infinite recursion fails cleanly and the sandbox stays usable", async () => {
    const cases = [
      "function f(n) { return f(n + 1) + 1; } return { payload: f(0) };",
      "const f = () => [1].map(f); f(); return msg;",
      "let o = []; for (let i = 0; i < 100000; i++) o = [o]; return { payload: JSON.stringify(o).length };",
      "return { payload: JSON.parse('['.repeat(100000)) };",
      "return { payload: eval('('.repeat(100000)) };",
      "const p = new Proxy({}, { get(t, k) { return p[k]; } }); return { payload: p.x };",
      "let o = { toString() { return String(o); } }; return { payload: String(o) };",
      "function g() { return flow.get('k') + g(); } return { payload: g() };",
    ];
    for (const code of cases) {
      // The subject is the stack, not the clock: building 100,000 nested arrays takes over a second
      // on a loaded machine, and the call's time limit must not answer first.
      const sandbox = await createFunctionSandbox(
        options(code + "\n// " + "after", { initialize: "context.set('init', true);", timeoutMs: 10_000 }),
      );
      const error = await sandboxError(sandbox.run(msg(0)));
      expect([code, error.kind]).toEqual([code, "runtime"]);
      expect([code, error.message]).toEqual([code, expect.stringMatching(/stack overflow|too much recursion|Maximum call stack/i)]);
      // Whether QuickJS caught it or the engine had to be replaced, the next call works.
      sandbox.close();
    }
    const sandbox = await createFunctionSandbox(
      options("if (msg.payload === 'deep') { const f = (n) => f(n + 1); f(0); } return { payload: context.get('init') };", {
        initialize: "context.set('init', 'yes');",
      }),
    );
    expect((await sandboxError(sandbox.run(msg("deep")))).kind).toBe("runtime");
    expect((await sandbox.run(msg(0))).outputs[0]![0]!.payload).toBe("yes");
    sandbox.close();
  });

  it("moderate recursion depth works", async () => {
    const sandbox = await createFunctionSandbox(options("function depth(n) { return n === 0 ? 0 : 1 + depth(n - 1); } return { payload: depth(500) };"));
    expect((await sandbox.run(msg(0))).outputs[0]![0]!.payload).toBe(500);
    sandbox.close();
  });

  // QuickJS polls the interrupt handler by bytecode ticks, never inside native operations: a loop of
  // expensive native operations on large data outlives the soft deadline by minutes. The host's hard
  // deadline (timeoutMs + max(100, timeoutMs)) terminates the worker that runs it.
  describe("hard time limit (worker threads)", () => {
    const bombs = {
      // The data is built by native operations too, so that building it stays well within the soft
      // deadline even on a cold worker (a bytecode loop of 1e5 steps can take > 100 ms there).
      "object spread": "const o = Object.assign({}, new Array(1e5).fill(1)); for (;;) ({ ...o });",
      "JSON.stringify of a big array": "const a = new Array(3e5).fill('some text here'); for (;;) JSON.stringify(a);",
    };

    for (const [name, bomb] of Object.entries(bombs)) {
      it(`a loop of ${name} is stopped; the host's event loop and other flows keep going`, async () => {
        const bombFlow = new Map<string, unknown>();
        const bomber = await createFunctionSandbox(
          options(`if (msg.payload === 'bomb') { ${bomb} } context.set('n', (context.get('n') || 0) + 1); return { payload: context.get('n') };`, {
            timeoutMs: 100,
            flowContext: bombFlow,
          }),
        );
        // Another flow: its group is placed on the other worker.
        const other = await createFunctionSandbox(options("msg.payload = msg.payload * 2; return msg;", { timeoutMs: 100, flowContext: new Map() }));
        expect((await bomber.run(msg(0))).outputs[0]![0]!.payload).toBe(1);
        const terminatedBefore = sandboxDiagnostics().workersTerminated;

        let answered = 0;
        let bombDone = false;
        const started = Date.now();
        const bombRun = sandboxError(bomber.run(msg("bomb"))).finally(() => (bombDone = true));
        const { gap, gcPauses } = await maxEventLoopGap(async () => {
          while (!bombDone) {
            expect((await other.run(msg(answered))).outputs[0]![0]!.payload).toBe(answered * 2);
            answered++;
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
        });
        const error = await bombRun;
        const elapsed = Date.now() - started;

        expect(error.kind).toBe("timeout");
        expect(elapsed).toBeLessThan(5000);
        expect(sandboxDiagnostics().workersTerminated).toBe(terminatedBefore + 1);
        expect(gap, `V8's pauses meanwhile: ${gcPauses.join(", ") || "none"}`).toBeLessThan(200);
        expect(answered).toBeGreaterThan(3);
        // The bomber is re-created on a fresh worker: it works, with its node context lost.
        expect((await bomber.run(msg(0))).outputs[0]![0]!.payload).toBe(1);
        bomber.close();
        other.close();
      }, 20_000);
    }

    it("the other sandboxes of a terminated worker are re-created transparently; the flow context survives", async () => {
      const flowContext = new Map<string, unknown>([["preset", "host"]]);
      const bomber = await createFunctionSandbox(
        options("const o = Object.assign({}, new Array(1e5).fill(1)); for (;;) ({ ...o });", { timeoutMs: 100, flowContext }),
      );
      // Same flow, so same worker.
      const neighbour = await createFunctionSandbox(
        options("context.set('n', (context.get('n') || 0) + 1); flow.set('count', context.get('n')); return { payload: [context.get('n'), flow.get('preset'), context.get('init')] };", {
          flowContext,
          initialize: "context.set('init', (context.get('init') || 0) + 1); node.log('initialized');",
        }),
      );
      expect(neighbour.initResult.logs).toEqual([{ level: "log", message: "initialized" }]);
      expect((await neighbour.run(msg(0))).outputs[0]![0]!.payload).toEqual([1, "host", 1]);
      expect(flowContext.get("count")).toBe(1);

      // A call queued behind the bomb never ran: it is retried on the new worker.
      const bombRun = sandboxError(bomber.run(msg(0)));
      const queued = neighbour.run(msg(0));
      expect((await bombRun).kind).toBe("timeout");
      const result = await queued;
      // initialize ran again (its logs come with the call), the node context was lost, the flow context was not.
      expect(result.outputs[0]![0]!.payload).toEqual([1, "host", 1]);
      expect(result.logs).toEqual([{ level: "log", message: "initialized" }]);
      expect(flowContext.get("count")).toBe(1);
      expect((await neighbour.run(msg(0))).outputs[0]![0]!.payload).toEqual([2, "host", 1]);
      expect(flowContext.get("count")).toBe(2);
      bomber.close();
      neighbour.close();
    }, 20_000);

    it("timers of a sandbox whose worker was terminated are lost; fire() of an old id runs nothing, new ids never reuse it", async () => {
      const flowContext = new Map<string, unknown>();
      const bomber = await createFunctionSandbox(options("const o = Object.assign({}, new Array(1e5).fill(1)); for (;;) ({ ...o });", { timeoutMs: 100, flowContext }));
      const neighbour = await createFunctionSandbox(
        options("return { payload: setInterval(() => node.send({ payload: 'tick' }), 10) };", { flowContext, initialize: "setTimeout(() => node.send({ payload: 'init' }), 1);" }),
      );
      const initId = neighbour.initResult.timers!.set![0]![0];
      const old = (await neighbour.run(msg(0))).outputs[0]![0]!.payload as number;
      expect((await neighbour.fire(old)).sent).toHaveLength(1);
      expect((await sandboxError(bomber.run(msg(0)))).kind).toBe("timeout");
      // Re-created on a fresh worker by this call: the old interval is unknown there.
      const stale = await neighbour.fire(old);
      expect(stale.sent).toEqual([]);
      expect(stale.timers?.clear).toEqual([old]);
      expect(stale.timers?.from).toBe(old + 1);
      // initialize ran again: its timer comes with the new engine's first result, with a new id.
      const again = stale.timers!.set![0]![0];
      expect(again).toBeGreaterThan(old);
      expect(again).not.toBe(initId);
      expect((await neighbour.fire(initId)).sent).toEqual([]);
      expect((await neighbour.fire(again!)).sent).toEqual([[[expect.objectContaining({ payload: "init" })]]]);
      expect((await neighbour.run(msg(0))).outputs[0]![0]!.payload).toBeGreaterThan(again!);
      bomber.close();
      neighbour.close();
    }, 20_000);

    it("a soft timeout does not block the host's event loop", async () => {
      const sandbox = await createFunctionSandbox(options("while (true) {}", { timeoutMs: 500 }));
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 10);
      const started = Date.now();
      expect((await sandboxError(sandbox.run(msg(0)))).kind).toBe("timeout");
      clearInterval(ticker);
      expect(Date.now() - started).toBeGreaterThanOrEqual(450);
      expect(ticks).toBeGreaterThan(20);
      sandbox.close();
    });

    it("close() with finalize answers, also while the worker is busy with another call", async () => {
      const flowContext = new Map<string, unknown>();
      const busy = await createFunctionSandbox(options("const end = Date.now() + 150; while (Date.now() < end) {} return msg;", { flowContext }));
      const finalizing = await createFunctionSandbox(options("return msg;", { flowContext, finalize: "flow.set('bye', true); node.send({ payload: 'bye' });" }));
      const pending = busy.run(msg(1));
      const result = await finalizing.close();
      expect(result?.sent).toEqual([[[expect.objectContaining({ payload: "bye" })]]]);
      expect(flowContext.get("bye")).toBe(true);
      expect((await pending).outputs[0]![0]!.payload).toBe(1);
      busy.close();
    });
  });

  it("5,000 calls without error or leaked handles, then close frees the engine", async () => {
    const flowContext = new Map<string, unknown>();
    const sandbox = await createFunctionSandbox(
      options(
        `
        const n = (context.get('n') || 0) + 1; context.set('n', n);
        flow.set('last', msg.payload);
        node.status({ fill: 'green', shape: 'dot', text: String(n) });
        if (n % 100 === 0) node.warn('at ' + n);
        if (n % 2) node.send({ payload: 'odd' });
        msg.payload = msg.payload * 2;
        return [msg, n % 3 === 0 ? { payload: n } : null];`,
        { flowContext, outputs: 2 },
      ),
    );
    const rssBefore = process.memoryUsage().rss;
    for (let i = 0; i < 5000; i++) {
      const result = await sandbox.run(msg(i, { _msgid: `m${i}` }));
      expect(result.outputs[0]![0]!.payload).toBe(i * 2);
    }
    const rssGrowth = process.memoryUsage().rss - rssBefore;
    expect(flowContext.get("last")).toBe(4999);
    expect(rssGrowth).toBeLessThan(100 * 1024 * 1024);
    // Errors on some of the calls do not leak either.
    const failing = await createFunctionSandbox(options("if (msg.payload % 2) throw new Error('odd'); return msg;"));
    for (let i = 0; i < 2000; i++) {
      if (i % 2) await expect(failing.run(msg(i))).rejects.toBeInstanceOf(SandboxError);
      else await failing.run(msg(i));
    }
    // QuickJS asserts that no object is left alive when a runtime is freed: a leaked handle would
    // make the disposal fail, which the diagnostics count.
    const before = sandboxDiagnostics();
    sandbox.close();
    failing.close();
    const after = sandboxDiagnostics();
    expect(after.disposeFailures).toBe(before.disposeFailures);
    expect(after.enginesLive).toBe(before.enginesLive - 2);
    // The subject is leaks, not speed (that is `npm run bench -- sandbox`): 7,000 calls took 3–5 s
    // with other test files on the same 2 cores, past vitest's default 5 s.
  }, 30_000);

  it("many sandboxes can be created and closed", async () => {
    for (let i = 0; i < 30; i++) {
      const sandbox = await createFunctionSandbox(options("return msg;"));
      await sandbox.run(msg(i));
      sandbox.close();
    }
  });
});

describe("capacity: how many sandboxes may live at once", () => {
  it("refuses past the bound per owner and in all, and gives a slot back when a sandbox closes or fails to start", async () => {
    const small = new SandboxPool({ limits: { maxSandboxes: 3, maxPerOwner: 2 } });
    try {
      const make = (owner: string, code = "return msg;") => small.create({ ...options(code), owner });
      const a1 = await make("org_a");
      await make("org_a");
      await expect(make("org_a")).rejects.toMatchObject({ kind: "capacity", message: "this organization already runs 2 function nodes, the most it may run at once" });
      await make("org_b");
      await expect(make("org_c")).rejects.toMatchObject({ kind: "capacity", message: "this server already runs 3 function nodes, the most it may run at once" });
      expect(small.liveCount()).toBe(3);
      await a1.close();
      await a1.close();
      expect(small.liveCount("org_a")).toBe(1);
      // A sandbox that does not compile takes no slot.
      await expect(make("org_c", "return {")).rejects.toMatchObject({ kind: "syntax" });
      expect(small.liveCount()).toBe(2);
      await make("org_c");
      expect(small.liveCount("org_c")).toBe(1);
    } finally {
      await small.close();
    }
  });
});

describe("function sandbox: node.linkcall", () => {
  it("reports the call (id, target, msg, timeout); linkReturn settles the run's promise with the answer or an Error", async () => {
    const sandbox = await createFunctionSandbox(
      options("try { const m = await node.linkcall('sub', { payload: msg.payload }, { timeout: 250 }); return { payload: ['answer', m.payload] }; } catch (e) { return { payload: ['error', e.message, e instanceof Error] }; }"),
    );
    const first = await sandbox.run(msg("a"));
    expect(first.runPending).toBe(true);
    expect(first.linkCalls).toEqual([{ id: expect.any(Number), target: "sub", msg: { payload: "a" }, timeoutMs: 250 }]);
    const answered = await sandbox.linkReturn(first.linkCalls![0]!.id, { msg: { payload: "A" } });
    expect(answered.sent).toEqual([[[expect.objectContaining({ payload: ["answer", "A"] })]]]);
    expect(answered.settled).toEqual([expect.objectContaining({ run: first.run })]);
    // An unknown or already settled id settles nothing.
    expect((await sandbox.linkReturn(first.linkCalls![0]!.id, { msg: {} })).sent).toEqual([]);
    const second = await sandbox.run(msg("b"));
    const failed = await sandbox.linkReturn(second.linkCalls![0]!.id, { error: "timeout" });
    expect(failed.sent).toEqual([[[expect.objectContaining({ payload: ["error", "timeout", true] })]]]);
    // An answer the sandbox cannot take (a cycle) fails the call with why, as a run's message would.
    const third = await sandbox.run(msg("c"));
    const cyclic: Record<string, unknown> = { payload: "C" };
    cyclic.self = cyclic;
    const refused = await sandbox.linkReturn(third.linkCalls![0]!.id, { msg: cyclic });
    expect(refused.sent).toEqual([[[expect.objectContaining({ payload: ["error", expect.stringMatching(/^the link call's answer: the message cannot be serialized: .*circular/), true] })]]]);
    await sandbox.close();
  });

  it("rejects a target that is not a string, and more than 1,000 calls waiting at once", async () => {
    const sandbox = await createFunctionSandbox(
      options(`if (msg.payload === 'bad') { try { await node.linkcall('', msg); } catch (e) { return { payload: e.message }; } }
               const all = []; for (let i = 0; i < 1001; i++) all.push(node.linkcall('t', {}).catch((e) => e.message));
               return { payload: await all[1000] };`),
    );
    expect((await sandbox.run(msg("bad"))).outputs[0]).toEqual([expect.objectContaining({ payload: "Error link call target parameter is not valid, expected a string" })]);
    const many = await sandbox.run(msg("many"));
    expect(many.linkCalls).toHaveLength(1000);
    expect(many.outputs[0]).toEqual([expect.objectContaining({ payload: "node.linkcall: too many calls waiting for their answer (at most 1000)" })]);
    await sandbox.close();
  });
});

describe("function sandbox: the node's Setup → Modules (libs): Node's crypto and util", () => {
  const withCrypto = (code: string, extra: Partial<FunctionSandboxOptions> = {}) => options(code, { libs: [{ var: "crypto", module: "crypto" }], ...extra });
  const run = async (code: string, payload: unknown = null, extra: Partial<FunctionSandboxOptions> = {}) => {
    const sandbox = await createFunctionSandbox(withCrypto(code, extra));
    try {
      const result = await sandbox.run(msg(payload));
      return result.outputs[0]![0]!.payload;
    } finally {
      sandbox.close();
    }
  };

  it("has exactly the names the import report counts as present (SANDBOX_CRYPTO)", async () => {
    expect(await run("msg.payload = Object.keys(crypto).sort(); return msg;")).toEqual([...SANDBOX_CRYPTO].sort());
  });

  it("digests and signs as Node's crypto does: hex, base64 and Buffer, chained updates of strings and Buffers, encodings", async () => {
    const payload = await run(`
      const h = crypto.createHash("sha256").update("hello ").update(Buffer.from("world"));
      const copy = h.copy();
      msg.payload = {
        hex: h.digest("hex"),
        copy: copy.update("!").digest("base64"),
        buffer: Buffer.isBuffer(crypto.createHash("md5").update("a").digest()),
        bytes: [...crypto.createHash("sha1").update("abc").digest()].slice(0, 4),
        latin1: crypto.createHash("md5").update("\u00e9", "latin1").digest("hex"),
        hexIn: crypto.createHash("sha1").update("00ff", "hex").digest("base64url"),
        typed: crypto.createHash("md5").update(new Uint16Array([1, 2])).digest("hex"),
        hmac: crypto.createHmac("sha256", "secret").update(JSON.stringify({ a: 1 })).digest("hex"),
        hmacKeyBuffer: crypto.createHmac("sha1", Buffer.from("k")).update("v").digest("base64"),
        hmacAgain: (() => { const m = crypto.createHmac("sha256", "k"); m.digest(); return m.digest("hex"); })(),
        oneShot: crypto.hash("sha1", "abc"),
        shake: crypto.createHash("shake256", { outputLength: 8 }).update("a").digest("hex"),
        upper: crypto.createHash("SHA256").update("a").digest("hex"),
        hashes: crypto.getHashes().includes("sha512"),
      };
      return msg;`);
    const sha = (alg: string) => nodeCrypto.createHash(alg);
    expect(payload).toEqual({
      hex: sha("sha256").update("hello world").digest("hex"),
      copy: sha("sha256").update("hello world!").digest("base64"),
      buffer: true,
      bytes: [...sha("sha1").update("abc").digest()].slice(0, 4),
      latin1: sha("md5").update("\u00e9", "latin1").digest("hex"),
      hexIn: sha("sha1").update("00ff", "hex").digest("base64url"),
      typed: sha("md5").update(new Uint16Array([1, 2])).digest("hex"),
      hmac: nodeCrypto.createHmac("sha256", "secret").update('{"a":1}').digest("hex"),
      hmacKeyBuffer: nodeCrypto.createHmac("sha1", "k").update("v").digest("base64"),
      hmacAgain: "",
      oneShot: "a9993e364706816aba3e25717850c26c9cd0d89d",
      shake: "867e2cb04f5a04dc",
      upper: sha("sha256").update("a").digest("hex"),
      hashes: true,
    });
  });

  it("a digest without an encoding leaves the node as a Buffer", async () => {
    const sandbox = await createFunctionSandbox(withCrypto("msg.payload = crypto.createHash('sha1').update('abc').digest(); return msg;"));
    const result = await sandbox.run(msg(null));
    expect(Buffer.isBuffer(result.outputs[0]![0]!.payload)).toBe(true);
    expect((result.outputs[0]![0]!.payload as Buffer).toString("hex")).toBe("a9993e364706816aba3e25717850c26c9cd0d89d");
    sandbox.close();
  });

  it("refuses what Node's refuses, in Node's words (and a catch in the code gets Node's error)", async () => {
    const payload = await run(`
      const t = (f) => { try { f(); return "no error"; } catch (e) { return [e.name, e.code, e.message, String(e)]; } };
      msg.payload = [
        t(() => crypto.createHash("nope")),
        t(() => crypto.createHmac("nope", "k")),
        t(() => crypto.createHmac("sha256")),
        t(() => crypto.createHash("sha256").update(5)),
        t(() => crypto.createHash("sha256").update({})),
        t(() => { const h = crypto.createHash("sha256"); h.digest(); h.update("x"); }),
        t(() => crypto.createHash("sha256", { outputLength: 8 }).digest()),
        t(() => crypto.randomBytes(-1)),
        t(() => crypto.randomBytes("a")),
        t(() => crypto.randomInt(10, 5)),
        t(() => crypto.timingSafeEqual(Buffer.from("a"), Buffer.from("ab"))),
        t(() => crypto.hash("sha1", 5)),
        t(() => crypto.hash("sha1", "a", "nope")),
        t(() => crypto.getRandomValues(new Uint8Array(70000))),
        t(() => crypto.getRandomValues([1, 2])),
        t(() => crypto.createHash("sha256").update("abc", "hex")),
        t(() => crypto.randomFillSync(new Uint32Array(4), 1, 4)),
        t(() => crypto.randomFillSync(new Uint32Array(4), "2")),
        t(() => crypto.randomFillSync(new Uint32Array(4), null)),
        t(() => crypto.randomFillSync(new Uint32Array(4), 5)),
        t(() => crypto.randomFillSync(new Uint32Array(4), 0, 2 ** 31)),
        t(() => crypto.randomFillSync([1])),
        t(() => crypto.randomFill(new Uint8Array(2))),
        t(() => crypto.randomFill("x", 5)),
        t(() => crypto.randomBytes("x", 5)),
        t(() => crypto.randomBytes(1, 5)),
        t(() => crypto.timingSafeEqual("a", Buffer.from("b"))),
      ];
      return msg;`);
    const t = (f: () => unknown) => {
      try {
        f();
        return "no error";
      } catch (e) {
        const err = e as Error & { code?: unknown };
        return [err.name, err.code, err.message, String(err)];
      }
    };
    const c = nodeCrypto as unknown as Record<string, (...args: unknown[]) => { update(v: unknown): unknown; digest(e?: string): unknown }>;
    expect(payload).toEqual(
      JSON.parse(
        JSON.stringify([
          t(() => nodeCrypto.createHash("nope")),
          t(() => nodeCrypto.createHmac("nope", "k")),
          t(() => c.createHmac!("sha256")),
          t(() => c.createHash!("sha256").update(5)),
          t(() => c.createHash!("sha256").update({})),
          t(() => { const h = nodeCrypto.createHash("sha256"); h.digest(); h.update("x"); }),
          t(() => nodeCrypto.createHash("sha256", { outputLength: 8 }).digest()),
          t(() => nodeCrypto.randomBytes(-1)),
          t(() => c.randomBytes!("a")),
          t(() => nodeCrypto.randomInt(10, 5)),
          t(() => nodeCrypto.timingSafeEqual(Buffer.from("a"), Buffer.from("ab"))),
          t(() => c.hash!("sha1", 5)),
          t(() => c.hash!("sha1", "a", "nope")),
          t(() => nodeCrypto.getRandomValues(new Uint8Array(70000))),
          t(() => c.getRandomValues!([1, 2])),
          t(() => nodeCrypto.createHash("sha256").update("abc", "hex")),
          t(() => nodeCrypto.randomFillSync(new Uint32Array(4), 1, 4)),
          t(() => c.randomFillSync!(new Uint32Array(4), "2")),
          t(() => c.randomFillSync!(new Uint32Array(4), null)),
          t(() => nodeCrypto.randomFillSync(new Uint32Array(4), 5)),
          t(() => nodeCrypto.randomFillSync(new Uint32Array(4), 0, 2 ** 31)),
          t(() => c.randomFillSync!([1])),
          t(() => c.randomFill!(new Uint8Array(2))),
          t(() => c.randomFill!("x", 5)),
          t(() => c.randomBytes!("x", 5)),
          t(() => c.randomBytes!(1, 5)),
          t(() => c.timingSafeEqual!("a", Buffer.from("b"))),
        ]),
      ),
    );
  });

  it("draws random values: bytes (and by callback), UUIDs, integers, fills and compares", async () => {
    const sandbox = await createFunctionSandbox(
      withCrypto(`
        crypto.randomBytes(4, (err, buf) => node.send({ payload: [err, buf.length] }));
        const filled = crypto.randomFillSync(new Uint8Array(8), 2, 4);
        msg.payload = {
          bytes: crypto.randomBytes(16).toString("hex"),
          uuid: crypto.randomUUID(),
          int: crypto.randomInt(3, 4),
          zeros: [filled[0], filled[1], filled[6], filled[7]],
          values: crypto.getRandomValues(new Uint32Array(4)).length,
          same: crypto.timingSafeEqual(Buffer.from("abc"), Uint8Array.of(97, 98, 99)),
          differ: crypto.timingSafeEqual(Buffer.from("abc"), Buffer.from("abd")),
        };
        return msg;`),
    );
    const result = await sandbox.run(msg(null));
    const payload = result.outputs[0]![0]!.payload as Record<string, unknown>;
    expect(payload.bytes).toMatch(/^[0-9a-f]{32}$/);
    expect(payload.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(payload).toMatchObject({ int: 3, zeros: [0, 0, 0, 0], values: 4, same: true, differ: false });
    expect(result.sent).toEqual([[[expect.objectContaining({ payload: [null, 4] })]]]);
    sandbox.close();
  });

  it("names the modules by the node's variables (node: too), Node's util as well; a module not named is not there", async () => {
    const sandbox = await createFunctionSandbox(
      options("msg.payload = [typeof c, typeof nodeUtil.inspect, typeof crypto, c.hash('md5', '')]; return msg;", {
        libs: [
          { var: "c", module: "node:crypto" },
          { var: "nodeUtil", module: "util" },
        ],
      }),
    );
    expect((await sandbox.run(msg(null))).outputs[0]![0]!.payload).toEqual(["object", "function", "undefined", "d41d8cd98f00b204e9800998ecf8427e"]);
    sandbox.close();
  });

  it("encrypts and decrypts with Node's ciphers: CBC across updates, GCM with its tag, padding off, and Node's errors", async () => {
    const payload = await run(`
      const key = Buffer.alloc(32, 1), iv = Buffer.alloc(16, 2);
      const t = (f) => { try { return f(); } catch (e) { return [e.name, e.code, String(e)]; } };
      const c = crypto.createCipheriv("aes-256-cbc", key, iv);
      const hex = c.update("hello ", "utf8", "hex") + c.update(Buffer.from("world, twenty bytes")).toString("hex") + c.final("hex");
      const d = crypto.createDecipheriv("aes-256-cbc", key, iv);
      const back = d.update(hex, "hex", "utf8") + d.final("utf8");
      const g = crypto.createCipheriv("aes-256-gcm", key, iv.subarray(0, 12)).setAAD(Buffer.from("aad"));
      const sealed = g.update("secret", "utf8", "base64") + g.final("base64");
      const tag = g.getAuthTag();
      const open = crypto.createDecipheriv("aes-256-gcm", key, iv.subarray(0, 12)).setAAD(Buffer.from("aad")).setAuthTag(tag);
      const opened = open.update(sealed, "base64", "utf8") + open.final("utf8");
      const ecb = crypto.createCipheriv("aes-128-ecb", Buffer.alloc(16, 1), null).setAutoPadding(false);
      msg.payload = {
        hex, back, sealed, tag: tag.toString("hex"), opened,
        ecb: ecb.update(Buffer.alloc(16)).toString("hex") + ecb.final("hex"),
        ciphers: crypto.getCiphers().includes("aes-256-gcm"),
        errors: [
          t(() => crypto.createCipheriv("aes-256-cbc", Buffer.alloc(3), iv)),
          t(() => crypto.createCipheriv("aes-256-cbc", key, Buffer.alloc(3))),
          t(() => crypto.createCipheriv("nope", key, iv)),
          t(() => crypto.createCipheriv("aes-256-cbc", key)),
          t(() => { const x = crypto.createDecipheriv("aes-256-cbc", key, iv); x.update("00112233445566778899aabbccddeeff", "hex"); return x.final(); }),
          t(() => { const x = crypto.createCipheriv("aes-256-cbc", key, iv); x.final(); return x.final(); }),
          t(() => { const x = crypto.createCipheriv("aes-256-cbc", key, iv); x.final(); return x.update("x"); }),
          t(() => { const x = crypto.createCipheriv("aes-256-cbc", key, iv); x.setAutoPadding(); x.update("hello"); return x.final("hex"); }),
          t(() => crypto.createCipheriv("aes-256-cbc", key, iv).getAuthTag()),
          t(() => crypto.createCipheriv("aes-256-cbc", key, iv).update(5)),
          t(() => crypto.createDecipheriv("aes-256-gcm", key, iv).final()),
        ],
      };
      return msg;`);
    const key = Buffer.alloc(32, 1);
    const iv = Buffer.alloc(16, 2);
    const t = (f: () => unknown) => {
      try {
        return f();
      } catch (e) {
        const err = e as Error & { code?: unknown };
        return [err.name, err.code, String(err)];
      }
    };
    const c = nodeCrypto.createCipheriv("aes-256-cbc", key, iv);
    const hex = c.update("hello ", "utf8", "hex") + c.update(Buffer.from("world, twenty bytes")).toString("hex") + c.final("hex");
    const g = nodeCrypto.createCipheriv("aes-256-gcm", key, iv.subarray(0, 12)).setAAD(Buffer.from("aad"));
    const sealed = g.update("secret", "utf8", "base64") + g.final("base64");
    const ecb = nodeCrypto.createCipheriv("aes-128-ecb", Buffer.alloc(16, 1), null).setAutoPadding(false);
    const loose = nodeCrypto as unknown as Record<string, (...args: unknown[]) => { update(...a: unknown[]): unknown; final(...a: unknown[]): unknown; getAuthTag(): unknown }>;
    expect(payload).toEqual(
      JSON.parse(
        JSON.stringify({
          hex,
          back: "hello world, twenty bytes",
          sealed,
          tag: g.getAuthTag().toString("hex"),
          opened: "secret",
          ecb: ecb.update(Buffer.alloc(16)).toString("hex") + ecb.final("hex"),
          ciphers: true,
          errors: [
            t(() => nodeCrypto.createCipheriv("aes-256-cbc", Buffer.alloc(3), iv)),
            t(() => nodeCrypto.createCipheriv("aes-256-cbc", key, Buffer.alloc(3))),
            t(() => nodeCrypto.createCipheriv("nope", key, iv)),
            t(() => loose.createCipheriv!("aes-256-cbc", key)),
            t(() => { const x = nodeCrypto.createDecipheriv("aes-256-cbc", key, iv); x.update("00112233445566778899aabbccddeeff", "hex"); return x.final(); }),
            t(() => { const x = nodeCrypto.createCipheriv("aes-256-cbc", key, iv); x.final(); return x.final(); }),
            t(() => { const x = nodeCrypto.createCipheriv("aes-256-cbc", key, iv); x.final(); return x.update("x"); }),
            t(() => { const x = loose.createCipheriv!("aes-256-cbc", key, iv) as unknown as { setAutoPadding(): void; update(s: string): void; final(e: string): string }; x.setAutoPadding(); x.update("hello"); return x.final("hex"); }),
            t(() => loose.createCipheriv!("aes-256-cbc", key, iv).getAuthTag()),
            t(() => loose.createCipheriv!("aes-256-cbc", key, iv).update(5)),
            t(() => nodeCrypto.createDecipheriv("aes-256-gcm", key, iv).final()),
          ],
        }),
      ),
    );
  });

  it("keeps at most 32 ciphers of a sandbox on the host: the least recently used finished one leaves first, else the least recently used", async () => {
    const payload = await run(`
      const key = Buffer.alloc(16, 1), iv = Buffer.alloc(16, 2);
      const t = (f) => { try { f(); return "no error"; } catch (e) { return e.message; } };
      const open = crypto.createCipheriv("aes-128-cbc", key, iv);
      const g = crypto.createCipheriv("aes-128-gcm", key, iv.subarray(0, 12));
      g.update("x");
      for (let i = 0; i < 100; i++) { const c = crypto.createCipheriv("aes-128-cbc", key, iv); c.update("x"); c.final(); }
      g.final();
      crypto.createCipheriv("aes-128-cbc", key, iv);
      const tag = g.getAuthTag().length;
      const stillOpen = open.update("abc", "utf8", "hex") + open.final("hex");
      const many = [];
      for (let i = 0; i < 40; i++) many.push(crypto.createCipheriv("aes-128-cbc", key, iv));
      msg.payload = [tag, stillOpen.length, t(() => open.final()), t(() => many[0].final()), t(() => many[39].final("hex"))];
      return msg;`);
    const closed = "This cipher was closed by the function sandbox, which keeps at most 32 at once";
    expect(payload).toEqual([16, 32, closed, closed, "no error"]);
  });

  it("a cipher in a slow mode (CFB1, CFB8) takes a smaller update, so that no host call outlives the run's deadline", async () => {
    const payload = await run(`
      const t = (f) => { try { return f().length; } catch (e) { return [e.name, e.message]; } };
      const cipher = (mode) => crypto.createCipheriv("aes-128-" + mode, Buffer.alloc(16, 1), Buffer.alloc(16, 2));
      msg.payload = [t(() => cipher("cfb1").update("a".repeat(200000), "latin1")), t(() => cipher("cfb1").update("a".repeat(1000))), t(() => cipher("cfb").update("a".repeat(200000)))];
      return msg;`);
    // A time limit of 1,000 ms: 8,000,000 characters a call, a 64th of it in a CFB1 mode.
    expect(payload).toEqual([["RangeError", "The function sandbox's crypto takes at most 125,000 characters in one update of a cipher in this mode. Received 200,000"], 1000, 200000]);
  });

  it("a key's and the AAD's encoding option, ArrayBuffers, and what Node refuses as data (a String object, a Date)", async () => {
    const payload = await run(`
      const t = (f) => { try { return f(); } catch (e) { return [e.name, e.code, e.message]; } };
      const iv = Buffer.alloc(12, 2);
      const sealed = (aad, options) => { const g = crypto.createCipheriv("aes-128-gcm", Buffer.alloc(16, 1), iv).setAAD(aad, options); g.update("x"); g.final(); return g.getAuthTag().toString("hex"); };
      msg.payload = [
        t(() => crypto.createCipheriv("aes-128-cbc", "01".repeat(16), Buffer.alloc(16), { encoding: "hex" }).update("x", "utf8", "hex")),
        t(() => crypto.createHmac("sha256", "6b6579", { encoding: "hex" }).update("v").digest("hex")),
        t(() => crypto.createHmac("sha256", "k", { encoding: "nope" })),
        sealed("a1b2", { encoding: "hex" }) === sealed(Buffer.from("a1b2", "hex")),
        sealed(new Uint8Array([1, 2]).buffer) === sealed(Buffer.from([1, 2])),
        t(() => crypto.createHmac("sha256", new String("k"))),
        t(() => crypto.createCipheriv("aes-128-cbc", Buffer.alloc(16), Buffer.alloc(16)).update(new Date(0))),
        t(() => crypto.createHash("sha256").update("a", 1n).digest("hex")),
      ];
      return msg;`);
    const t = (f: () => unknown) => {
      try {
        return f();
      } catch (e) {
        const err = e as Error & { code?: unknown };
        return [err.name, err.code, err.message];
      }
    };
    const loose = nodeCrypto as unknown as Record<string, (...args: unknown[]) => { update(...a: unknown[]): unknown; digest(e: string): unknown }>;
    expect(payload).toEqual([
      t(() => nodeCrypto.createCipheriv("aes-128-cbc", "01".repeat(16), Buffer.alloc(16), { encoding: "hex" } as never).update("x", "utf8", "hex")),
      t(() => nodeCrypto.createHmac("sha256", "6b6579", { encoding: "hex" } as never).update("v").digest("hex")),
      t(() => loose.createHmac!("sha256", "k", { encoding: "nope" })),
      true,
      true,
      ["TypeError", "ERR_INVALID_ARG_TYPE", expect.stringMatching(/^The "key" argument must be of type string or an instance of ArrayBuffer, Buffer, TypedArray, DataView, KeyObject, or CryptoKey\. Received an instance of/)],
      ["TypeError", "ERR_INVALID_ARG_TYPE", expect.stringMatching(/^The "data" argument must be of type string or an instance of Buffer, TypedArray, or DataView\. Received an instance of/)],
      nodeCrypto.createHash("sha256").update("a").digest("hex"),
    ]);
  });

  it("an extendable-output hash's copy has the default length unless given one, as Node's", async () => {
    expect(await run("msg.payload = [crypto.createHash('shake256', { outputLength: 4 }).copy().digest('hex').length, crypto.createHash('shake256', { outputLength: 4 }).copy({ outputLength: 2 }).digest('hex')]; return msg;")).toEqual([
      nodeCrypto.createHash("shake256", { outputLength: 4 }).copy().digest("hex").length,
      nodeCrypto.createHash("shake256", { outputLength: 4 }).copy({ outputLength: 2 }).digest("hex"),
    ]);
  });

  it("many small updates digest as one (joined where the encoding allows), and the host bounds how many it replays", async () => {
    const payload = await run(`
      const h = crypto.createHash("sha256");
      for (let i = 0; i < 200000; i++) h.update(i % 2 ? "a" : "\u00e9");
      const many = crypto.createHash("md5");
      for (let i = 0; i < 100001; i++) many.update("00", "hex");
      let error = null;
      try { many.digest("hex"); } catch (e) { error = [e.name, e.message]; }
      msg.payload = [h.digest("hex"), error];
      return msg;`, null, { timeoutMs: 10_000 });
    expect(payload).toEqual([
      nodeCrypto.createHash("sha256").update("\u00e9a".repeat(100000)).digest("hex"),
      ["RangeError", "The function sandbox's crypto replays at most 100,000 updates in one digest. Received 100,001"],
    ]);
  });

  it("the host bounds what one call makes, whatever the code did to the built-ins the module uses", async () => {
    const payload = await run(`
      const t = (f) => { try { f(); return "no error"; } catch (e) { return [e.name, e.message]; } };
      const shake = t(() => crypto.createHash("shake256", { outputLength: 2 ** 32 - 1 }).update("a").digest());
      const oneShot = t(() => crypto.hash("shake256", "a", { outputLength: 2 ** 30 }));
      const bytes = t(() => crypto.randomBytes(2 ** 24));
      // Built-ins replaced before the module is first read (by a computed name: loaded then).
      JSON.stringify = () => '["random", 1000000000]';
      WeakMap.prototype.get = () => undefined;
      const module = globalThis["cry" + "pto"];
      msg.payload = { shake, oneShot, bytes, digest: module.createHash("md5").update("").digest("hex"), random: module.randomBytes(3).length };
      return msg;`);
    expect(payload).toEqual({
      shake: ["RangeError", "The function sandbox's crypto makes a digest of at most 1,048,576 bytes. Received an outputLength of 4,294,967,295"],
      oneShot: ["RangeError", "The function sandbox's crypto makes a digest of at most 1,048,576 bytes. Received an outputLength of 1,073,741,824"],
      bytes: ["RangeError", "The function sandbox's crypto makes at most 1,048,576 random bytes in one call. Received 16,777,216"],
      digest: "d41d8cd98f00b204e9800998ecf8427e",
      random: 3,
    });
  });

  it("a digest's data is bounded: past it a RangeError the code can catch", async () => {
    const payload = await run(`
      const h = crypto.createHash("sha256");
      const chunk = "x".repeat(1000000);
      try { for (let i = 0; i < 20; i++) h.update(chunk); return { payload: "no error" }; } catch (e) { msg.payload = [e.name, e.message]; }
      return msg;`, null, { memoryLimitBytes: 64 * 1024 * 1024 });
    expect(payload).toEqual(["RangeError", expect.stringContaining("too long for the function sandbox's crypto")]);
  });
});

describe("function sandbox: the node's Setup → Modules (libs): the npm packages lodash, moment and moment-timezone", () => {
  const run = async (code: string, libs: FunctionSandboxOptions["libs"], extra: Partial<FunctionSandboxOptions> = {}) => {
    const sandbox = await createFunctionSandbox(options(code, { libs, ...extra }));
    try {
      const result = await sandbox.run(msg(null));
      return result.outputs[0]![0]!.payload;
    } finally {
      sandbox.close();
    }
  };

  it("the packages are the node's list, and the help names the versions the server has", () => {
    expect(Object.keys(PACKAGE_FILES).sort()).toEqual([...SANDBOX_PACKAGES].sort());
    for (const name of SANDBOX_PACKAGES) expect(functionNode.help).toContain(`${name} ${packageVersion(name)}`);
  });

  it("lodash is lodash, under the variable the node gives it", async () => {
    const payload = await run(
      `msg.payload = {
        version: _.VERSION,
        grouped: _.groupBy([{ room: "a", t: 1 }, { room: "b", t: 2 }, { room: "a", t: 3 }], "room"),
        chunks: _.chunk([1, 2, 3, 4, 5], 2),
        deep: _.get({ a: [{ b: { c: 7 } }] }, "a[0].b.c"),
        merged: _.merge({ a: { b: 1 } }, { a: { c: 2 } }),
        template: _.template("hello <%= name %>")({ name: "you" }),
        sorted: _.sortBy(["b", "c", "a"]),
        debounce: typeof _.debounce,
      };
      return msg;`,
      [{ var: "_", module: "lodash" }],
    );
    expect(payload).toEqual({
      version: lodash.VERSION,
      grouped: { a: [{ room: "a", t: 1 }, { room: "a", t: 3 }], b: [{ room: "b", t: 2 }] },
      chunks: [[1, 2], [3, 4], [5]],
      deep: 7,
      merged: { a: { b: 1, c: 2 } },
      template: "hello you",
      sorted: ["a", "b", "c"],
      debounce: "function",
    });
  });

  it("moment formats, parses and computes as the server's moment does, and loads its locales by name", async () => {
    const payload = await run(
      `const d = moment.utc("2026-03-29T10:15:00Z");
      msg.payload = {
        version: moment.version,
        formatted: d.clone().add(1, "day").format("dddd D MMMM YYYY HH:mm"),
        iso: d.toISOString(),
        diff: moment.utc("2026-12-24").diff(d, "days"),
        parsed: moment.utc("24.12.2026", "DD.MM.YYYY").format(),
        valid: moment("not a date", "YYYY-MM-DD", true).isValid(),
        german: d.clone().locale("de").format("dddd, D. MMMM"),
        unknown: d.clone().locale("xx-nope").locale(),
        global: moment.locale(),
        setGlobal: moment.locale("fr"),
        french: moment.utc("2026-03-29T10:15:00Z").format("dddd"),
        relative: moment.duration(2, "hours").humanize(),
      };
      return msg;`,
      [{ var: "moment", module: "moment" }],
    );
    const d = momentOnHost.utc("2026-03-29T10:15:00Z");
    expect(payload).toEqual({
      version: momentOnHost.version,
      formatted: d.clone().add(1, "day").format("dddd D MMMM YYYY HH:mm"),
      iso: "2026-03-29T10:15:00.000Z",
      diff: 269,
      parsed: "2026-12-24T00:00:00Z",
      valid: false,
      german: "Sonntag, 29. März",
      unknown: "en",
      global: "en",
      setGlobal: "fr",
      french: "dimanche",
      relative: "2 heures",
    });
  });

  it("moment-timezone has its zones' data, and is the same moment as a moment entry beside it", async () => {
    const payload = await run(
      `const berlin = tz.tz("2026-03-29 12:00", "Europe/Berlin");
      msg.payload = {
        berlin: berlin.format(),
        utc: berlin.toISOString(),
        ny: tz.tz("2026-11-01T12:00:00Z", "America/New_York").format("YYYY-MM-DD HH:mm z"),
        zones: tz.tz.names().length > 400,
        guess: typeof tz.tz.guess,
        same: typeof m.tz === "function" && m === tz,
      };
      return msg;`,
      [
        { var: "m", module: "moment" },
        { var: "tz", module: "moment-timezone" },
      ],
    );
    const berlin = momentTimezone.tz("2026-03-29 12:00", "Europe/Berlin");
    expect(payload).toEqual({
      berlin: berlin.format(),
      utc: berlin.toISOString(),
      ny: momentTimezone.tz("2026-11-01T12:00:00Z", "America/New_York").format("YYYY-MM-DD HH:mm z"),
      zones: true,
      guess: "function",
      same: true,
    });
    expect((payload as { berlin: string }).berlin).toBe("2026-03-29T12:00:00+02:00");
  });

  it("code that names a package's variable has it evaluated at set-up, outside the first run's time limit", async () => {
    const payload = await run("msg.payload = tz.tz('2026-01-01T00:00:00Z', 'Asia/Tokyo').format(); return msg;", [{ var: "tz", module: "moment-timezone" }], { timeoutMs: 20 });
    expect(payload).toBe("2026-01-01T09:00:00+09:00");
  });

  it("every package of the libs is evaluated at set-up, named by the code or not (Node-RED requires each when the node starts): moment gets moment-timezone's tz", async () => {
    const payload = await run(
      `msg.payload = [moment.tz("2026-07-01T12:00:00Z", "Europe/Lisbon").format("HH:mm z"), typeof globalThis[["lo", "dash"].join("")].chunk, typeof fs];
      return msg;`,
      [
        { var: "moment", module: "moment" },
        { var: "mtz", module: "moment-timezone" },
        { var: "lodash", module: "lodash" },
        { var: "fs", module: "fs" as "lodash" },
      ],
    );
    expect(payload).toEqual(["13:00 WEST", "function", "undefined"]);
  });

  it("a locale whose load the time limit stopped is loaded again at its next use, not left half made", async () => {
    const locales = readdirSync(path.join(path.dirname(createRequire(import.meta.url).resolve("moment/package.json")), "locale")).map((f) => f.slice(0, -3));
    const sandbox = await createFunctionSandbox(
      options(
        `if (msg.payload === "check") { const l = flow.get("at"); return { payload: [l, moment.locale(l)] }; }
        for (const l of msg.payload) { flow.set("at", l); moment.locale(l); }
        return msg;`,
        { libs: [{ var: "moment", module: "moment" }], timeoutMs: 25 },
      ),
    );
    try {
      expect((await sandboxError(sandbox.run(msg(locales)))).kind).toBe("timeout");
      const [at, loaded] = (await sandbox.run(msg("check"))).outputs[0]![0]!.payload as [string, string];
      expect(locales).toContain(at);
      expect(loaded).toBe(at);
    } finally {
      sandbox.close();
    }
  });

  it("what a package writes to the console is the server's log, not the node's warnings (as Node-RED's packages write to its stderr)", async () => {
    const sandbox = await createFunctionSandbox(
      options("msg.payload = [moment('not a date at all').isValid(), moment.tz.zone('Nowhere/Atlantis')];\nconsole.warn('mine');\nreturn msg;", {
        libs: [{ var: "moment", module: "moment-timezone" }],
      }),
    );
    try {
      const result = await sandbox.run(msg(null));
      expect(result.outputs[0]![0]!.payload).toEqual([false, null]);
      expect(result.logs.filter((l) => l.level !== "log")).toEqual([{ level: "warn", message: "mine" }]);
      expect(result.logs.some((l) => l.level === "log" && l.message.includes("Deprecation warning"))).toBe(true);
    } finally {
      sandbox.close();
    }
  });

  it("the host reads only the three packages and moment's locale files, by their fixed names", () => {
    for (const name of ["lodash", "moment", "moment-timezone", "moment/locale/de", "moment/locale/en-gb"]) expect(packageSource(name)).toMatch(/^\(function \(module, exports, require, global, console\) \{\n/);
    for (const name of ["fs", "moment/locale/../../package", "moment/locale/../moment", "moment/locale/xx", "moment/locale/constructor", "moment/min/moment.min.js", "__proto__", "constructor", "toString", "hasOwnProperty", "lodash/fp", "moment/locale/de.js", ""]) {
      expect(packageSource(name), name).toBeUndefined();
    }
  });
});
