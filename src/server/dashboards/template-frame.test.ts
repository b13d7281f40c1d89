import http from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveTemplateFrame, TEMPLATE_FRAME_POLICY } from "./template-frame";

let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer(serveTemplateFrame);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function get(path: string, headers: Record<string, string> = {}, method = "GET") {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("ui-template frame (SPEC §21)", () => {
  it("serves the document with a policy of its own that only our pages may frame", async () => {
    const res = await get("/dashboard-frame/template");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.headers["content-security-policy"]).toBe(TEMPLATE_FRAME_POLICY);
    expect(TEMPLATE_FRAME_POLICY).toContain("frame-ancestors 'self'");
    expect(TEMPLATE_FRAME_POLICY).toContain("form-action 'none'");
    expect(TEMPLATE_FRAME_POLICY).toContain("frame-src http: https:");
    // Opaque however it is framed: the document's own sandbox, never allow-same-origin.
    expect(TEMPLATE_FRAME_POLICY).toMatch(/^sandbox allow-scripts[^;]*;/);
    expect(TEMPLATE_FRAME_POLICY).not.toContain("allow-same-origin");
    expect(res.headers["cache-control"]).toBe("no-cache");
    const html = res.body.toString();
    const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
    // Vuetify's script and MDI's icons come when a template uses them (the runtime loads them, of the same version).
    expect(scripts).toEqual([expect.stringMatching(/^vue\.js\?v=[\w-]{12}$/), expect.stringMatching(/^runtime\.js\?v=/)]);
    expect([...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1])).toEqual([expect.stringMatching(/^vuetify\.css\?v=/)]);
  });

  it("serves Vue, Vuetify, the icons and the runtime compressed, cacheable for good under a version, to any origin", async () => {
    const html = (await get("/dashboard-frame/template")).body.toString();
    const vue = /src="(vue\.js\?v=[^"]+)"/.exec(html)![1]!;
    const res = await get(`/dashboard-frame/${vue}`, { "accept-encoding": "gzip, br" });
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBe("gzip");
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    const source = gunzipSync(res.body).toString();
    // The full build: the template compiler comes with it.
    expect(source).toContain("e.compile");
    expect(source).toContain("compilerOptions");
    expect(res.body.length).toBeLessThan(source.length / 2);
    // Not asked for gzip: the file as it is.
    const plain = await get(`/dashboard-frame/${vue}`);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.toString()).toBe(source);
    // Revalidation.
    expect((await get(`/dashboard-frame/${vue}`, { "if-none-match": plain.headers.etag! })).status).toBe(304);
    for (const path of ["vuetify.js", "vuetify.css", "mdi/css/materialdesignicons.min.css", "mdi/fonts/materialdesignicons-webfont.woff2"]) {
      const r = await get(`/dashboard-frame/${path}`, {}, "HEAD");
      expect([path, r.status]).toEqual([path, 200]);
    }
  });

  it("serves a runtime that parses as a script of its own", async () => {
    const res = await get("/dashboard-frame/runtime.js");
    expect(res.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    const source = res.body.toString();
    expect(() => new Function(source)).not.toThrow();
    expect(source).toContain('"flowplane-template"');
  });

  it("answers anything else with the error envelope", async () => {
    for (const path of ["/dashboard-frame/", "/dashboard-frame/package.json", "/dashboard-frame/%2e%2e/%2e%2e/package.json", "/dashboard-frame/vue.js/x", "/dashboard-frame/mdi/fonts/materialdesignicons-webfont.ttf", "/dashboard-frame/__proto__", "/dashboard-frame/constructor"]) {
      const res = await get(path);
      expect([path, res.status]).toEqual([path, 404]);
      expect(JSON.parse(res.body.toString())).toEqual({ error: { code: "NOT_FOUND", message: "not found" } });
    }
    const post = await get("/dashboard-frame/template", {}, "POST");
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe("GET, HEAD");
    expect(JSON.parse(post.body.toString()).error.code).toBe("METHOD_NOT_ALLOWED");
  });
});
