import { z } from "zod";
import { defineNode } from "../types";
import { propertyPath } from "../property-path";

export const jsonConfig = z.object({
  action: z.enum(["auto", "str", "obj"]).default("auto"),
  property: propertyPath.default("payload"),
  pretty: z.boolean().default(false),
});

export const jsonNode = defineNode({
  type: "json",
  version: 1,
  category: "parser",
  name: "JSON",
  description: "Converts a property between a JSON string and an object.",
  inputs: 1,
  outputs: 1,
  configSchema: jsonConfig,
  nodeRed: {
    type: "json",
    toNodeRed: (c) => ({ property: c.property, action: c.action === "auto" ? "" : c.action, pretty: c.pretty }),
    fromNodeRed: (p) => ({ property: String(p.property ?? "payload"), action: p.action === "str" || p.action === "obj" ? p.action : "auto", pretty: Boolean(p.pretty) }),
  },
});
