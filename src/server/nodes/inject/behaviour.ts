import { defineBehaviour } from "../types";
import { Cron } from "croner";
import type { Message } from "../../runtime/types";
import { prepareOperand, setTarget } from "../../runtime/operands";
import { injectNode } from "./definition";

/**
 * Starts messages: by hand (trigger), once after start, every N seconds, or on a cron schedule, as
 * Node-RED 4.1's inject: the repeat or cron schedule starts after the "once" message when there is
 * one. Each message gets the node's props in order (a JSONata prop sees the ones set before it).
 */
export const injectBehaviour = defineBehaviour(injectNode, (ctx, c) => {
  const props = c.props.map((p) => ({ path: p.p, value: prepareOperand({ value: p.v, type: p.v_type }) }));
  const anyAsync = props.some((p) => p.value.async);
  const timers: Array<NodeJS.Timeout> = [];
  let cron: Cron | undefined;

  /** Sets the props on msg (Node-RED: errors are collected, and the message is not sent if any). */
  const build = (msg: Message, overrides: { payload?: unknown; topic?: string }, send: (msg: Message) => void, done?: (err?: unknown) => void) => {
    const errors: string[] = [];
    // As Node-RED's inject (setMessageProperty(msg, property, value, true)): parents are created
    // even for an undefined value, so `payload.x` from an unset context key makes `payload` {}.
    const set = (path: string, value: unknown) => setTarget(ctx, { path, type: "msg" }, msg, value, true);
    const finish = () => {
      if (overrides.payload !== undefined) msg.payload = overrides.payload;
      if (overrides.topic !== undefined) msg.topic = overrides.topic;
      if (errors.length > 0) {
        const err = new Error(errors.join("; "));
        if (done) done(err);
        else ctx.log.error(err, msg);
        return;
      }
      send(msg);
      done?.();
    };
    const evaluate = (p: (typeof props)[number]) => {
      try {
        return p.value.evaluate(ctx, msg);
      } catch (err) {
        errors.push(err instanceof Error ? err.message : String(err));
        return undefined;
      }
    };
    if (!anyAsync) {
      for (const p of props) {
        const before = errors.length;
        const value = evaluate(p);
        if (errors.length === before) set(p.path, value);
      }
      finish();
      return;
    }
    void (async () => {
      for (const p of props) {
        if (p.value.async) {
          try {
            set(p.path, await p.value.evaluate(ctx, msg));
          } catch (err) {
            errors.push(`Invalid JSONata expression: ${err instanceof Error ? err.message : String(err)}`);
          }
          continue;
        }
        const before = errors.length;
        const value = evaluate(p);
        if (errors.length === before) set(p.path, value);
      }
      finish();
    })();
  };

  const trigger = (overrides: { payload?: unknown; topic?: string } = {}) => {
    const msg: Message = { _msgid: ctx.newMessageId() };
    build(msg, overrides, (m) => ctx.send(m));
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
  const repeater = () => {
    if (c.repeat_seconds !== null) timers.push(setInterval(timed, c.repeat_seconds * 1000));
    else if (c.cron) cron = new Cron(c.cron, { catch: (err) => ctx.log.error(err) }, timed);
  };
  return {
    trigger,
    /** A message delivered to the node (Node-RED's node.receive): it gets the props, and goes on. */
    input(msg, send, done) {
      build(msg, {}, (m) => send(m), done);
    },
    start() {
      if (c.once) {
        timers.push(
          setTimeout(() => {
            timed();
            repeater();
          }, c.once_delay_seconds * 1000),
        );
      } else repeater();
    },
    close() {
      timers.forEach((t) => clearTimeout(t));
      cron?.stop();
    },
  };
});
