import { describe, expect, it } from "vitest";
import { decodeKeysetCursor, encodeKeysetCursor } from "./cursor";

describe("keyset cursors", () => {
  it("keep the wire format clients already hold: base64url of `[epochMs,id]`", () => {
    const cursor = encodeKeysetCursor(new Date(1_700_000_000_123), "flw_0123abcd");
    expect(Buffer.from(cursor, "base64url").toString("utf8")).toBe('[1700000000123,"flw_0123abcd"]');
    expect(cursor).toBe("WzE3MDAwMDAwMDAxMjMsImZsd18wMTIzYWJjZCJd");
  });

  it("round-trip", () => {
    const at = new Date("2026-01-02T03:04:05.678Z");
    expect(decodeKeysetCursor(encodeKeysetCursor(at, "a-b_c"))).toEqual({ at, id: "a-b_c" });
  });
});
