import type { Message, NodeFactory } from "../../runtime/types";
import { getProperty, typedValue } from "../../runtime/properties";
import { compileSafeRegex, safeTest, type SafeRegex } from "../../runtime/regex";
import type { z } from "zod";
import type { switchConfig } from "./definition";

type Rule = Record<string, unknown> & { t: string };

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function isEmpty(value: unknown): boolean {
  if (typeof value === "string" || Array.isArray(value)) return value.length === 0;
  if (value !== null && typeof value === "object") return Object.keys(value).length === 0;
  return false;
}

function matches(rule: Rule, value: unknown, msg: Message, regexes: Map<Rule, SafeRegex>): boolean {
  const operand = (key: "v" | "v2") => typedValue(String(rule[key] ?? ""), String(rule[`${key}_type`] ?? "str"), msg);
  switch (rule.t) {
    case "eq":
      // Loose like Node-RED: "5" equals 5.
      return value == operand("v");
    case "neq":
      return value != operand("v");
    case "lt":
      return Number(value) < Number(operand("v"));
    case "lte":
      return Number(value) <= Number(operand("v"));
    case "gt":
      return Number(value) > Number(operand("v"));
    case "gte":
      return Number(value) >= Number(operand("v"));
    case "btwn": {
      const [a, b] = [Number(operand("v")), Number(operand("v2"))];
      const n = Number(value);
      return n >= Math.min(a, b) && n <= Math.max(a, b);
    }
    case "cont":
      return String(value ?? "").includes(String(operand("v")));
    case "regex":
      return safeTest(regexes.get(rule)!, String(value ?? ""));
    case "true":
      return value === true;
    case "false":
      return value === false;
    case "null":
      return value === null || value === undefined;
    case "nnull":
      return value !== null && value !== undefined;
    case "empty":
      return isEmpty(value);
    case "nempty":
      return !isEmpty(value) && value !== null && value !== undefined;
    case "istype":
      return typeOf(value) === rule.v;
    default:
      return false;
  }
}

/** One output per rule; "else" matches when no earlier rule did. check_all false: first match only. */
export const switchBehaviour: NodeFactory = (ctx) => {
  const c = ctx.node.config as z.infer<typeof switchConfig>;
  const rules = c.rules as Rule[];
  const regexes = new Map<Rule, SafeRegex>();
  for (const r of rules) if (r.t === "regex") regexes.set(r, compileSafeRegex(String(r.v), { caseInsensitive: r.case_insensitive === true }));
  return {
    input(msg, send, done) {
      const value = getProperty(msg, c.property);
      const out: Array<Message | null> = rules.map(() => null);
      let matched = false;
      for (let i = 0; i < rules.length; i++) {
        const rule = rules[i]!;
        const hit = rule.t === "else" ? !matched : matches(rule, value, msg, regexes);
        if (hit) {
          out[i] = msg;
          matched = true;
          if (!c.check_all) break;
        }
      }
      if (matched) send(out);
      done();
    },
  };
};
