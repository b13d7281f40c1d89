import v8 from "node:v8";
import vm from "node:vm";
import { describe, expect, it } from "vitest";
import { compileJsonata, jsonataProblem, nodeJsonataBindings } from "./jsonata";
import { builtinVariables, memoryContextStore } from "./memory-context";

const run = (source: string, msg: unknown = {}, bindings = {}) => compileJsonata(source).evaluate(msg, bindings);

describe("compileJsonata", () => {
  it("evaluates against the message, or {msg} when the expression names msg (as Node-RED)", async () => {
    await expect(run("payload.a + 1", { payload: { a: 1 } })).resolves.toBe(2);
    await expect(run("msg.payload & '!'", { payload: "hi" })).resolves.toBe("hi!");
    await expect(run("$count(msg.items)", { items: [1, 2, 3] })).resolves.toBe(3);
  });

  it("reports a syntax error, and a regex RE2 lacks, at compile time with a clear message", () => {
    expect(jsonataProblem("payload.(")).toMatch(/not a valid JSONata expression: Expected "\)" before end of expression/);
    expect(jsonataProblem("$match(payload, /(a)\\1/)")).toMatch(/regular expression .* not supported/);
    expect(jsonataProblem("$uppercase(payload)")).toBeNull();
  });

  it("binds $flowContext, $globalContext (nested keys) and $env as Node-RED", async () => {
    const flow = memoryContextStore(new Map<string, unknown>([["count", 3], ["obj", { a: { b: 7 } }]]));
    const global = memoryContextStore(new Map<string, unknown>([["name", "g"]]));
    const bindings = nodeJsonataBindings({ context: { node: memoryContextStore(), flow, global }, env: builtinVariables({ NR_NODE_ID: "n1" }) });
    await expect(run("$flowContext('count') + $flowContext('obj.a.b')", {}, bindings)).resolves.toBe(10);
    await expect(run("$globalContext('name') & $env('NR_NODE_ID') & $env('MISSING')", {}, bindings)).resolves.toBe("gn1");
  });

  it("binds $moment (moment-timezone) as Node-RED: its methods chain, and a moment result reads as its JSON", async () => {
    const bindings = nodeJsonataBindings({ context: { node: memoryContextStore(), flow: memoryContextStore(), global: memoryContextStore() }, env: builtinVariables({}) });
    await expect(run('$moment(payload).tz("America/New_York").format("YYYY-MM-DD HH:mm z")', { payload: "2024-07-01T12:00:00Z" }, bindings)).resolves.toBe("2024-07-01 08:00 EDT");
    await expect(run('$moment(payload, "DD/MM/YYYY").add(1, "days").startOf("month").format("D MMM")', { payload: "31/01/2024" }, bindings)).resolves.toBe("1 Feb");
    await expect(run('{"at": $moment(payload).utc(), "list": [$moment(payload).add(1, "hours")]}', { payload: "2024-01-01T00:00:00+02:00" }, bindings)).resolves.toEqual({
      at: "2023-12-31T22:00:00.000Z",
      list: ["2023-12-31T23:00:00.000Z"],
    });
    await expect(run("$moment() <= $moment()", {}, bindings)).rejects.toThrow();
    // Only moment's public methods: no constructor, no private fields' functions.
    await expect(run('$moment(payload).constructor', { payload: "2024-01-01" }, bindings)).resolves.toBeUndefined();
  });

  it("returns plain objects (Object.prototype restored) and $clone copies", async () => {
    const result = (await run("{'a': {'b': payload}}", { payload: 1 })) as Record<string, unknown>;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(result.a)).toBe(Object.prototype);
    const msg = { payload: { x: 1 } };
    const copy = await run("$clone(payload)", msg);
    expect(copy).toEqual({ x: 1 });
    expect(copy).not.toBe(msg.payload);
  });

  it("keeps jsonata's results for the guarded built-ins", async () => {
    await expect(run("$pad('ab', 5, '#') & $pad('ab', -4)")).resolves.toBe("ab###  ab");
    await expect(run("$join(['a','b'], '-')")).resolves.toBe("a-b");
    await expect(run("$replace('abcabc', /b(c)/, '[$1]', 1)")).resolves.toBe("a[c]abc");
    await expect(run("$distinct([1, 2, 1, {'a': 1, 'b': 2}, {'b': 2, 'a': 1}, 'x', 'x'])")).resolves.toEqual([1, 2, { a: 1, b: 2 }, "x"]);
    await expect(run("$split('a1b22c', /\\d+/)")).resolves.toEqual(["a", "b", "c"]);
    await expect(run("$match('foo123bar45', /\\d+/).match")).resolves.toEqual(["123", "45"]);
  });
});

describe("JSONata limits (the function node's: 1000 ms, 32 MiB)", () => {
  // Two measures of an expression's memory. `held`: what it keeps alive while it runs, sampled
  // every 100 ms and at its end right after a full collection. `grew`: the heap's growth by its end
  // without one, garbage included, which catches a budget that did not stop a large allocation.
  // An expression stopped by the time limit makes garbage for as long as the limit lets it run, so
  // its `grew` depends on the machine's speed (238 MB on a fast CI runner); its `held` does not.
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc") as () => void;
  const heapUsed = () => process.memoryUsage().heapUsed;
  const collected = () => {
    gc();
    return heapUsed();
  };
  async function measure(source: string, error: RegExp): Promise<{ ms: number; held: number; grew: number }> {
    // Timed, with the heap's growth by its end, and nothing else running.
    const before = collected();
    const started = Date.now();
    await expect(run(source)).rejects.toThrow(error);
    const ms = Date.now() - started;
    const grew = heapUsed() - before;
    // Again, sampling what it keeps (the collections take time of their own: this run is not timed).
    // A sample every 100 ms, or twice as long after it as the collection took: on a busy runner a
    // full collection of the test worker's heap takes tens of milliseconds, and an expression
    // stopped by its time limit (which counts only its own running time) must get to run.
    const base = collected();
    let held = 0;
    const sample = () => {
      const started = performance.now();
      held = Math.max(held, collected() - base);
      return performance.now() - started;
    };
    let timer: NodeJS.Timeout | undefined;
    const schedule = (after: number) => {
      timer = setTimeout(() => schedule(Math.max(100, 2 * sample())), after);
    };
    schedule(100);
    try {
      await expect(run(source)).rejects.toThrow(error);
    } finally {
      clearTimeout(timer);
    }
    sample();
    return { ms, held, grew };
  }

  it.each([
    ["a huge nested range", "[1..10000000].[1..10000000]", /maximum sequence length/],
    ["nested ranges within the sequence cap", "[1..1000000].[1..1000000]", /ran out of memory/],
    ["a huge padding", "$pad('', 999999999)", /ran out of memory/],
    ["a huge replacement", "$replace($pad('', 100000, 'a'), 'a', $pad('', 100000, 'b'))", /ran out of memory/],
    ["doubling a string", "($f := function($s, $n) { $n = 0 ? $s : $f($s & $s, $n - 1) }; $f('x', 60))", /ran out of memory/],
    ["runaway recursion", "($f := function($x) { 1 + $f($x + 1) }; $f(0))", /Stack overflow/],
    ["an endless tail-recursive loop", "($f := function($x) { $f($x + 1) }; $f(0))", /ran longer than its time limit \(1000 ms\)/],
    ["the same through $eval", "$eval('[1..1000000].[1..1000000]')", /ran out of memory/],
  ])("%s ends in an error within the time limit, with bounded memory", async (_name, source, error) => {
    const { ms, held, grew } = await measure(source, error);
    expect(ms).toBeLessThan(1800);
    // Never more kept than twice the 32 MiB allocation budget.
    expect(held).toBeLessThan(64 * 1024 * 1024);
    if (!error.source.includes("time limit")) expect(grew).toBeLessThan(200 * 1024 * 1024);
  }, 15_000);

  it("a catastrophic regex runs in linear time (RE2)", async () => {
    const started = Date.now();
    await expect(run("$match(payload, /(a+)+$/)", { payload: `${"a".repeat(5000)}!` })).resolves.toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("yields to the event loop while a long expression runs", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    await expect(run("($f := function($x) { $f($x + 1) }; $f(0))")).rejects.toThrow(/time limit/);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(10);
  });
});

/**
 * Lookaround in JSONata regexes (real flows write `/(?<=sensors\/[0-9]+\/)[a-z_]+/`): a lookbehind at
 * the start and a lookahead at the end run on RE2 (lookaroundAsRe2), with JavaScript's answers.
 */
describe("JSONata regexes with lookaround", () => {
  const js = (source: string, flags: string, input: string) => [...input.matchAll(new RegExp(source, `${flags}g`))].map((m) => [m.index, m[0], ...m.slice(1)]);
  type Match = { index: number; match: string; groups: string[] };
  const ours = async (source: string, flags: string, input: string) => {
    const found = (await run(`$match(payload, /${source}/${flags})`, { payload: input })) as Match | Match[] | undefined;
    return (found === undefined ? [] : Array.isArray(found) ? found : [found]).map((m) => [m.index, m.match, ...m.groups]);
  };

  it.each([
    ["(?<=sensors\\/[0-9]+\\/)([a-z]|_)+", "", "sensors/12/soil_moisture and sensors/3/temp"],
    ["(?<=temp=)\\d+", "", "temp=21 x temp=35 temp="],
    ["(?<=\\$)\\d+(\\.\\d\\d)?", "", "cost $12.50, $7 and 9"],
    ["(?<=a)a", "", "aaaa"],
    ["\\d+(?=px)", "", "10px 20em 300px"],
    ["(?<=<b>)[^<]*(?=<\\/b>)", "i", "<B>bold</B> and <b>more</b>"],
    ["(?<=ab|b)c", "", "abc bc xc"],
  ])("/%s/%s matches as JavaScript does", async (source, flags, input) => {
    expect(await ours(source, flags, input)).toEqual(js(source, flags, input));
  });

  it("$replace and $contains take them too", async () => {
    await expect(run(`$replace(payload, /(?<=\\$)\\d+/, "N")`, { payload: "cost $12 and $7" })).resolves.toBe("cost $N and $N");
    await expect(run(`$contains(payload, /(?<=id=)\\d+(?=;)/)`, { payload: "id=42;" })).resolves.toBe(true);
    await expect(run(`$contains(payload, /(?<=id=)\\d+(?=;)/)`, { payload: "id=42" })).resolves.toBe(false);
  });

  it("refuses other lookarounds at save, with the reason", () => {
    expect(jsonataProblem("$match(payload, /(?<!x)y/)")).toMatch(/only a lookbehind \(\?<=…\) at the start and a lookahead \(\?=…\) at the end are supported/);
    expect(jsonataProblem("$match(payload, /a(?=b)c/)")).toMatch(/only a lookbehind/);
    expect(jsonataProblem("$match(payload, /(?<=x)a|b/)")).toMatch(/only a lookbehind/);
    expect(jsonataProblem("$match(payload, /(?<=(x))a/)")).toMatch(/may not capture/);
  });

  it("stays linear: a catastrophic pattern behind a lookbehind on a long payload answers at once", async () => {
    const payload = `x${"a".repeat(50_000)}b`;
    const started = performance.now();
    await expect(run("$contains(payload, /(?<=x)(a+)+$/)", { payload })).resolves.toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
