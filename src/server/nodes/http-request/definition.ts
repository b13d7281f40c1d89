import { z } from "zod";
import { defineNode } from "../types";

export const httpRequestConfig = z.object({
  /** "use": take msg.method. */
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "use"]).default("GET"),
  /** Empty: take msg.url. Mustache placeholders are filled from the message. */
  url: z.string().max(4096).default(""),
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]{1,100}$/, "must be a header name"), z.string().max(4096)).default({}),
  return: z.enum(["txt", "obj", "bin"]).default("txt"),
  timeout_ms: z.number().int().min(1).max(120_000).default(30_000),
});

export const httpRequestNode = defineNode({
  type: "http-request",
  version: 1,
  category: "network",
  name: "HTTP request",
  description: "Calls a URL and puts the response in msg.payload (private, loopback and link-local addresses are refused unless allowed by the operator).",
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
