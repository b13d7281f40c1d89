import { describe, expect, it } from "vitest";
import { vuetifyColor } from "./colors";

describe("vuetifyColor (Dashboard 2.0's colour names)", () => {
  it("maps theme names, Material names and their shades; passes CSS colours; refuses what could carry a url", () => {
    expect(vuetifyColor("")).toBe("var(--db-primary)");
    expect(vuetifyColor("primary")).toBe("var(--db-primary)");
    expect(vuetifyColor("success")).toBe("#4caf50");
    expect(vuetifyColor("Warning")).toBe("#fb8c00");
    expect(vuetifyColor("green")).toBe("#4caf50");
    expect(vuetifyColor("deep-orange")).toBe("#ff5722");
    expect(vuetifyColor("green-darken-2")).toBe("color-mix(in srgb, #4caf50 70%, black)");
    expect(vuetifyColor("blue-grey-lighten-1")).toBe("color-mix(in srgb, #607d8b 85%, white)");
    expect(vuetifyColor("#a5a5a5")).toBe("#a5a5a5");
    expect(vuetifyColor("rgb(165,165,165)")).toBe("rgb(165,165,165)");
    expect(vuetifyColor("rebeccapurple")).toBe("rebeccapurple");
    expect(vuetifyColor("url(https://evil)")).toBe("var(--db-primary)");
    expect(vuetifyColor("red; background: url(x)", "#000")).toBe("#000");
  });
});

describe("safeLinkUrl (ui-link)", () => {
  it("follows http(s), mailto, tel and relative URLs; no other scheme, no control characters", async () => {
    const { safeLinkUrl } = await import("@/shared/dashboard");
    for (const ok of ["https://example.com/x?y=1", "http://10.0.0.2:1880/ui", "mailto:ops@example.com", "tel:+4930123", "/dashboard/acme/other", "../up", "#top", "page2"]) expect(safeLinkUrl(ok), ok).toBe(true);
    for (const bad of ["", "javascript:alert(1)", " JavaScript:alert(1)", "data:text/html,<b>x</b>", "file:///etc/passwd", "vbscript:x", "java\tscript:alert(1)", "x".repeat(2001)]) expect(safeLinkUrl(bad), bad).toBe(false);
  });
});

describe("frameTarget (ui-iframe)", () => {
  it("frames another origin's http(s) page, resolved against the dashboard's address; refuses other schemes and the dashboard's own origin", async () => {
    const { frameTarget } = await import("@/shared/dashboard");
    const page = "https://flows.example.com/dashboard/acme/home";
    expect(frameTarget("https://grafana.example/d/1?orgId=1&kiosk", page)).toEqual({ url: "https://grafana.example/d/1?orgId=1&kiosk" });
    expect(frameTarget(" http://192.168.1.20:3000/ ", page)).toEqual({ url: "http://192.168.1.20:3000/" });
    // Another port is another origin.
    expect(frameTarget("https://flows.example.com:8443/x", page)).toEqual({ url: "https://flows.example.com:8443/x" });
    expect(frameTarget("//cams.example/live", page)).toEqual({ url: "https://cams.example/live" });
    for (const own of ["/api/v1/flows", "home", "https://flows.example.com/editor", "HTTPS://FLOWS.EXAMPLE.COM/x", "#top"]) expect(frameTarget(own, page), own).toEqual({ refused: "same-origin" });
    for (const bad of ["javascript:alert(1)", " JavaScript:alert(1)", "java\tscript:alert(1)", "data:text/html,<b>x</b>", "file:///etc/passwd", "blob:https://flows.example.com/1", "x".repeat(2001)]) expect(frameTarget(bad, page), bad).toEqual({ refused: "scheme" });
    expect(frameTarget("  ", page)).toEqual({ refused: "empty" });
  });
});
