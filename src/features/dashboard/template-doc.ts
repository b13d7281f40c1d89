/**
 * The document of a ui-template frame (SPEC §21): rendered as `srcdoc` in an
 * `<iframe sandbox="allow-scripts">` (never allow-same-origin), so it runs in an opaque origin:
 * the app's cookies, storage and DOM are out of reach, and a request to the app carries no
 * session (cross-site, so no SameSite cookie) and gets an opaque answer.
 *
 * A srcdoc document inherits the page's Content-Security-Policy, whose scripts need the page's
 * nonce: the bridge and the template's own `<script>` tags get it, and the frame adds a stricter
 * policy of its own (both apply): no network at all (`connect-src 'none'`, no forms), images,
 * fonts and media only inline (data:). Inline event attributes (`onclick="…"`) stay blocked:
 * templates use addEventListener.
 *
 * The bridge gives the template `send(msg)`, `onMessage(fn)` (also `window.addEventListener
 * ("dashboard-msg", e => e.detail)`), the last message as `msg`, and Dashboard 1's
 * `scope.send` / `scope.$watch("msg", fn)`.
 */

export const TEMPLATE_FRAME_POLICY = (nonce: string) =>
  [
    "default-src 'none'",
    `script-src 'nonce-${nonce}' 'strict-dynamic'`,
    "style-src 'unsafe-inline'",
    "img-src data:",
    "font-src data:",
    "media-src data:",
    "connect-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join("; ");

/** The messages between the page and a frame: a tag no other window's message carries. */
export const FRAME_TAG = "flowplane-template";

function bridge(): string {
  // Runs in the frame. Plain ES5 so any template's surroundings accept it.
  return `(function () {
  var TAG = ${JSON.stringify(FRAME_TAG)};
  var parentWindow = window.parent;
  var listeners = [];
  var last = null;
  function send(msg) {
    if (msg === null || typeof msg !== "object" || Array.isArray(msg)) msg = { payload: msg };
    parentWindow.postMessage({ tag: TAG, kind: "send", msg: JSON.parse(JSON.stringify(msg)) }, "*");
  }
  function onMessage(fn) { if (typeof fn === "function") { listeners.push(fn); if (last) fn(last); } }
  window.send = send;
  window.onMessage = onMessage;
  window.msg = null;
  window.scope = { send: send, msg: null, $watch: function (name, fn) { if (name === "msg") onMessage(function (m) { fn(m); }); } };
  window.addEventListener("message", function (e) {
    if (e.source !== parentWindow) return;
    var d = e.data;
    if (!d || d.tag !== TAG || d.kind !== "msg") return;
    last = d.msg; window.msg = d.msg; window.scope.msg = d.msg;
    for (var i = 0; i < listeners.length; i++) { try { listeners[i](d.msg); } catch (err) { console.error(err); } }
    window.dispatchEvent(new CustomEvent("dashboard-msg", { detail: d.msg }));
  });
  function height() { parentWindow.postMessage({ tag: TAG, kind: "height", height: document.documentElement.scrollHeight }, "*"); }
  if (typeof ResizeObserver === "function") new ResizeObserver(height).observe(document.documentElement);
  window.addEventListener("load", height);
  parentWindow.postMessage({ tag: TAG, kind: "ready" }, "*");
})();`;
}

/** Adds the nonce to every `<script>` tag of the template (and drops any nonce it brought). */
export function withNonce(html: string, nonce: string): string {
  return html.replace(/<script\b([^>]*)>/gi, (_, attrs: string) => `<script nonce="${nonce}"${attrs.replace(/\snonce\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/gi, "")}>`);
}

export function templateDocument(html: string, nonce: string, css: string): string {
  const safeNonce = nonce.replace(/[^A-Za-z0-9+/=_-]/g, "");
  return `<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${TEMPLATE_FRAME_POLICY(safeNonce)}">
<meta name="referrer" content="no-referrer">
<style>html,body{margin:0;padding:0;background:transparent;color:${css};font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",sans-serif;font-size:14px}</style>
<script nonce="${safeNonce}">${bridge()}</script>
</head><body>${withNonce(html, safeNonce)}</body></html>`;
}

/**
 * The page's script nonce (Next puts it on its own scripts). A page without one has no policy for
 * the frame to inherit: any fixed word then serves the frame's own policy, whose scripts are ours.
 */
export function pageNonce(doc: Document): string {
  const el = doc.querySelector<HTMLScriptElement>("script[nonce]");
  return el?.nonce || el?.getAttribute("nonce") || "dashboard-template";
}
