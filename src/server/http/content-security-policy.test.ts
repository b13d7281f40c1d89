import { describe, expect, it } from "vitest";
import { pagePolicy } from "./content-security-policy";

describe("pagePolicy", () => {
  it("allows media from https, data and blob on dashboard pages only (ui-audio); scripts stay nonce-only everywhere", () => {
    const app = pagePolicy("n1", false);
    const dashboard = pagePolicy("n1", false, { media: true });
    expect(app).not.toContain("media-src");
    expect(dashboard).toContain("media-src 'self' https: data: blob:");
    for (const p of [app, dashboard]) {
      expect(p).toContain("script-src 'self' 'nonce-n1' 'strict-dynamic'");
      expect(p).toContain("default-src 'self'");
      expect(p).toContain("frame-ancestors 'none'");
    }
  });
});
