import { z } from "zod";
import { defineNode } from "../types";
import { checkOperand, operandTypeSchema, type OperandType } from "../../runtime/operands";
import { propertyPath } from "../property-path";
import { OPERAND_TYPES } from "../../../shared/operand-types";
import { numberOrVariable, variableFromNodeRed } from "../../runtime/number-or-variable";

/** Node-RED's inject property types (its typed input offers these). */
const PROP_TYPES = ["flow", "global", "str", "num", "bool", "json", "bin", "date", "jsonata", "env", "msg"] as const satisfies readonly OperandType[];

export const injectProp = z.object({
  p: propertyPath.meta({ title: "Property", description: "The message property to set, such as payload or topic" }),
  v: z.string().max(65536).default("").meta({ title: "Value" }),
  v_type: operandTypeSchema(PROP_TYPES, "Value type").default("str"),
});
export type InjectProp = z.infer<typeof injectProp>;

export const DEFAULT_PROPS: InjectProp[] = [
  { p: "payload", v: "", v_type: "date" },
  { p: "topic", v: "", v_type: "str" },
];

/** Our inject before `props` (payload_type, payload, topic), still accepted from API clients; stored flows were migrated. */
const LEGACY_TYPES: Record<string, InjectProp["v_type"]> = { timestamp: "date", string: "str", number: "num", boolean: "bool", json: "json" };
const legacyType = z.enum(["timestamp", "string", "number", "boolean", "json"]);

function legacyProps(c: { payload_type?: string; payload?: string; topic?: string }): InjectProp[] {
  const type = LEGACY_TYPES[c.payload_type ?? "timestamp"] ?? "date";
  return [
    { p: "payload", v: type === "date" ? "" : (c.payload ?? ""), v_type: type },
    { p: "topic", v: c.topic ?? "", v_type: "str" },
  ];
}

const MAX_REPEAT_SECONDS = 2_147_483; // setInterval's limit (2^31 - 1 ms), as Node-RED's "toolong" check

export const injectConfig = z
  .object({
    props: z.array(injectProp).max(100).optional().meta({ title: "Properties", description: "The properties the message gets (default: payload = timestamp, topic = \"\")" }),
    /** Seconds between repeats; null: no repeat. */
    repeat_seconds: numberOrVariable(z.number().min(0.1).max(MAX_REPEAT_SECONDS)).nullable().default(null).meta({ title: "Repeat every (seconds)", description: "Empty: no repeat; or ${NAME}, read when the flow starts" }),
    /** Five-field cron expression (minute hour day month weekday); null: none. */
    cron: z
      .string()
      .regex(/^(\S+\s+){4}\S+$/, "must be a five-field cron expression such as '*/5 * * * *'")
      .nullable()
      .default(null)
      .meta({ title: "Cron schedule", description: "Five fields: minute hour day month weekday, such as */5 * * * *" }),
    once: z.boolean().default(false).meta({ title: "Inject once after start" }),
    once_delay_seconds: numberOrVariable(z.number().min(0).max(3600)).default(0.1).meta({ title: "Start delay (seconds)", description: "How long after the flow starts the first message goes out; or ${NAME}" }),
    payload_type: legacyType.optional().meta({ title: "Payload type (old form)", deprecated: true }),
    payload: z.string().max(65536).optional().meta({ title: "Payload (old form)", deprecated: true }),
    topic: z.string().max(1024).optional().meta({ title: "Topic (old form)", deprecated: true }),
  })
  .superRefine((c, ctx) => {
    if (c.repeat_seconds !== null && c.cron !== null) ctx.addIssue({ code: "custom", path: ["cron"], message: "use either repeat_seconds or cron, not both" });
    if (c.props) c.props.forEach((p, i) => checkOperand(ctx, ["props", i, "v"], p.v, p.v_type));
    else if (c.payload_type !== undefined || c.payload !== undefined || c.topic !== undefined) {
      const [payload] = legacyProps(c);
      checkOperand(ctx, ["payload"], payload!.v, payload!.v_type);
    }
  })
  .transform(({ payload_type, payload, topic, props, ...rest }) => ({
    ...rest,
    props: props ?? (payload_type !== undefined || payload !== undefined || topic !== undefined ? legacyProps({ payload_type, payload, topic }) : DEFAULT_PROPS),
  }));

const HELP = `Starts a flow: by hand (the button in the editor, or \`POST /nodes/{id}/inject\`), once after the flow starts, at a regular interval, or on a cron schedule. The message gets the properties you list, such as \`payload\` and \`topic\`.

### Inputs
None: the node starts messages itself.

### Outputs
- **payload** by default the current time in milliseconds since 1 January 1970.
- **topic** by default an empty string.
- any other property you list.

### Details
Each property's value can be a string, number, boolean, JSON, buffer, timestamp (milliseconds, an ISO 8601 string, a Date, or a moment.js format), a flow or global context value, a variable, or a JSONata expression (evaluated against the message being built, so it can use the properties set before it).

*Inject once after start* sends a message the given delay after the flow starts (default 0.1 s); a repeat interval or cron schedule then starts after it, as in Node-RED. A repeat interval is at most 2,147,483 seconds (about 24 days); it may be one \`\${NAME}\` (a variable holding the seconds), read when the flow starts, as Node-RED maps it (a variable that is unset or not such a number is the node's error, and it does not repeat). A cron schedule uses five fields: minute, hour, day of month, month, day of week.

\`POST /nodes/{id}/inject\` with \`payload\` or \`topic\` in its body sets those on the message after the node's own properties.

### Differences from Node-RED
- While the flow holds more messages than its high-water mark, a timed message (repeat, cron, once) is skipped rather than queued, and the node's status says so.
- JSONata expressions run with the function node's time and memory limits (1 s, 32 MiB).
- \`$moment()\` is bound as in Node-RED, but JSONata 2.2 reads only an object's own properties, so its methods (\`$moment().format()\`) cannot be called; use \`$now()\` and \`$fromMillis()\`.`;

export const injectNode = defineNode({
  type: "inject",
  version: 1,
  category: "input",
  name: "Inject",
  description: "Starts a message by hand, once at start, every N seconds, or on a cron schedule.",
  help: HELP,
  inputs: 0,
  outputs: 1,
  configSchema: injectConfig,
  roles: { trigger: true },
  nodeRed: {
    type: "inject",
    toNodeRed: (c) => {
      // Node-RED's own editor keeps payload and topic beside props ({p: "payload"}, {p: "topic", vt: "str"}).
      const payload = c.props.find((p) => p.p === "payload");
      const topic = c.props.find((p) => p.p === "topic" && p.v_type === "str");
      return {
        props: c.props.map((p) => (p === payload ? { p: "payload" } : p === topic ? { p: "topic", vt: "str" } : { p: p.p, v: p.v, vt: p.v_type })),
        repeat: c.repeat_seconds === null ? "" : String(c.repeat_seconds),
        crontab: c.cron ?? "",
        once: c.once,
        onceDelay: c.once_delay_seconds,
        topic: topic?.v ?? "",
        ...(payload ? { payload: payload.v, payloadType: payload.v_type } : {}),
      };
    },
    fromNodeRed: (n) => {
      const text = (v: unknown) => (v === undefined || v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v));
      // Node-RED's runtime: props without a value take payload/payloadType and topic from the node; no props at all is the legacy form.
      const raw = Array.isArray(n.props)
        ? (n.props as Array<Record<string, unknown>>)
        : [
            { p: "payload", v: n.payload, vt: n.payloadType },
            { p: "topic", v: n.topic, vt: "str" },
          ];
      const props = raw.map((p) => {
        if (p.p === "payload" && !("v" in p)) return { p: "payload", v: text(n.payload), v_type: text(n.payloadType) || "date" };
        if (p.p === "topic" && p.vt === "str" && !("v" in p)) return { p: "topic", v: text(n.topic), v_type: "str" };
        // Node-RED evaluates a type it does not know (older flows write "string") as the text itself: str.
        const vt = text(p.vt);
        return { p: text(p.p), v: text(p.v), v_type: (OPERAND_TYPES as readonly string[]).includes(vt) ? vt : "str" };
      });
      const repeat = Number(n.repeat);
      return {
        props,
        repeat_seconds: variableFromNodeRed(n.repeat) ?? (n.repeat && Number.isFinite(repeat) && repeat > 0 ? repeat : null),
        cron: n.crontab ? String(n.crontab) : null,
        once: n.once === true || n.once === "true",
        once_delay_seconds: variableFromNodeRed(n.onceDelay) ?? (Number(n.onceDelay ?? 0.1) || 0.1),
      };
    },
    // payloadType is read only for a payload row without its own value, and written back with it; without such a row it means nothing (Node-RED's editor leaves it behind).
    absorbed: ["payloadType"],
  },
});
