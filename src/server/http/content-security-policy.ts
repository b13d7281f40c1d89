import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * The pages' Content-Security-Policy (docs/SECURITY.md): scripts only with this response's nonce
 * (Next puts it on its own scripts when the request carries the policy; 'strict-dynamic' lets those
 * load their chunks), everything else from our own origin, no plugins, no framing, no third party.
 * Styles allow inline attributes: React Flow, CodeMirror and Swagger UI position with style="…",
 * which nonces cannot cover. Development adds 'unsafe-eval' for React's refresh runtime.
 */
export function pagePolicy(nonce: string, development: boolean, options: { dashboard?: boolean } = {}): string {
  return [
    "default-src 'self'",
    // Dashboard pages play audio a flow names (ui-audio): from any https origin, or data/blob; and
    // frame another site's page (ui-iframe, which refuses this origin's own pages and sandboxes
    // the rest): http too, as a Grafana on the local network is (the browser still blocks an http
    // frame on an https page).
    ...(options.dashboard ? ["media-src 'self' https: data: blob:", "frame-src 'self' http: https:"] : []),
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Puts a fresh policy on the request (where Next reads the nonce) and on the response. */
export function applyPagePolicy(req: IncomingMessage, res: ServerResponse, development: boolean): void {
  const policy = pagePolicy(randomBytes(16).toString("base64"), development, { dashboard: (req.url ?? "").startsWith("/dashboard/") });
  req.headers["content-security-policy"] = policy;
  res.setHeader("Content-Security-Policy", policy);
}
