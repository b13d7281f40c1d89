import { describe, expect, it } from "vitest";
import { pagePolicy } from "./content-security-policy";

describe("pagePolicy", () => {
  it("allows media from https, data and blob (ui-audio) and frames of http(s) pages (ui-iframe) on dashboard pages only; scripts stay nonce-only everywhere", () => {
    const app = pagePolicy("n1", false);
    const dashboard = pagePolicy("n1", false, { dashboard: true });
    expect(app).not.toContain("media-src");
    expect(app).not.toContain("frame-src");
    expect(dashboard).toContain("media-src 'self' https: data: blob:");
    expect(dashboard).toContain("frame-src 'self' http: https:");
    for (const p of [app, dashboard]) {
      expect(p).toContain("script-src 'self' 'nonce-n1' 'strict-dynamic'");
      expect(p).toContain("default-src 'self'");
      expect(p).toContain("frame-ancestors 'none'");
    }
  });
});
