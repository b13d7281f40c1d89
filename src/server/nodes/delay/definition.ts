import { z } from "zod";
import { defineNode } from "../types";

export const delayConfig = z
  .object({
    mode: z.enum(["delay", "rate"]).default("delay"),
    /** delay mode: how long each message waits. */
    delay_ms: z.number().int().min(0).max(86_400_000).default(1000),
    /** rate mode: at most `rate` messages per `rate_period_ms`. */
    rate: z.number().int().min(1).max(100_000).default(1),
    rate_period_ms: z.number().int().min(1).max(86_400_000).default(1000),
    /** rate mode: drop messages over the rate instead of queueing them. */
    drop: z.boolean().default(false),
    /** Messages waiting at most; past it the oldest is dropped (bounded memory). */
    max_queue: z.number().int().min(1).max(100_000).default(10_000),
  });

const UNIT_MS = { milliseconds: 1, seconds: 1000, minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const;
const RATE_UNIT_MS = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

export const delayNode = defineNode({
  type: "delay",
  version: 1,
  category: "function",
  name: "Delay",
  description: "Delays each message, or limits the rate of messages (queueing or dropping the excess).",
  inputs: 1,
  outputs: 1,
  configSchema: delayConfig,
  nodeRed: {
    type: "delay",
    toNodeRed: (c) => ({
      pauseType: c.mode,
      timeout: String(c.delay_ms),
      timeoutUnits: "milliseconds",
      rate: String(c.rate),
      nbRateUnits: String(c.rate_period_ms / 1000),
      rateUnits: "second",
      drop: c.drop,
      outputs: 1,
    }),
    fromNodeRed: (p) => {
      const unit = UNIT_MS[(p.timeoutUnits as keyof typeof UNIT_MS) ?? "seconds"] ?? 1000;
      const rateUnit = RATE_UNIT_MS[(p.rateUnits as keyof typeof RATE_UNIT_MS) ?? "second"] ?? 1000;
      return {
        mode: p.pauseType === "rate" ? "rate" : "delay",
        delay_ms: Math.round(Number(p.timeout ?? 5) * unit),
        rate: Math.max(1, Math.round(Number(p.rate ?? 1))),
        rate_period_ms: Math.max(1, Math.round(Number(p.nbRateUnits ?? 1) * rateUnit)),
        drop: Boolean(p.drop),
      };
    },
  },
});
