import { z } from "zod";
import { defineNode } from "../types";
import { MAX_VALUE_CHARS } from "../../../shared/flow-graph";
import { checkOperand, needsJsonataTurn, operandTypeSchema, type OperandType } from "../../runtime/operands";

const SET_TYPES = ["msg", "flow", "global", "str", "num", "bool", "json", "bin", "date", "jsonata", "env"] as const satisfies readonly OperandType[];
const FROM_TYPES = ["msg", "flow", "global", "str", "re", "num", "bool", "env"] as const satisfies readonly OperandType[];
const CHANGE_TO_TYPES = ["msg", "flow", "global", "str", "num", "bool", "json", "bin", "env"] as const satisfies readonly OperandType[];
const TARGET_TYPES = ["msg", "flow", "global"] as const satisfies readonly OperandType[];

const property = z.string().min(1).max(256).meta({ title: "Property", description: "The message property, or flow or global context key, the rule works on" });
const propertyType = operandTypeSchema(TARGET_TYPES, "Property type").default("msg");
const value = (title: string, description: string) => z.string().max(MAX_VALUE_CHARS, "must be at most 1,000,000 characters").default("").meta({ title, description });
const deepCopy = z.boolean().default(false).meta({ title: "Deep copy value", description: "Copy the value instead of referring to it (msg, flow and global values)" });

export const changeRule = z.discriminatedUnion("t", [
  z.object({
    t: z.literal("set").meta({ title: "Set" }),
    p: property,
    p_type: propertyType,
    to: value("To the value", "The value to set"),
    to_type: operandTypeSchema(SET_TYPES, "Value type").default("str"),
    deep_copy: deepCopy,
  }),
  z.object({
    t: z.literal("change").meta({ title: "Change" }),
    p: property,
    p_type: propertyType,
    from: value("Search for", "What to search for in the property"),
    from_type: operandTypeSchema(FROM_TYPES, "Search type").default("str"),
    to: value("Replace with", "What replaces it; with a regular expression, $1 names a capture group"),
    to_type: operandTypeSchema(CHANGE_TO_TYPES, "Replacement type").default("str"),
    deep_copy: deepCopy,
  }),
  z.object({ t: z.literal("delete").meta({ title: "Delete" }), p: property, p_type: propertyType }),
  z.object({
    t: z.literal("move").meta({ title: "Move" }),
    p: property,
    p_type: propertyType,
    to: z.string().min(1).max(256).meta({ title: "To the property", description: "Where the value moves to" }),
    to_type: operandTypeSchema(TARGET_TYPES, "Destination type").default("msg"),
  }),
]);

export const changeConfig = z
  .object({
    rules: z
      .array(changeRule)
      .max(100)
      .default([{ t: "set", p: "payload", p_type: "msg", to: "", to_type: "str", deep_copy: false }])
      .meta({ title: "Rules", description: "Applied in order to each message" }),
  })
  .superRefine((c, ctx) => {
    c.rules.forEach((r, i) => {
      checkOperand(ctx, ["rules", i, "p"], r.p, r.p_type);
      if (r.t === "change") checkOperand(ctx, ["rules", i, "from"], r.from, r.from_type);
      if (r.t === "set" || r.t === "change" || r.t === "move") checkOperand(ctx, ["rules", i, "to"], r.to, r.to_type);
    });
  });

type Rule = z.infer<typeof changeRule>;

const HELP = `Sets, changes, deletes or moves properties of a message, flow context or global context. The node can have several rules, applied in the order they are defined.

### Inputs
- **msg** any message.

### Outputs
- **msg** the same message, with the rules applied. A rule that fails (an invalid JSONata expression result) reports an error and the message is not sent.

### Details
The operations are:
- **Set** a property. The value can be of many types (string, number, boolean, JSON, buffer, timestamp, JSONata expression, variable) or taken from another message, flow or global property. With *deep copy*, the value is copied rather than referenced.
- **Change**: search and replace parts of the property. With a regular expression the replacement can include capture groups, such as \`$1\`. The type of the property only changes on a complete match (searching for the number \`5\` in \`"5"\` sets the replacement itself).
- **Delete** a property.
- **Move** (rename) a property, also between the message and flow or global context.

The *JSONata expression* type uses the [JSONata](https://jsonata.org) query and expression language, with \`$flowContext(key)\`, \`$globalContext(key)\` and \`$env(name)\` as in Node-RED.

### Differences from Node-RED
- JSONata expressions run with the function node's time and memory limits (1 s, 32 MiB); one that exceeds them is a node error.
- With a JSONata rule, messages leave in the order they came, one at a time. In Node-RED a message whose expression finishes sooner can overtake the ones before it.
- \`$moment()\` is bound as in Node-RED, but JSONata 2.2 reads only an object's own properties, so its methods (\`$moment().format()\`) cannot be called; use \`$now()\` and \`$fromMillis()\`.
- Regular expressions use RE2 syntax (no backreferences or lookaround), so no pattern can stall the server; such patterns are refused when the flow is saved. In JSONata expressions, a lookbehind \`(?<=…)\` at the start of a regex and a lookahead \`(?=…)\` at its end work (they are rewritten for RE2); other lookarounds are refused.
- Property names use the path grammar \`payload.a[0].b\` (no \`payload["a b"]\`), and context uses the default store only.
- A *Search for* of type variable searches for the variable's value (Node-RED searches for its name).
- A value of type *env variable* (and \`$env()\` in JSONata) reads the flow's and the organization's variables, never the server's process environment (tenancy): Node-RED's example that sets \`$HOME\` gets an empty string here.`;

const toNodeRedRule = (r: Rule): Record<string, unknown> => {
  switch (r.t) {
    case "set":
      return { t: "set", p: r.p, pt: r.p_type, to: r.to, tot: r.to_type, ...(r.deep_copy ? { dc: true } : {}) };
    case "change":
      return { t: "change", p: r.p, pt: r.p_type, from: r.from, fromt: r.from_type, to: r.to, tot: r.to_type, ...(r.deep_copy ? { dc: true } : {}) };
    case "delete":
      return { t: "delete", p: r.p, pt: r.p_type };
    case "move":
      return { t: "move", p: r.p, pt: r.p_type, to: r.to, tot: r.to_type };
  }
};

const text = (v: unknown) => (v === undefined || v === null ? "" : typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v));

/** Node-RED's own migration (15-change.js) of older rules: no pt, `re`, `msg.` in a set's `to`. */
function fromNodeRedRule(raw: Record<string, unknown>): Record<string, unknown> {
  const pt = text(raw.pt) || "msg";
  const p = text(raw.p);
  if (raw.t === "delete") return { t: "delete", p, p_type: pt };
  if (raw.t === "move") return { t: "move", p, p_type: pt, to: text(raw.to), to_type: text(raw.tot) || "msg" };
  let to = text(raw.to);
  let tot = text(raw.tot);
  if (raw.t === "set" && !tot && to.startsWith("msg.")) {
    to = to.slice(4);
    tot = "msg";
  }
  const common = { p, p_type: pt, to, to_type: tot || "str", deep_copy: raw.dc === true };
  if (raw.t === "change") return { t: "change", ...common, from: text(raw.from), from_type: raw.re ? "re" : text(raw.fromt) || "str" };
  return { t: "set", ...common };
}

export const changeNode = defineNode({
  type: "change",
  version: 1,
  category: "function",
  name: "Change",
  description: "Sets, changes (search and replace), deletes or moves message properties, or flow or global context.",
  help: HELP,
  inputs: 1,
  outputs: 1,
  // A JSONata rule with a context read or write: the rules run in the flow's turn (NodeRoles.jsonataTurn).
  roles: {
    jsonataTurn: (c) =>
      needsJsonataTurn(
        c.rules.flatMap((r) => [
          { value: r.p, type: r.p_type },
          ...("to" in r ? [{ value: r.to, type: r.to_type }] : []),
          ...("from" in r ? [{ value: r.from, type: r.from_type }] : []),
        ]),
      ),
  },
  configSchema: changeConfig,
  nodeRed: {
    type: "change",
    // Node-RED's editor still writes the 0.x single-rule fields, empty, beside `rules`.
    toNodeRed: (c) => ({ rules: c.rules.map(toNodeRedRule), action: "", property: "", from: "", to: "", reg: false }),
    fromNodeRed: (p) => {
      if (!Array.isArray(p.rules)) {
        // Node-RED 0.x single-rule change nodes: action/property/from/to/reg.
        const t = p.action === "replace" ? "set" : text(p.action) || "set";
        return { rules: [fromNodeRedRule({ t, p: p.property, to: p.to, from: p.from, re: t === "change" && (p.reg === null || p.reg === true) })] };
      }
      return { rules: (p.rules as Array<Record<string, unknown>>).map(fromNodeRedRule) };
    },
  },
});
