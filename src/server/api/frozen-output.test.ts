import { describe, expect, it } from "vitest";
import { deepFreeze } from "../../shared/deep-freeze";
import { isKeptBody, jsonBodyOf, keptInArray, LARGE_JSON_CHARS } from "./frozen-output";

const WRAP = { before: '{"result":{"data":', after: "}}" };

describe("jsonBodyOf", () => {
  it("answers a small or unfrozen value as its JSON text, wrapped when asked", () => {
    expect(jsonBodyOf({ a: "é" })).toBe('{"a":"é"}');
    expect(jsonBodyOf(deepFreeze({ a: 1 }), WRAP)).toBe('{"result":{"data":{"a":1}}}');
    const large = { text: "x".repeat(LARGE_JSON_CHARS) };
    expect(jsonBodyOf(large)).toBe(JSON.stringify(large));
  });

  it("answers a large frozen value as UTF-8 bytes made once, one set per wrap", () => {
    const value = deepFreeze({ help: "→ ".repeat(LARGE_JSON_CHARS) });
    const bytes = jsonBodyOf(value);
    expect(Buffer.isBuffer(bytes)).toBe(true);
    expect((bytes as Buffer).toString("utf8")).toBe(JSON.stringify(value));
    expect(jsonBodyOf(value)).toBe(bytes);
    const wrapped = jsonBodyOf(value, WRAP) as Buffer;
    expect(wrapped.toString("utf8")).toBe(`{"result":{"data":${JSON.stringify(value)}}}`);
    expect(jsonBodyOf(value, WRAP)).toBe(wrapped);
    expect(jsonBodyOf(value)).toBe(bytes);
  });
});

describe("keptInArray", () => {
  it("makes a kept body's batch of one once, and keeps it as a kept body", () => {
    const value = deepFreeze({ help: "x".repeat(LARGE_JSON_CHARS) });
    const bytes = jsonBodyOf(value, WRAP) as Buffer;
    expect(isKeptBody(bytes)).toBe(true);
    const batch = keptInArray(bytes);
    expect(batch.toString("utf8")).toBe(`[${bytes.toString("utf8")}]`);
    expect(keptInArray(bytes)).toBe(batch);
    expect(isKeptBody(batch)).toBe(true);
  });

  it("makes any other body's anew, not kept", () => {
    const other = Buffer.from('{"a":1}');
    const batch = keptInArray(other);
    expect(batch.toString("utf8")).toBe('[{"a":1}]');
    expect(keptInArray(other)).not.toBe(batch);
    expect(isKeptBody(batch)).toBe(false);
    expect(isKeptBody(other)).toBe(false);
  });
});
