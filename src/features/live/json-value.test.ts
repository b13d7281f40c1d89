import { describe, expect, it } from "vitest";
import { bufferBytes } from "./json-value";

describe("a Buffer in the debug sidebar", () => {
  it("is recognised in its JSON form and shown as its bytes; anything else shaped like it is an object", () => {
    expect(bufferBytes({ type: "Buffer", data: [65, 66, 255] })).toEqual([65, 66, 255]);
    expect(bufferBytes({ type: "Buffer", data: [] })).toEqual([]);
    expect(bufferBytes({ type: "Buffer", data: [1], extra: true })).toBeNull();
    expect(bufferBytes({ type: "Buffer", data: ["a"] })).toBeNull();
    expect(bufferBytes({ type: "buffer", data: [1] })).toBeNull();
    expect(bufferBytes([1, 2])).toBeNull();
    expect(bufferBytes(null)).toBeNull();
  });
});
