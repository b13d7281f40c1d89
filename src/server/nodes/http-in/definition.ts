import { z } from "zod";
import { defineNode } from "../types";
import { isRoutePath } from "../../runtime/webhooks";

export const httpInConfig = z.object({
  method: z.enum(["get", "post", "put", "patch", "delete"]).default("get").meta({ title: "Method", description: "The HTTP method this endpoint answers" }),
  /** Served at /hooks/{org_slug}{path}. */
  path: z
    .string()
    .refine(isRoutePath, "must start with / and use URL-safe characters; parameters as Express writes them (/users/:id, /files/*)")
    .default("/hook")
    .meta({ title: "URL path", description: "Served at /hooks/{your organization}{path}; /users/:id gives msg.req.params.id" }),
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
- \`req\` (object): \`method\`, \`path\`, \`params\` (the route parameters), \`query\`, \`headers\` and \`body\` of the request.
- \`res\` (object): the handle the HTTP response node answers through. Keep it on the message.

### Details

The endpoint is \`/hooks/{your organization's slug}{URL path}\`, for the chosen method. A request no HTTP response node answers in time gets a timeout error.

The path takes Express's route parameters, as Node-RED's: \`/hello/:name\` answers \`/hello/Nick\` with \`msg.req.params.name\` = \`"Nick"\`; \`/:name?\` makes a segment optional and \`*\` matches anything (\`msg.req.params[0]\`). When several endpoints match a request, the one that started first answers it (Express's order). Custom regular expressions in a parameter (\`/:id(\\d+)\`) are not offered.

While the flow is busy (too many messages waiting), requests are answered with 503 and a \`Retry-After\` header instead of being queued without bound.

### Differences from Node-RED

- Endpoints live under \`/hooks/{organization}\`, so tenants cannot take each other's paths; file uploads are not offered.
- Paths match case-sensitively (Express ignores case by default).
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
