import { describe, expect, it } from "vitest";
import { boundedJson } from "./bounded-json";

/** `{a: x, b: x}` nested `levels` times over one leaf: tiny in memory, 2^levels leaves as JSON. */
function dag(levels: number): unknown {
  let x: unknown = { leaf: "value" };
  for (let i = 0; i < levels; i++) x = { a: x, b: x };
  return x;
}

const samples: unknown[] = [
  null,
  undefined,
  0,
  -0,
  1.5e300,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  "",
  'quote " backslash \\ newline \n tab \t nul \u0000 lone \ud800 pair 😀 é',
  [1, undefined, () => 1, Symbol("s"), null, [], {}],
  { a: 1, skip: undefined, f: () => 1, nested: { b: [1, 2, { c: "d" }] }, "key \"q\"": "v" },
  { date: new Date(0), buffer: Buffer.from("héllo"), boxed: [new Number(3), new String("s"), new Boolean(false)] },
  { custom: { toJSON: (key: string) => `custom at ${key}` }, gone: { toJSON: () => undefined } },
  Object.assign(Object.create(null) as object, { proto: "less" }),
  new Map([["a", 1]]),
  new Uint8Array([1, 2, 3]),
  dag(6),
];

describe("boundedJson", () => {
  it("gives JSON.stringify's text exactly when it fits", () => {
    for (const value of samples) expect(boundedJson(value, { maxChars: 100_000 })).toEqual({ text: JSON.stringify(value), truncated: false });
  });

  it("gives the first maxChars characters of JSON.stringify's text when it does not, at every cut", () => {
    for (const value of samples) {
      const full = JSON.stringify(value);
      if (full === undefined) continue;
      for (let max = 0; max < full.length; max++) expect(boundedJson(value, { maxChars: max }), `${full} at ${max}`).toEqual({ text: full.slice(0, max), truncated: true });
      expect(boundedJson(value, { maxChars: full.length })).toEqual({ text: full, truncated: false });
    }
  });

  it("cuts a shared object repeated 2^40 times at the bound, at once, with the text it begins with", () => {
    const started = performance.now();
    const result = boundedJson(dag(40), { maxChars: 64 * 1024 });
    expect(performance.now() - started).toBeLessThan(500);
    expect(result.truncated).toBe(true);
    expect(result.text).toHaveLength(64 * 1024);
    expect(result.text!.startsWith('{"a":{"a":{"a":')).toBe(true);
    // The same characters JSON.stringify would begin with (checked on a DAG small enough for it).
    expect(boundedJson(dag(14), { maxChars: 5000 }).text).toBe(JSON.stringify(dag(14)).slice(0, 5000));
  });

  it("bounds a long string and a large Buffer without building their whole text", () => {
    const long = "é\"".repeat(5_000_000);
    expect(boundedJson({ long }, { maxChars: 20 })).toEqual({ text: JSON.stringify({ long }).slice(0, 20), truncated: true });
    const buffer = Buffer.alloc(50 * 1024 * 1024, 7);
    const started = performance.now();
    expect(boundedJson({ buffer }, { maxChars: 40 })).toEqual({ text: '{"buffer":{"type":"Buffer","data":[7,7,7', truncated: true });
    expect(performance.now() - started).toBeLessThan(200);
  });

  it("never takes much longer than its time budget", () => {
    // A wide object with many skipped properties at every level: little text, many steps.
    const wide: Record<string, unknown> = {};
    for (let i = 0; i < 2000; i++) wide[`k${i}`] = undefined;
    let x: unknown = wide;
    for (let i = 0; i < 30; i++) x = { a: x, b: x, ...wide };
    const started = performance.now();
    const result = boundedJson(x, { maxChars: 10_000_000, maxMs: 50 });
    expect(performance.now() - started).toBeLessThan(400);
    expect(result.truncated).toBe(true);
  });

  it("throws what JSON.stringify throws: a cycle, a BigInt", () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(() => boundedJson(cycle, { maxChars: 1000 })).toThrow(TypeError);
    expect(() => boundedJson({ n: 1n }, { maxChars: 1000 })).toThrow(TypeError);
  });
});
