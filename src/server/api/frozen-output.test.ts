import { describe, expect, it } from "vitest";
import { deepFreeze } from "../../shared/deep-freeze";
import { isKeptBody, jsonBodyOf, LARGE_JSON_CHARS } from "./frozen-output";

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
    // Kept, so what is derived from them (compressed forms) may be kept too; other bytes are not.
    expect(isKeptBody(bytes as Buffer) && isKeptBody(wrapped)).toBe(true);
    expect(isKeptBody(Buffer.from(JSON.stringify(value)))).toBe(false);
  });
});
