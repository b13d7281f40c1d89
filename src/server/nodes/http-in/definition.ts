import { z } from "zod";
import { defineNode } from "../types";

export const httpInConfig = z.object({
  method: z.enum(["get", "post", "put", "patch", "delete"]).default("get"),
  /** Served at /hooks/{org_slug}{path}. */
  path: z.string().regex(/^\/[A-Za-z0-9._~\-/]{0,200}$/, "must start with / and use URL-safe characters").default("/hook"),
});

export const httpInNode = defineNode({
  type: "http-in",
  version: 1,
  category: "input",
  name: "HTTP in",
  description: "A webhook: requests to /hooks/{org_slug}{path} start a message (answer with an http-response node).",
  inputs: 0,
  outputs: 1,
  configSchema: httpInConfig,
  nodeRed: {
    type: "http in",
    toNodeRed: (c) => ({ url: c.path, method: c.method, upload: false, swaggerDoc: "" }),
    fromNodeRed: (p) => ({ method: String(p.method ?? "get").toLowerCase(), path: String(p.url ?? "/hook").startsWith("/") ? String(p.url ?? "/hook") : `/${String(p.url)}` }),
  },
});
