import { z } from "zod";
import { defineNode } from "../types";
import { routePathProblem } from "../../runtime/webhooks";

export const httpInConfig = z.object({
  method: z.enum(["get", "post", "put", "patch", "delete"]).default("get").meta({ title: "Method", description: "The HTTP method this endpoint answers" }),
  /** Served at /hooks/{org_slug}{path}. */
  path: z
    .string()
    .superRefine((path, ctx) => {
      const problem = routePathProblem(path);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .default("/hook")
    .meta({ title: "URL path", description: "Served at /hooks/{your organization}{path}; /users/:id gives msg.req.params.id (/users/:id(\\d+): digits only)" }),
  upload: z.boolean().default(false).meta({ title: "Accept file uploads", description: "POST only: a multipart/form-data body gives its files in msg.req.files and its text fields in msg.payload (at most 1 MiB in all)" }),
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

- \`payload\`: for a GET, the query parameters (as Node-RED's Express parses them: a repeated name gives an array and \`a[b]=1\` nests); otherwise the request body, as Node-RED gives it: JSON (\`application/json\`: an object or an array, as Node-RED's strict parser takes; anything else is a 400) and form (\`application/x-www-form-urlencoded\`) bodies parsed into an object (in a form a repeated name gives an array and \`a[b]=1\` nests, as Node-RED's extended parser does; at most 1,000 parameters, nested at most 32 deep); a body whose type is neither text nor XML and is not \`application/…\` (\`multipart/form-data\`, \`image/png\`, \`audio/…\`), or is \`application/octet-stream\`, \`application/cbor\` or \`application/x-protobuf\`, a Buffer of its bytes; any other body (or none) text. With file uploads, the form's text fields.
- \`req\` (object): \`method\`, \`path\`, \`params\` (the route parameters), \`query\`, \`headers\` (lower-case names, in the order the request sent them; credentials left out, see below), \`cookies\` (always empty, see below) and \`body\` of the request; with file uploads, \`files\` too.
- \`res\` (object): the handle the HTTP response node answers through. Keep it on the message.

### Details

The endpoint is \`/hooks/{your organization's slug}{URL path}\`, for the chosen method. A request no HTTP response node answers in time gets a timeout error.

The path takes Express 4's route parameters, as Node-RED's: \`/hello/:name\` answers \`/hello/Nick\` with \`msg.req.params.name\` = \`"Nick"\`; \`/:name?\` makes a segment optional, \`/flights/:from-:to\` splits a segment, \`*\` matches anything (\`msg.req.params[0]\`) and \`/user/:id(\\d+)\` takes only what its regular expression matches (RE2 syntax: no lookaround or backreferences). Paths match whatever the case (\`/Hello\` answers \`/hello\`), with or without a trailing slash. When several endpoints match a request, the one that started first answers it (Express's order).

**Accept file uploads** (POST only, as in Node-RED): a \`multipart/form-data\` request (an HTML form with \`enctype="multipart/form-data"\`) gives \`msg.req.files\`, an array with one object per file sent: \`fieldname\` (the form field), \`originalname\` (the file's name), \`encoding\`, \`mimetype\`, \`buffer\` (its bytes) and \`size\`; a file field left empty gives none. The text fields are an object in \`msg.payload\` and \`msg.req.body\` (a name sent twice gives an array). The whole request, files included, is at most 1 MiB (1,048,576 bytes, the webhook body limit): a larger one is answered 413 \`PAYLOAD_TOO_LARGE\` before it reaches the flow, and a body that is not valid multipart/form-data 400 \`VALIDATION_FAILED\`. Without the option, such a request's body is a Buffer of its bytes, as in Node-RED.

While the flow is busy (too many messages waiting), requests are answered with 503 and a \`Retry-After\` header instead of being queued without bound.

### Differences from Node-RED

- Endpoints live under \`/hooks/{organization}\`, so tenants cannot take each other's paths.
- File uploads are bounded: 1 MiB per request in all (Node-RED's multer takes any size). A body its parser refuses (malformed multipart, JSON that is not an object or an array, a form with too many parameters) gets a 4xx in the error envelope; Node-RED logs a warning and answers 500. Field names with brackets (\`a[b]\`) stay as written (multer nests them into objects).
- \`req\` and \`res\` are plain data, not Express objects.
- \`req.cookies\` is always empty, and \`req.headers\` has no \`Cookie\`, \`Authorization\`, \`Proxy-Authorization\` or \`X-API-Key\`: what a caller's browser sends with them is the app's session, never a flow's to read.`,
  inputs: 0,
  outputs: 1,
  configSchema: httpInConfig,
  nodeRed: {
    type: "http in",
    toNodeRed: (c) => ({ url: c.path, method: c.method, upload: c.upload, swaggerDoc: "" }),
    fromNodeRed: (p) => ({ method: String(p.method ?? "get").toLowerCase(), path: String(p.url ?? "/hook").startsWith("/") ? String(p.url ?? "/hook") : `/${String(p.url)}`, upload: p.upload === true }),
    // Node-RED's editor writes skipBodyParsing: false on every http in (its default: bodies parsed, as here); only true is lost.
    absorbed: ["skipBodyParsing"],
    partlyDropped: (p) => (p.skipBodyParsing === true || p.skipBodyParsing === "true" ? ["skipBodyParsing"] : []),
  },
});
