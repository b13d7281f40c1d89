import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { componentFromScript, FRAME_TAG, TEMPLATE_FRAME_PATH, TEMPLATE_FRAME_SANDBOX, templateFrameRuntime, templateNeeds } from "../../shared/template-frame";

/**
 * ui-template's frame document and its scripts (SPEC §21, src/shared/template-frame.ts), served by
 * the custom server under `/dashboard-frame/`: the document, our runtime, and the browser builds of
 * Vue 3, Vuetify 3 (the versions Dashboard 2.0 runs) and Material Design Icons from node_modules.
 * The document loads Vue and Vuetify's stylesheet; the runtime adds Vuetify's script and MDI's
 * stylesheet when a template uses them (`templateNeeds`).
 *
 * The document runs in `<iframe sandbox>` without `allow-same-origin`, so its origin is opaque: its
 * policy is its own (not the page's), and may let a template do what Dashboard 2.0 lets it do,
 * because nothing in the frame reaches the app: Vue's template compiler (`'unsafe-eval'`),
 * `onclick="…"` attributes, external libraries, styles, images and APIs over https, and frames of
 * http(s) pages (which inherit the sandbox). It may be
 * framed by our pages only. The assets answer any origin (`Access-Control-Allow-Origin: *`): fonts
 * are fetched with CORS, and the frame's origin is `null`.
 *
 * Each file is read and compressed when first asked for (at most about 750 KB kept), not at start.
 */

/** "/dashboard-frame/": the document is "template" below it, its scripts and styles beside it. */
export const TEMPLATE_FRAME_PREFIX = TEMPLATE_FRAME_PATH.slice(0, TEMPLATE_FRAME_PATH.lastIndexOf("/") + 1);
const DOCUMENT = TEMPLATE_FRAME_PATH.slice(TEMPLATE_FRAME_PREFIX.length);

export const TEMPLATE_FRAME_POLICY = [
  // The frame's sandbox again, from the document itself: however it is framed (a ui-iframe page
  // that redirects here, a template's own frame), it never runs with this origin.
  `sandbox ${TEMPLATE_FRAME_SANDBOX}`,
  "default-src 'none'",
  "script-src 'self' 'unsafe-inline' 'unsafe-eval' https:",
  "style-src 'self' 'unsafe-inline' https:",
  "img-src 'self' data: blob: https:",
  "font-src 'self' data: https:",
  "media-src 'self' data: blob: https:",
  "connect-src https: wss:",
  // A template that frames a page of its own (Dashboard 1's <iframe src="…/worldmap">, a camera):
  // that frame inherits this one's sandbox, so even a page of this site runs without its origin.
  "frame-src http: https:",
  "worker-src blob:",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'self'",
].join("; ");

interface Asset {
  /** Compressed (gzip) unless `compressed` is false (fonts: woff is compressed already). */
  body: Buffer;
  compressed: boolean;
  etag: string;
  type: string;
}

const require = createRequire(import.meta.url);
/** A package's folder (every one of these exports its package.json). */
const packageDir = (name: string) => path.dirname(require.resolve(`${name}/package.json`));

/**
 * name → file, relative to its package (read on first request). Of MDI's fonts only woff2, the first
 * its stylesheet names: every browser that runs the dashboard reads it, so the others are never asked for.
 */
const VENDOR: Record<string, { pkg: string; file: string; type: string }> = {
  "vue.js": { pkg: "vue", file: "dist/vue.global.prod.js", type: "text/javascript; charset=utf-8" },
  "vuetify.js": { pkg: "vuetify", file: "dist/vuetify.min.js", type: "text/javascript; charset=utf-8" },
  "vuetify.css": { pkg: "vuetify", file: "dist/vuetify.min.css", type: "text/css; charset=utf-8" },
  "mdi/css/materialdesignicons.min.css": { pkg: "@mdi/font", file: "css/materialdesignicons.min.css", type: "text/css; charset=utf-8" },
  "mdi/fonts/materialdesignicons-webfont.woff2": { pkg: "@mdi/font", file: "fonts/materialdesignicons-webfont.woff2", type: "font/woff2" },
};

function asset(body: Buffer, type: string): Asset {
  const compressed = type !== "font/woff2";
  return { body: compressed ? gzipSync(body, { level: 9 }) : body, compressed, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`, type };
}

/** The runtime's source: each function as its text (they keep what they use inside their bodies). */
export function runtimeSource(): string {
  // A loader that keeps function names (tsx in development) wraps them in __name(); the frame has no such helper.
  return `"use strict";\nvar __name = function (fn) { return fn; };\n(${templateFrameRuntime.toString()})(${JSON.stringify(FRAME_TAG)}, ${componentFromScript.toString()}, ${templateNeeds.toString()});\n`;
}

function documentSource(version: string): string {
  const v = `?v=${version}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Template</title>
<link rel="stylesheet" href="vuetify.css${v}">
<style>
html{background:transparent;overflow:hidden}
body{display:flow-root;margin:0;background:transparent;color:var(--template-color,inherit);font-family:var(--template-font,system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",sans-serif);font-size:14px;line-height:1.4}
.template-error{margin:4px 0;color:#b3261e;font:12px/1.4 ui-monospace,monospace;white-space:pre-wrap}
#app-bar-title,#app-bar-actions{display:flex;align-items:center;gap:8px}
html.app-bar body{height:100vh;display:flex;align-items:center;gap:8px}
html.app-bar-actions body{justify-content:flex-end}
</style>
</head><body><div id="flowplane-template"></div><div id="app-bar-title"></div><div id="app-bar-actions"></div>
<script src="vue.js${v}"></script>
<script src="runtime.js${v}"></script>
</body></html>
`;
}

const assets = new Map<string, Asset>();
let version: string | undefined;

/** The frame's version: its packages' versions and the runtime's source (read once, cheaply). */
function frameVersion(): string {
  if (version) return version;
  const hash = createHash("sha256").update(runtimeSource());
  for (const pkg of new Set(Object.values(VENDOR).map((v) => v.pkg))) {
    hash.update(`${pkg}@${(JSON.parse(readFileSync(path.join(packageDir(pkg), "package.json"), "utf8")) as { version: string }).version}`);
  }
  version = hash.digest("base64url").slice(0, 12);
  return version;
}

/** One file of the frame, read and compressed the first time it is asked for. */
function assetOf(name: string): Asset | undefined {
  const known = assets.get(name);
  if (known) return known;
  let made: Asset | undefined;
  if (name === DOCUMENT) made = asset(Buffer.from(documentSource(frameVersion())), "text/html; charset=utf-8");
  else if (name === "runtime.js") made = asset(Buffer.from(runtimeSource()), "text/javascript; charset=utf-8");
  else if (Object.hasOwn(VENDOR, name)) {
    const spec = VENDOR[name]!;
    made = asset(readFileSync(path.join(packageDir(spec.pkg), spec.file)), spec.type);
  }
  if (made) assets.set(name, made);
  return made;
}

/** Answers a request under TEMPLATE_FRAME_PREFIX. */
export function serveTemplateFrame(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? "/", "http://frame");
  const name = url.pathname.slice(TEMPLATE_FRAME_PREFIX.length);
  res.setHeader("X-Content-Type-Options", "nosniff");
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { Allow: "GET, HEAD", "Content-Type": "application/json" });
    res.end(JSON.stringify({ error: { code: "METHOD_NOT_ALLOWED", message: "method not allowed" } }));
    return;
  }
  const file = assetOf(name);
  if (!file) {
    res.writeHead(404, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ error: { code: "NOT_FOUND", message: "not found" } }));
    return;
  }
  const isDocument = name === DOCUMENT;
  res.setHeader("Content-Type", file.type);
  res.setHeader("ETag", file.etag);
  res.setHeader("Vary", "Accept-Encoding");
  if (isDocument) {
    res.setHeader("Content-Security-Policy", TEMPLATE_FRAME_POLICY);
    res.setHeader("Referrer-Policy", "no-referrer");
    res.setHeader("Cache-Control", "no-cache");
  } else {
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.setHeader("Cross-Origin-Resource-Policy", "cross-origin");
    // Named by their content's version (?v=…) in the document: never change under one URL.
    res.setHeader("Cache-Control", url.searchParams.has("v") ? "public, max-age=31536000, immutable" : "public, max-age=300");
  }
  if (req.headers["if-none-match"] === file.etag) {
    res.writeHead(304);
    res.end();
    return;
  }
  // Kept compressed only: a client that does not take gzip (rare: every browser does) gets it inflated.
  const gzip = file.compressed && /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
  const body = file.compressed && !gzip ? gunzipSync(file.body) : file.body;
  if (gzip) res.setHeader("Content-Encoding", "gzip");
  res.setHeader("Content-Length", body.length);
  res.writeHead(200);
  res.end(req.method === "HEAD" ? undefined : body);
}
