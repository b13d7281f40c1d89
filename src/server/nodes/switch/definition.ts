import { z } from "zod";
import { defineNode } from "../types";
import { MAX_OUTPUT_PORTS, MAX_VALUE_CHARS } from "../../../shared/flow-graph";
import { checkOperand, needsJsonataTurn, operandTypeSchema, OPERAND_TYPE_TITLES, type OperandType } from "../../runtime/operands";
import { regexTestProblem } from "../../runtime/regex";

/** Node-RED's switch value types; `prev` (the property's value for the previous message) is switch's own. */
const VALUE_TYPES = ["msg", "flow", "global", "str", "num", "bool", "json", "jsonata", "env", "prev"] as const;
const COUNT_TYPES = ["flow", "global", "num", "jsonata", "env"] as const;
const PROPERTY_TYPES = ["msg", "flow", "global", "jsonata", "env"] as const satisfies readonly OperandType[];
export const ISTYPE_VALUES = ["string", "number", "boolean", "array", "buffer", "object", "json", "null", "undefined"] as const;

const valueType = (types: readonly string[], fallback: string) =>
  z
    .enum(types as [string, ...string[]])
    .default(fallback)
    .meta({ title: "Value type", description: `How the value is read: ${types.map((t) => (t === "prev" ? "previous value" : OPERAND_TYPE_TITLES[t as OperandType])).join(", ")}` });
const value = (title = "Value") => z.string().max(MAX_VALUE_CHARS, "must be at most 1,000,000 characters").default("").meta({ title });
/** Node-RED's names of the rules, shown in the editor's rule selector. */
const RULE_TITLES: Record<string, string> = {
  eq: "==",
  neq: "!=",
  lt: "<",
  lte: "<=",
  gt: ">",
  gte: ">=",
  hask: "has key",
  btwn: "is between",
  cont: "contains",
  regex: "matches regex",
  true: "is true",
  false: "is false",
  null: "is null",
  nnull: "is not null",
  istype: "is of type",
  empty: "is empty",
  nempty: "is not empty",
  head: "head",
  index: "index between",
  tail: "tail",
  jsonata_exp: "JSONata expression",
  else: "otherwise",
};
const kind = (t: string) => z.literal(t).meta({ title: RULE_TITLES[t] ?? t });

const COMPARE = ["eq", "neq", "lt", "lte", "gt", "gte", "cont", "hask"] as const;
const NO_VALUE = ["true", "false", "null", "nnull", "empty", "nempty", "else"] as const;

export const switchRule = z.discriminatedUnion("t", [
  ...COMPARE.map((t) => z.object({ t: kind(t), v: value(), v_type: valueType(VALUE_TYPES, "str") })),
  z.object({ t: kind("btwn"), v: value("From"), v_type: valueType(VALUE_TYPES, "num"), v2: value("To"), v2_type: valueType(VALUE_TYPES, "num") }),
  z.object({
    t: kind("regex"),
    v: z.string().max(1024).meta({ title: "Regular expression" }),
    v_type: z.enum(["str"]).default("str").meta({ title: "Value type" }),
    case_insensitive: z.boolean().default(false).meta({ title: "Ignore case" }),
  }),
  z.object({ t: kind("istype"), v: z.enum(ISTYPE_VALUES).meta({ title: "Type" }) }),
  ...(["head", "tail"] as const).map((t) => z.object({ t: kind(t), v: value("Count"), v_type: valueType(COUNT_TYPES, "num") })),
  z.object({ t: kind("index"), v: value("From index"), v_type: valueType(COUNT_TYPES, "num"), v2: value("To index"), v2_type: valueType(COUNT_TYPES, "num") }),
  z.object({ t: kind("jsonata_exp"), v: z.string().max(65536).meta({ title: "JSONata expression" }), v_type: z.enum(["jsonata"]).default("jsonata").meta({ title: "Value type" }) }),
  ...NO_VALUE.map((t) => z.object({ t: kind(t) })),
] as unknown as [z.ZodObject, z.ZodObject, ...z.ZodObject[]]);

export type SwitchRule = { t: string; v?: string; v_type?: string; v2?: string; v2_type?: string; case_insensitive?: boolean };

export const switchConfig = z
  .object({
    property: z.string().min(1).max(65536).default("payload").meta({ title: "Property", description: "What the rules test: a message property, a context key, a variable or a JSONata expression" }),
    property_type: operandTypeSchema(PROPERTY_TYPES, "Property type").default("msg"),
    rules: z
      .array(switchRule)
      .max(MAX_OUTPUT_PORTS, `a switch has at most ${MAX_OUTPUT_PORTS} rules`)
      .default([{ t: "eq", v: "", v_type: "str" }])
      .meta({ title: "Rules", description: "One output per rule" }),
    /** true: every matching rule's output gets the message; false: stop at the first match. */
    check_all: z.boolean().default(true).meta({ title: "Check all rules", description: "Off: stop after the first matching rule" }),
    repair: z.boolean().default(false).meta({ title: "Recreate message sequences", description: "Send each output's messages of a sequence (msg.parts) as a new sequence" }),
  })
  .superRefine((c, ctx) => {
    checkOperand(ctx, ["property"], c.property, c.property_type);
    c.rules.forEach((r, i) => {
      const rule = r as SwitchRule;
      for (const key of ["v", "v2"] as const) {
        const type = rule[`${key}_type`];
        if (type === undefined || type === "prev" || rule.t === "regex" || rule.t === "istype") continue;
        checkOperand(ctx, ["rules", i, key], rule[key], type as OperandType);
      }
      if (rule.t === "regex") {
        const problem = regexTestProblem(rule.v ?? "");
        if (problem) ctx.addIssue({ code: "custom", path: ["rules", i, "v"], message: problem });
      }
    });
  });

const HELP = `Routes messages by the value of a property, or by their position in a sequence: one output per rule, and a message goes to the output of every rule that matches (or only the first, when *check all rules* is off).

### Inputs
- **msg** any message. The rules test its property, a flow or global context value, a variable, or the result of a JSONata expression against the message.

### Outputs
One per rule: the message, when the rule matches.

### Details
There are four kinds of rule:
- **Value rules** compare the property with a value: \`==\`, \`!=\`, \`<\`, \`<=\`, \`>\`, \`>=\`, *is between*, *contains*, *matches regex*, *is true/false*, *is null/not null*, *is of type*, *is empty/not empty*, *has key*. The value can be a string, number, message property, context value, variable, JSONata expression, or the previous message's value of the property.
- **Sequence rules** (*head*, *tail*, *index between*) use \`msg.parts\` of sequences, such as those the split node makes.
- **JSONata expression** rules match when the expression, evaluated against the message (with \`$I\` the index and \`$N\` the count of a sequence's message), returns true.
- **Otherwise** matches when no rule before it matched.

*is true/false* and *is null* compare strictly, without converting types. *is empty* and *is not empty* test the length of strings, arrays and buffers, or the number of an object's keys; neither passes for a boolean, null or undefined.

When a message matches several rules, each output gets its own copy of it, so a change on one branch is never seen on another.

**Recreate message sequences**: with it on, the node holds each whole sequence and sends, on each output, the matching messages as a new sequence (\`msg.parts\` with new \`id\`, \`index\` and \`count\`). *tail* also holds the sequence, to know its count.

### Differences from Node-RED
- Regular expressions use RE2 syntax (no backreferences or lookaround) so no pattern can stall the server; such patterns are refused when the flow is saved. Lookaheads right after a leading \`^\` work (\`^(?!.*get$|.*set$).*$\`, \`^(?=.*\\d).{8,}$\`): each is tested at the start of the value, as JavaScript does (with RE2's character classes: \`\\s\` and \`.\` differ from JavaScript's for a few Unicode spaces and line separators). In JSONata expressions, a lookbehind \`(?<=…)\` at the start of a regex and a lookahead \`(?=…)\` at its end work (they are rewritten for RE2); other lookarounds are refused.
- JSONata expressions run with the function node's time and memory limits (1 s, 32 MiB).
- \`$moment()\` is bound as in Node-RED, but JSONata 2.2 reads only an object's own properties, so its methods (\`$moment().format()\`) cannot be called; use \`$now()\` and \`$fromMillis()\`.
- A held sequence is bounded: at most 50,000 messages are held per node (as join, batch and sort); past that the node reports an error and drops them.`;

export const switchNode = defineNode({
  type: "switch",
  version: 1,
  category: "function",
  name: "Switch",
  description: "Routes each message to the outputs whose rule matches a property (one output per rule).",
  help: HELP,
  inputs: 1,
  outputs: { count_of: "rules" },
  // A JSONata operand with a context read: the rules are tested in the flow's turn (NodeRoles.jsonataTurn).
  roles: {
    jsonataTurn: (c) =>
      needsJsonataTurn([
        { value: c.property, type: c.property_type },
        ...(c.rules as SwitchRule[]).flatMap((r) => [
          { value: r.v, type: r.t === "jsonata_exp" ? "jsonata" : r.v_type },
          { value: r.v2, type: r.v2_type },
        ]),
      ]),
  },
  configSchema: switchConfig,
  nodeRed: {
    type: "switch",
    toNodeRed: (c) => ({
      property: c.property,
      propertyType: c.property_type,
      rules: c.rules.map((r) => {
        const rule = r as SwitchRule;
        const out: Record<string, unknown> = { t: rule.t };
        if (rule.t === "istype") return { t: "istype", v: rule.v, vt: rule.v };
        if (rule.v !== undefined) out.v = rule.v;
        if (rule.v_type !== undefined) out.vt = rule.v_type;
        if (rule.v2 !== undefined) {
          out.v2 = rule.v2;
          out.v2t = rule.v2_type;
        }
        if (rule.t === "regex") out.case = rule.case_insensitive;
        return out;
      }),
      checkall: String(c.check_all),
      repair: c.repair,
      outputs: c.rules.length,
    }),
    fromNodeRed: (p) => ({
      property: String(p.property ?? "payload"),
      property_type: String(p.propertyType ?? "msg"),
      check_all: String(p.checkall ?? "true") !== "false",
      repair: p.repair === true || p.repair === "true",
      // Node-RED reads missing rules as none; anything else that is not a list stays as it is, so the
      // schema refuses it (the node is kept as an unknown node) instead of reading it as no rules.
      rules: !Array.isArray(p.rules) ? (p.rules ?? []) : p.rules.map((raw: Record<string, unknown>) => {
        const t = String(raw.t);
        const text = (v: unknown) => (v === undefined || v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v));
        // Node-RED's own default for a rule without a type: num when the value is numeric.
        const typeOf = (v: unknown, vt: unknown) => (vt ? String(vt) : !Number.isNaN(Number(v)) ? "num" : "str");
        if ((NO_VALUE as readonly string[]).includes(t)) return { t };
        if (t === "regex") return { t, v: text(raw.v), case_insensitive: raw.case === true || raw.case === "true" };
        if (t === "istype") return { t, v: text(raw.v || raw.vt || "string") };
        if (t === "jsonata_exp") return { t, v: text(raw.v) };
        const rule: Record<string, unknown> = { t, v: text(raw.v), v_type: typeOf(raw.v, raw.vt) };
        if (t === "btwn" || t === "index") Object.assign(rule, { v2: text(raw.v2), v2_type: typeOf(raw.v2, raw.v2t) });
        return rule;
      }),
    }),
  },
});
