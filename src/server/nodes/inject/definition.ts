import { z } from "zod";
import { defineNode } from "../types";

export const injectConfig = z
  .object({
    payload_type: z.enum(["timestamp", "string", "number", "boolean", "json"]).default("timestamp"),
    payload: z.string().max(65536).default(""),
    topic: z.string().max(1024).default(""),
    /** Seconds between repeats; null: no repeat. */
    repeat_seconds: z.number().min(0.1).max(31_536_000).nullable().default(null),
    /** Five-field cron expression (minute hour day month weekday); null: none. */
    cron: z
      .string()
      .regex(/^(\S+\s+){4}\S+$/, "must be a five-field cron expression such as '*/5 * * * *'")
      .nullable()
      .default(null),
    once: z.boolean().default(false),
    once_delay_seconds: z.number().min(0).max(3600).default(0.1),
  })
  .superRefine((c, ctx) => {
    if (c.repeat_seconds !== null && c.cron !== null) ctx.addIssue({ code: "custom", path: ["cron"], message: "use either repeat_seconds or cron, not both" });
    if (c.payload_type === "number" && c.payload.trim() !== "" && !Number.isFinite(Number(c.payload))) {
      ctx.addIssue({ code: "custom", path: ["payload"], message: "must be a number for payload_type number" });
    }
    if (c.payload_type === "boolean" && !["true", "false"].includes(c.payload)) ctx.addIssue({ code: "custom", path: ["payload"], message: "must be true or false for payload_type boolean" });
    if (c.payload_type === "json") {
      try {
        JSON.parse(c.payload || "null");
      } catch {
        ctx.addIssue({ code: "custom", path: ["payload"], message: "must be valid JSON for payload_type json" });
      }
    }
  });

const NR_TYPES = { timestamp: "date", string: "str", number: "num", boolean: "bool", json: "json" } as const;

export const injectNode = defineNode({
  type: "inject",
  version: 1,
  category: "input",
  name: "Inject",
  description: "Starts a message by hand, once at start, every N seconds, or on a cron schedule.",
  inputs: 0,
  outputs: 1,
  configSchema: injectConfig,
  nodeRed: {
    type: "inject",
    toNodeRed: (c) => ({
      props: [{ p: "payload" }, { p: "topic", vt: "str" }],
      repeat: c.repeat_seconds === null ? "" : String(c.repeat_seconds),
      crontab: c.cron ?? "",
      once: c.once,
      onceDelay: c.once_delay_seconds,
      topic: c.topic,
      payload: c.payload,
      payloadType: NR_TYPES[c.payload_type],
    }),
    fromNodeRed: (p) => {
      const back = Object.fromEntries(Object.entries(NR_TYPES).map(([k, v]) => [v, k]));
      const repeat = Number(p.repeat);
      return {
        payload_type: back[String(p.payloadType ?? "date")] ?? "string",
        payload: p.payload === undefined ? "" : String(p.payload),
        topic: String(p.topic ?? ""),
        repeat_seconds: p.repeat && Number.isFinite(repeat) && repeat > 0 ? repeat : null,
        cron: p.crontab ? String(p.crontab) : null,
        once: Boolean(p.once),
        once_delay_seconds: Number(p.onceDelay ?? 0.1) || 0.1,
      };
    },
  },
});
