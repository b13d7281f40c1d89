import { z } from "zod";
import { defineNode } from "../types";
import { propertyPath } from "../property-path";

export const templateConfig = z.object({
  template: z.string().max(100_000).default("This is the payload: {{payload}}"),
  syntax: z.enum(["mustache", "plain"]).default("mustache"),
  /** The message property the result is written to. */
  field: propertyPath.default("payload"),
  output: z.enum(["str", "json"]).default("str"),
});

export const templateNode = defineNode({
  type: "template",
  version: 1,
  category: "function",
  name: "Template",
  description: "Writes text from a mustache template filled with the message's properties.",
  inputs: 1,
  outputs: 1,
  configSchema: templateConfig,
  nodeRed: {
    type: "template",
    toNodeRed: (c) => ({ field: c.field, fieldType: "msg", format: "handlebars", syntax: c.syntax, template: c.template, output: c.output }),
    fromNodeRed: (p) => ({
      template: String(p.template ?? ""),
      syntax: p.syntax === "plain" ? "plain" : "mustache",
      field: String(p.field ?? "payload"),
      output: p.output === "json" ? "json" : "str",
    }),
  },
});
