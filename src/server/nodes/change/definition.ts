import { z } from "zod";
import { defineNode } from "../types";
import { isPropertyPath } from "../../runtime/properties";
import { safeRegexProblem } from "../../runtime/regex";
import { propertyPath as path } from "../property-path";
export const valueType = z.enum(["str", "num", "bool", "json", "msg", "date"]);

export const changeRule = z.discriminatedUnion("t", [
  z.object({ t: z.literal("set"), p: path, to: z.string().max(65536).default(""), to_type: valueType.default("str") }),
  z.object({
    t: z.literal("change"),
    p: path,
    from: z.string().max(65536),
    from_type: z.enum(["str", "num", "bool", "re"]).default("str"),
    to: z.string().max(65536).default(""),
    to_type: valueType.default("str"),
  }),
  z.object({ t: z.literal("delete"), p: path }),
  z.object({ t: z.literal("move"), p: path, to: path }),
]);

export const changeConfig = z
  .object({ rules: z.array(changeRule).min(1, "needs at least one rule").max(100).default([{ t: "set", p: "payload", to: "", to_type: "str" }]) })
  .superRefine((c, ctx) => {
    // A "msg" typed value names another property: the same grammar applies.
    c.rules.forEach((r, i) => {
      if (r.t === "change" && r.from_type === "re") {
        const problem = safeRegexProblem(r.from);
        if (problem) ctx.addIssue({ code: "custom", path: ["rules", i, "from"], message: problem });
      }
      if ((r.t === "set" || r.t === "change") && r.to_type === "msg" && !isPropertyPath(r.to)) {
        ctx.addIssue({ code: "custom", path: ["rules", i, "to"], message: "must be a property path such as payload.value (no __proto__, constructor or prototype)" });
      }
    });
  });

type Rule = z.infer<typeof changeRule>;

export const changeNode = defineNode({
  type: "change",
  version: 1,
  category: "function",
  name: "Change",
  description: "Sets, changes (search and replace), deletes or moves message properties.",
  inputs: 1,
  outputs: 1,
  configSchema: changeConfig,
  nodeRed: {
    type: "change",
    toNodeRed: (c) => ({
      rules: c.rules.map((r: Rule) => {
        switch (r.t) {
          case "set":
            return { t: "set", p: r.p, pt: "msg", to: r.to, tot: r.to_type };
          case "change":
            return { t: "change", p: r.p, pt: "msg", from: r.from, fromt: r.from_type, to: r.to, tot: r.to_type };
          case "delete":
            return { t: "delete", p: r.p, pt: "msg" };
          case "move":
            return { t: "move", p: r.p, pt: "msg", to: r.to, tot: "msg" };
        }
      }),
    }),
    fromNodeRed: (p) => ({
      rules: (Array.isArray(p.rules) ? p.rules : []).map((r: Record<string, unknown>) => {
        if (r.t === "change") return { t: "change", p: r.p, from: String(r.from ?? ""), from_type: r.fromt ?? "str", to: String(r.to ?? ""), to_type: r.tot ?? "str" };
        if (r.t === "delete") return { t: "delete", p: r.p };
        if (r.t === "move") return { t: "move", p: r.p, to: r.to };
        return { t: "set", p: r.p, to: typeof r.to === "string" ? r.to : JSON.stringify(r.to ?? ""), to_type: r.tot ?? "str" };
      }),
    }),
  },
});
