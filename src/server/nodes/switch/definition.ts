import { z } from "zod";
import { defineNode } from "../types";
import { isPropertyPath } from "../../runtime/properties";
import { safeRegexProblem } from "../../runtime/regex";
import { propertyPath } from "../property-path";

const operand = z.string().max(65536).default("");
const operandType = z.enum(["str", "num", "bool", "json", "msg"]).default("str");

export const switchRule = z.discriminatedUnion("t", [
  ...(["eq", "neq", "lt", "lte", "gt", "gte", "cont"] as const).map((t) => z.object({ t: z.literal(t), v: operand, v_type: operandType })),
  z.object({ t: z.literal("btwn"), v: operand, v_type: operandType, v2: operand, v2_type: operandType }),
  z.object({ t: z.literal("regex"), v: z.string().max(1024), case_insensitive: z.boolean().default(false) }),
  ...(["true", "false", "null", "nnull", "empty", "nempty", "else"] as const).map((t) => z.object({ t: z.literal(t) })),
  z.object({ t: z.literal("istype"), v: z.enum(["string", "number", "boolean", "array", "object", "null", "undefined"]) }),
] as unknown as [z.ZodObject, z.ZodObject, ...z.ZodObject[]]);

export const switchConfig = z
  .object({
    property: propertyPath.default("payload"),
    rules: z.array(switchRule).min(1, "needs at least one rule").max(32).default([{ t: "eq", v: "", v_type: "str" }]),
    /** true: every matching rule's output gets the message; false: stop at the first match. */
    check_all: z.boolean().default(true),
  })
  .superRefine((c, ctx) => {
    c.rules.forEach((r, i) => {
      const rule = r as { t: string; v?: string; v_type?: string; v2?: string; v2_type?: string };
      for (const key of ["v", "v2"] as const) {
        if (rule[`${key}_type`] === "msg" && !isPropertyPath(rule[key] ?? "")) {
          ctx.addIssue({ code: "custom", path: ["rules", i, key], message: "must be a property path such as payload.value (no __proto__, constructor or prototype)" });
        }
      }
      if (rule.t === "regex") {
        const problem = safeRegexProblem(rule.v ?? "");
        if (problem) ctx.addIssue({ code: "custom", path: ["rules", i, "v"], message: problem });
      }
    });
  });

export const switchNode = defineNode({
  type: "switch",
  version: 1,
  category: "function",
  name: "Switch",
  description: "Routes each message to the outputs whose rule matches a property (one output per rule).",
  inputs: 1,
  outputs: { count_of: "rules" },
  configSchema: switchConfig,
  nodeRed: {
    type: "switch",
    toNodeRed: (c) => ({
      property: c.property,
      propertyType: "msg",
      rules: c.rules.map((r) => {
        const rule = r as Record<string, unknown>;
        const out: Record<string, unknown> = { t: rule.t };
        if ("v" in rule) out.v = rule.v;
        if ("v_type" in rule) out.vt = rule.v_type;
        if (rule.t === "istype") out.vt = rule.v;
        if ("v2" in rule) {
          out.v2 = rule.v2;
          out.v2t = rule.v2_type;
        }
        if (rule.t === "regex") out.case = rule.case_insensitive;
        return out;
      }),
      checkall: String(c.check_all),
      repair: false,
      outputs: c.rules.length,
    }),
    fromNodeRed: (p) => ({
      property: String(p.property ?? "payload"),
      check_all: String(p.checkall ?? "true") === "true",
      rules: (Array.isArray(p.rules) ? p.rules : []).map((r: Record<string, unknown>) => {
        const t = String(r.t);
        if (t === "regex") return { t, v: String(r.v ?? ""), case_insensitive: Boolean(r.case) };
        if (t === "istype") return { t, v: String(r.v ?? r.vt ?? "string") };
        if (t === "btwn") return { t, v: String(r.v ?? ""), v_type: r.vt ?? "str", v2: String(r.v2 ?? ""), v2_type: r.v2t ?? "str" };
        if (["true", "false", "null", "nnull", "empty", "nempty", "else"].includes(t)) return { t };
        return { t, v: String(r.v ?? ""), v_type: r.vt ?? "str" };
      }),
    }),
  },
});
