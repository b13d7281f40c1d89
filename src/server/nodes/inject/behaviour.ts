import { Cron } from "croner";
import type { NodeFactory } from "../../runtime/types";
import type { z } from "zod";
import type { injectConfig } from "./definition";

type Config = z.infer<typeof injectConfig>;

function payloadOf(c: Config): unknown {
  switch (c.payload_type) {
    case "timestamp":
      return Date.now();
    case "number":
      return Number(c.payload);
    case "boolean":
      return c.payload === "true";
    case "json":
      return JSON.parse(c.payload || "null");
    default:
      return c.payload;
  }
}

/** Starts messages: by hand (trigger), once at start, every N seconds, or on a cron schedule. */
export const injectBehaviour: NodeFactory = (ctx) => {
  const c = ctx.node.config as Config;
  const timers: Array<NodeJS.Timeout> = [];
  let cron: Cron | undefined;
  const trigger = (overrides: { payload?: unknown; topic?: string } = {}) => {
    const msg = {
      _msgid: ctx.newMessageId(),
      payload: overrides.payload !== undefined ? overrides.payload : payloadOf(c),
      topic: overrides.topic !== undefined ? overrides.topic : c.topic,
    };
    ctx.send(msg);
    return msg._msgid;
  };
  // Backpressure: a timed message is skipped, not queued, while the flow is over its high-water
  // mark (it would only add to the backlog); the node says so in its status until one goes out again.
  let skipped = 0;
  const timed = () => {
    if (ctx.busy()) {
      skipped++;
      ctx.status({ fill: "yellow", shape: "ring", text: `skipped ${skipped}: flow busy` });
      return;
    }
    if (skipped > 0) {
      skipped = 0;
      ctx.status(null);
    }
    trigger();
  };
  return {
    trigger,
    start() {
      if (c.once) timers.push(setTimeout(timed, c.once_delay_seconds * 1000));
      if (c.repeat_seconds !== null) timers.push(setInterval(timed, c.repeat_seconds * 1000));
      if (c.cron) cron = new Cron(c.cron, { catch: (err) => ctx.log.error(err) }, timed);
    },
    close() {
      timers.forEach((t) => clearTimeout(t));
      cron?.stop();
    },
  } as ReturnType<NodeFactory> & { trigger: typeof trigger };
};
