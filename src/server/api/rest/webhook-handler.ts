import type { AppServices } from "../../app";
import { AppError, errorBody } from "../../errors";
import { bodyLimits } from "../../../shared/policy";

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", "x-content-type-options": "nosniff", "cache-control": "no-store" } });

/**
 * The webhook mount without Next's router: /hooks/{org_slug}/{path…} parsed from the URL, its
 * segments decoded as Next decodes a catch-all's params.
 */
export async function handleWebhookUrl(app: AppServices, req: Request): Promise<Response> {
  const pathname = new URL(req.url).pathname;
  let parts: string[];
  try {
    parts = pathname.slice("/hooks/".length).split("/").map(decodeURIComponent);
  } catch {
    return json(400, errorBody(new AppError("VALIDATION_FAILED", "the webhook path is not valid percent-encoding")));
  }
  const [slug, ...segments] = parts;
  return handleWebhook(app, req, slug!, segments);
}

/**
 * /hooks/{org_slug}/{path}: a request for an http-in node of a running flow of that organization.
 * The flow answers through its http-response node; no running listener → JSON 404.
 */
export async function handleWebhook(app: AppServices, req: Request, slug: string, segments: string[]): Promise<Response> {
  const url = new URL(req.url);
  const path = `/${segments.map(encodeURIComponent).join("/")}`;
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > bodyLimits.defaultBytes) return json(413, errorBody(new AppError("PAYLOAD_TOO_LARGE", `request body exceeds ${bodyLimits.defaultBytes} bytes`)));
  let body: unknown = undefined;
  if (req.method !== "GET" && req.method !== "HEAD") {
    const text = await req.text();
    if (text.length > bodyLimits.defaultBytes) return json(413, errorBody(new AppError("PAYLOAD_TOO_LARGE", `request body exceeds ${bodyLimits.defaultBytes} bytes`)));
    const type = req.headers.get("content-type") ?? "";
    if (/json/.test(type) && text) {
      try {
        body = JSON.parse(text);
      } catch {
        return json(400, errorBody(new AppError("INVALID_JSON", "request body is not valid JSON")));
      }
    } else if (/x-www-form-urlencoded/.test(type)) body = Object.fromEntries(new URLSearchParams(text));
    else body = text;
  }
  const headers: Record<string, string> = {};
  req.headers.forEach((v, k) => {
    if (k !== "cookie" && k !== "authorization") headers[k] = v;
  });
  // Served by the flow wherever it runs (another instance, in a cluster).
  const res = await app.flowRuntime.handleWebhook(slug, { method: req.method, path, query: Object.fromEntries(url.searchParams), headers, body });
  if (!res) return json(404, errorBody(new AppError("NOT_FOUND", `no running flow serves ${req.method} /hooks/${slug}${path}`)));
  const outHeaders = new Headers(res.headers);
  let payload: BodyInit | null;
  if (res.body === undefined || res.body === null) payload = null;
  else if (typeof res.body === "string") payload = res.body;
  else {
    payload = JSON.stringify(res.body);
    if (!outHeaders.has("content-type")) outHeaders.set("content-type", "application/json; charset=utf-8");
  }
  outHeaders.set("x-content-type-options", "nosniff");
  return new Response(payload, { status: res.status, headers: outHeaders });
}
