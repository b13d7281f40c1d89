import { describe, expect, it } from "vitest";
import { DEFAULT_AFTER_LOGIN, safeCallbackPath } from "./callback-path";

describe("safeCallbackPath", () => {
  it("keeps same-origin paths with their query and hash", () => {
    expect(safeCallbackPath("/account/security")).toBe("/account/security");
    expect(safeCallbackPath("/flows/flw_1?tab=nodes#n2")).toBe("/flows/flw_1?tab=nodes#n2");
  });

  it.each([
    [null],
    [""],
    ["account"],
    ["https://evil.example/"],
    ["//evil.example/"],
    ["/\\evil.example"],
    ["/\t/evil.example"],
    ["javascript:alert(1)"],
    ["/login"],
    ["/login?callbackUrl=/login"],
  ])("falls back for %j", (value) => {
    expect(safeCallbackPath(value)).toBe(DEFAULT_AFTER_LOGIN);
  });
});
