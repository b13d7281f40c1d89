import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, jsonTooDeep } from "./json-depth";

const nested = (depth: number, open = "[", close = "]") => open.repeat(depth) + close.repeat(depth);

describe("jsonTooDeep", () => {
  it("allows the limit and refuses one level more, in arrays and objects", () => {
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    const objects = (d: number) => '{"a":'.repeat(d - 1) + "{}" + "}".repeat(d - 1);
    expect(jsonTooDeep(objects(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonTooDeep(objects(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonTooDeep(nested(100_000))).toBe(true);
  });

  it("does not count brackets inside strings, escaped quotes included", () => {
    const text = JSON.stringify({ code: "[".repeat(1000), quoted: '\\"[[[[' + "{".repeat(500) });
    expect(jsonTooDeep(text)).toBe(false);
    expect(jsonTooDeep(`[${JSON.stringify("\\")},${nested(MAX_JSON_DEPTH)}]`)).toBe(true);
  });

  it("siblings do not add up: wide values are fine", () => {
    expect(jsonTooDeep(JSON.stringify(Array.from({ length: 10_000 }, () => [[[1]]])))).toBe(false);
  });
});
