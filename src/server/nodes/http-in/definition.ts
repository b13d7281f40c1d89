import { z } from "zod";
import { defineNode } from "../types";

export const httpInConfig = z.object({
  method: z.enum(["get", "post", "put", "patch", "delete"]).default("get").meta({ title: "Method", description: "The HTTP method this endpoint answers" }),
  /** Served at /hooks/{org_slug}{path}. */
  path: z.string().regex(/^\/[A-Za-z0-9._~\-/]{0,200}$/, "must start with / and use URL-safe characters").default("/hook").meta({ title: "URL path", description: "Served at /hooks/{your organization}{path}" }),
});

export const httpInNode = defineNode({
  type: "http-in",
  version: 1,
  category: "input",
  name: "HTTP in",
  description: "A webhook: requests to /hooks/{org_slug}{path} start a message (answer with an http-response node).",
  help: `Creates an HTTP endpoint (a webhook): each request to it starts a message. Answer it with an **HTTP response** node.

### Inputs

None: requests start the messages.

### Outputs

- \`payload\`: for a GET, the query parameters; otherwise the request body (parsed JSON, or text).
- \`req\` (object): \`method\`, \`path\`, \`query\`, \`headers\` and \`body\` of the request.
- \`res\` (object): the handle the HTTP response node answers through. Keep it on the message.

### Details

The endpoint is \`/hooks/{your organization's slug}{URL path}\`, for the chosen method. A request no HTTP response node answers in time gets a timeout error.

While the flow is busy (too many messages waiting), requests are answered with 503 and a \`Retry-After\` header instead of being queued without bound.

### Differences from Node-RED

- Endpoints live under \`/hooks/{organization}\`, so tenants cannot take each other's paths; path parameters (\`/users/:id\`) and file uploads are not offered.
- \`req\` and \`res\` are plain data, not Express objects.`,
  inputs: 0,
  outputs: 1,
  configSchema: httpInConfig,
  nodeRed: {
    type: "http in",
    toNodeRed: (c) => ({ url: c.path, method: c.method, upload: false, swaggerDoc: "" }),
    fromNodeRed: (p) => ({ method: String(p.method ?? "get").toLowerCase(), path: String(p.url ?? "/hook").startsWith("/") ? String(p.url ?? "/hook") : `/${String(p.url)}` }),
  },
});
