import { z } from "zod";
import { defineNode } from "../types";
import { isAllowedResponseHeader, isHeaderValue } from "../../runtime/webhooks";

export const httpResponseConfig = z.object({
  /** null: msg.statusCode, else 200. */
  status_code: z.number().int().min(100).max(599).nullable().default(null).meta({ title: "Status code", description: "Empty: msg.statusCode, else 200" }),
  /** Only headers a webhook may send (see src/server/runtime/README.md, "Webhooks: what a flow may and may not send"). */
  headers: z
    .record(
      z.string().regex(/^[A-Za-z0-9-]{1,100}$/, "must be a header name").refine(isAllowedResponseHeader, "is not a header a webhook response may set"),
      z.string().max(4096).refine(isHeaderValue, "must be one line of Latin-1 characters (U+0000–U+00FF) without control characters other than tab"),
    )
    .default({})
    .meta({ title: "Headers", description: "Response headers; they win over msg.headers" }),
});

export const httpResponseNode = defineNode({
  type: "http-response",
  version: 1,
  category: "output",
  name: "HTTP response",
  description: "Answers the webhook request that started the message (msg.payload as the body).",
  help: `Answers the HTTP request that started the message at an **HTTP in** node.

### Inputs

- \`payload\` (string, object, number or Buffer): the response body. An object is sent as JSON (\`application/json\`); text and a number as \`text/html; charset=utf-8\` and a Buffer as \`application/octet-stream\` unless \`headers\` set a \`Content-Type\` (Express's \`res.send\`, as in Node-RED).
- \`statusCode\` (number): the status, unless the node sets one (default 200).
- \`headers\` (object): response headers; the node's own headers win.

### Outputs

None: the node ends a flow.

### Details

The message must still carry the \`res\` its HTTP in node set, and reach this node within the request's timeout; otherwise the node reports an error (catchable) and the caller gets a timeout.

### Differences from Node-RED

- Only headers a webhook may send are passed on (no \`Set-Cookie\`, no hop-by-hop headers); others are dropped with a warning. Cookies (\`msg.cookies\`) are not offered.
- Every answer carries the webhooks' security headers (a sandboxing \`Content-Security-Policy\`, \`X-Content-Type-Options: nosniff\`, \`Cache-Control: no-store\` unless set), and none of Express's own (\`ETag\`, \`X-Powered-By\`).`,
  inputs: 1,
  outputs: 0,
  configSchema: httpResponseConfig,
  nodeRed: {
    type: "http response",
    toNodeRed: (c) => ({ statusCode: c.status_code === null ? "" : String(c.status_code), headers: c.headers }),
    fromNodeRed: (p) => ({ status_code: p.statusCode ? Number(p.statusCode) : null, headers: (p.headers as Record<string, string>) ?? {} }),
  },
});
