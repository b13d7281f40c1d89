import { z } from "zod";
import { defineNode } from "../types";

export const httpRequestConfig = z.object({
  /** "use": take msg.method. */
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "use"]).default("GET").meta({ title: "Method", description: "use: msg.method" }),
  /** Empty: take msg.url. Mustache placeholders are filled from the message. */
  url: z.string().max(4096).default("").meta({ title: "URL", description: "Empty: msg.url. {{property}} placeholders are filled from the message" }),
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]{1,100}$/, "must be a header name"), z.string().max(4096)).default({}).meta({ title: "Headers", description: "Request headers; they win over msg.headers" }),
  return: z.enum(["txt", "obj", "bin"]).default("txt").meta({ title: "Return", description: "txt: a UTF-8 string; obj: parsed JSON (text if it is not JSON); bin: the bytes" }),
  timeout_ms: z.number().int().min(1).max(120_000).default(30_000).meta({ title: "Timeout (ms)", description: "Longest wait for the response" }),
});

export const httpRequestNode = defineNode({
  type: "http-request",
  version: 1,
  category: "network",
  name: "HTTP request",
  description: "Calls a URL and puts the response in msg.payload (private, loopback and link-local addresses are refused unless allowed by the operator).",
  help: `Sends an HTTP request and returns the response.

### Inputs

- \`url\` (string): the URL, when the node sets none.
- \`method\` (string): the method, when the node's method is *use*.
- \`headers\` (object): request headers.
- \`payload\`: the body of a POST, PUT, PATCH or DELETE (an object is sent as JSON).

### Outputs

- \`payload\` (string, object or byte array): the response body, as *Return* says.
- \`statusCode\` (number): the response status.
- \`headers\` (object): the response headers.
- \`responseUrl\` (string): the URL that answered, after redirects.

### Details

\`{{property}}\` in the URL is replaced by that message property, URL-encoded (\`https://api.example.com/items/{{payload.id}}\`). The status shows *requesting* while it waits; a failure (refused address, timeout, network error) is a node error a catch node can handle.

### Differences from Node-RED

- Private, loopback and link-local addresses are refused (unless the operator allows them), so a flow cannot reach the servers around the platform.
- Proxies, TLS configuration nodes and \`msg.cookies\` are not offered.`,
  inputs: 1,
  outputs: 1,
  configSchema: httpRequestConfig,
  nodeRed: {
    type: "http request",
    toNodeRed: (c) => ({
      method: c.method,
      ret: c.return,
      paytoqs: "ignore",
      url: c.url,
      persist: false,
      senderr: false,
      headers: Object.entries(c.headers).map(([k, v]) => ({ keyType: "other", keyValue: k, valueType: "other", valueValue: v })),
    }),
    fromNodeRed: (p) => ({
      method: String(p.method ?? "GET").toUpperCase() === "USE" ? "use" : String(p.method ?? "GET").toUpperCase(),
      url: String(p.url ?? ""),
      return: ["txt", "obj", "bin"].includes(String(p.ret)) ? p.ret : "txt",
      headers: Object.fromEntries(
        (Array.isArray(p.headers) ? p.headers : [])
          .filter((h: Record<string, unknown>) => typeof h.keyValue === "string")
          .map((h: Record<string, unknown>) => [String(h.keyValue), String(h.valueValue ?? "")]),
      ),
    }),
  },
});
