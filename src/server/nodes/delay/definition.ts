import { z } from "zod";
import { defineNode } from "../types";

/**
 * The longest delay or rate period: 366 days (a rate of one message a year). Past setTimeout's
 * 24.8 days the node chains timers (runtime/long-timers.ts); Node-RED has no limit, but its
 * timers past 24.8 days fire after 1 ms.
 */
export const MAX_DELAY_MS = 366 * 86_400_000;
const maxMs = (what: string) => z.number().int().min(0).max(MAX_DELAY_MS, `${what} must be at most 366 days`);

export const delayConfig = z.object({
  mode: z.enum(["delay", "variable", "random", "rate", "rate_each_topic", "rate_all_topics"]).default("delay").meta({
    title: "Action",
    description:
      "delay: a fixed delay; variable: msg.delay (ms) overrides it; random: between two values; rate: at most Rate messages per period; " +
      "rate_each_topic / rate_all_topics: per msg.topic, keeping only the newest message of each topic, and each period releasing the next topic's (each) or every topic's (all)",
  }),
  delay_ms: maxMs("the delay").default(5000).meta({ title: "Delay (ms)", description: "How long each message waits (delay and variable modes)" }),
  random_min_ms: maxMs("the delay").default(1000).meta({ title: "Random delay from (ms)" }),
  random_max_ms: maxMs("the delay").default(5000).meta({ title: "Random delay to (ms)" }),
  rate: z.number().positive().max(100_000).default(1).meta({ title: "Rate (messages)", description: "How many messages per period pass (rate modes)" }),
  rate_period_ms: maxMs("the period").min(1).default(1000).meta({ title: "Per period (ms)" }),
  drop: z.boolean().default(false).meta({
    title: "Drop intermediate messages",
    description: "Rate mode: a message arriving too early is dropped (or sent to the second output) instead of queued",
  }),
  outputs: z.number().int().min(1).max(2).default(1).meta({
    title: "Outputs",
    description: "2: with Drop intermediate messages (or per topic, a replaced message), what is dropped leaves on the second output",
  }),
  allow_rate_override: z.boolean().default(false).meta({ title: "Allow msg.rate to override the rate", description: "msg.rate (ms between messages) sets the rate until reset or redeploy" }),
  max_queue: z.number().int().min(1).max(100_000).default(10_000).meta({
    title: "Most messages held",
    description: "Past it, a rate-limit queue is cleared and an error raised (Node-RED's nodeMessageBufferMaxLength); a delay refuses more",
  }),
});
export type DelayConfig = z.infer<typeof delayConfig>;

const UNIT_MS: Record<string, number> = { milliseconds: 1, seconds: 1000, minutes: 60_000, hours: 3_600_000, days: 86_400_000 };
const RATE_UNIT_MS: Record<string, number> = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000 };
const PAUSE_TYPES: Record<string, DelayConfig["mode"]> = { delay: "delay", delayv: "variable", random: "random", rate: "rate", queue: "rate_each_topic", timed: "rate_all_topics" };
const NR_PAUSE_TYPES = Object.fromEntries(Object.entries(PAUSE_TYPES).map(([k, v]) => [v, k])) as Record<DelayConfig["mode"], string>;

const number = (v: unknown, fallback: number) => {
  const n = typeof v === "number" ? v : Number.parseFloat(String(v ?? ""));
  return Number.isFinite(n) ? n : fallback;
};
const ms = (value: unknown, unit: unknown, fallback: number) => Math.round(number(value, fallback) * (UNIT_MS[String(unit)] ?? 1000));

/** A duration in Node-RED's terms: whole seconds where it divides, else milliseconds. */
function toUnits(msValue: number): { value: string; units: string } {
  return msValue % 1000 === 0 ? { value: String(msValue / 1000), units: "seconds" } : { value: String(msValue), units: "milliseconds" };
}

export const delayNode = defineNode({
  type: "delay",
  version: 1,
  category: "function",
  name: "Delay",
  description: "Delays each message, or limits the rate at which messages pass (for all messages or per msg.topic).",
  help: `Delays each message passing through the node, or limits the rate at which they can pass.

### Inputs

- \`delay\` (number): the delay in milliseconds for this message, when the action is *variable* (msg.delay overrides the configured delay).
- \`rate\` (number): milliseconds between messages, when *Allow msg.rate to override the rate* is on; it stays in effect until changed again, the node is reset, or the flow is redeployed.
- \`reset\`: any value: every message the node holds is cleared without being sent.
- \`flush\`: a number: that many held messages are released at once; any other value: all of them.
- \`toFront\` (boolean): in rate mode, \`true\` puts the message at the front of the queue, to be released next (with \`msg.flush = 1\`, at once).

### Outputs

1. The delayed or rate-limited messages.
2. With *Outputs* = 2: the messages dropped as intermediate (rate mode with *Drop intermediate messages*, or per topic, a message replaced by a newer one of its topic).

### Details

As a delay, each message waits independently of the others, from its arrival: a fixed time, a random time between two values, or the time in \`msg.delay\`. The status shows how many messages wait.

As a rate limit, messages are spread over the period: at most *Rate* per *period*, one every period ÷ rate. Messages arriving faster wait in a queue (the status shows its depth), or, with *Drop intermediate messages*, are dropped (or sent to the second output).

Per \`msg.topic\`, only the newest message of each topic is kept (a message without a topic gets the topic \`_none_\`). Each period the node releases either the next topic's message (*each topic in turn*) or every topic's (*all topics*).

A message holding only \`flush\` is a command and is not sent itself; with other properties it is held like any message and released by its own flush. A message with \`reset\` is never sent in the delay modes.

### Differences from Node-RED

- A node holds at most *Most messages held* (default 10,000): a rate-limit queue past it is cleared with the error "too many pending messages in delay node" (Node-RED does this only when its \`nodeMessageBufferMaxLength\` setting is set), and a delay refuses further messages with that error. Memory is shared in a multi-tenant runtime.
- Delays and rate periods are whole milliseconds, at most 366 days (a rate of one message a year). Node-RED has no limit, but its timers past 24.8 days (2^31 ms) fire after 1 ms; ours wait as configured.`,
  inputs: 1,
  outputs: { value_of: "outputs" },
  configSchema: delayConfig,
  nodeRed: {
    type: "delay",
    toNodeRed: (c) => {
      const timeout = toUnits(c.delay_ms);
      const randomUnits = c.random_min_ms % 1000 === 0 && c.random_max_ms % 1000 === 0 ? "seconds" : "milliseconds";
      const div = randomUnits === "seconds" ? 1000 : 1;
      return {
        pauseType: NR_PAUSE_TYPES[c.mode],
        timeout: timeout.value,
        timeoutUnits: timeout.units,
        rate: String(c.rate),
        nbRateUnits: String(c.rate_period_ms / 1000),
        rateUnits: "second",
        randomFirst: String(c.random_min_ms / div),
        randomLast: String(c.random_max_ms / div),
        randomUnits,
        drop: c.drop,
        allowrate: c.allow_rate_override,
        outputs: c.outputs,
      };
    },
    fromNodeRed: (p) => {
      const mode = PAUSE_TYPES[String(p.pauseType ?? "delay")];
      if (!mode) throw new Error(`pauseType ${String(p.pauseType).slice(0, 40)} is not one of Node-RED's (its delay node passes no message on in such a mode: a patched or newer copy of it wrote this)`);
      // Node-RED: nbRateUnits > 0 multiplies the unit; rate is messages per that period.
      const nb = number(p.nbRateUnits, 1);
      const rateUnit = RATE_UNIT_MS[String(p.rateUnits ?? "second")] ?? 1000;
      return {
        mode,
        delay_ms: ms(p.timeout, p.timeoutUnits ?? "seconds", 5),
        random_min_ms: ms(p.randomFirst, p.randomUnits ?? "seconds", 1),
        random_max_ms: ms(p.randomLast, p.randomUnits ?? "seconds", 5),
        rate: number(p.rate, 1),
        rate_period_ms: Math.round((nb > 0 ? nb : 1) * rateUnit),
        drop: p.drop === true || p.drop === "true",
        outputs: Number(p.outputs) === 2 ? 2 : 1,
        allow_rate_override: p.allowrate === true || p.allowrate === "true",
      };
    },
  },
});
