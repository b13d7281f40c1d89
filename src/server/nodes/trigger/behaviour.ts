import { triggerNode } from "./definition";
import { defineBehaviour } from "../types";
import Mustache from "mustache";
import type { Message, Send } from "../../runtime/types";
import { getProperty } from "../../runtime/properties";
import { prepareOperand, type OperandType, type PreparedOperand } from "../../runtime/operands";
import { cloneMessage, cloneValue, MAX_TOPICS, own } from "../sequence-support";

const UNIT_MS = { ms: 1, s: 1000, min: 60_000, hr: 3_600_000 } as const;

export const TOO_MANY_TOPICS = `trigger holds ${MAX_TOPICS} topics already; the message was dropped`;

interface TopicState {
  /** The timer (or interval, when resending); 0 when waiting to be reset. */
  tout?: NodeJS.Timeout | 0;
  m2?: unknown;
}

/**
 * Node-RED 4.1's trigger (89-trigger.js), step for step: the first value at once, the second after
 * the delay (extended or reset by later messages), or the first resent at an interval; per topic.
 * Every timer belongs to the node and is cleared when it closes.
 */
export const triggerBehaviour = defineBehaviour(triggerNode, (ctx, c) => {
  const loop = c.duration < 0;
  const duration = Math.abs(c.duration) * UNIT_MS[c.units];
  const extend = c.extend && !loop;
  const second = c.outputs === 2;
  const op1Templated = c.op1_type === "str" && c.op1.includes("{{");
  const op2Templated = c.op2_type === "str" && c.op2.includes("{{");
  const isOperand = (type: string) => type !== "pay" && type !== "payl" && type !== "nul";
  const op1: PreparedOperand | undefined = isOperand(c.op1_type) && !op1Templated ? prepareOperand({ value: c.op1, type: c.op1_type as OperandType }) : undefined;
  const op2: PreparedOperand | undefined = isOperand(c.op2_type) && !op2Templated ? prepareOperand({ value: c.op2, type: c.op2_type as OperandType }) : undefined;
  const reEvaluatedAtTimeout = c.op2_type === "flow" || c.op2_type === "global" || c.op2_type === "date";

  /** A reset value naming a variable (${NAME}) is read at each message. */
  const variableReset = c.reset.includes("${");
  let topics = new Map<string, TopicState>();
  const latest = new Map<string, Message>();

  const status = () => {
    const n = topics.size;
    ctx.status(n === 0 ? null : { fill: "blue", shape: "dot", text: n === 1 ? "" : String(n) });
  };
  const clear = (state: TopicState | undefined) => {
    if (!state?.tout) return;
    if (loop) clearInterval(state.tout);
    else clearTimeout(state.tout);
  };
  const sendSecond = (send: Send, msg: Message | null) => {
    if (second) send([null, msg]);
    else send(msg);
  };

  return {
    input(msg, send, done) {
      try {
        let topic = (getProperty(msg, c.topic) as string) || "_none";
        let delay = duration;
        if (c.override_delay && own(msg, "delay") && !Number.isNaN(Number.parseFloat(msg.delay as string))) delay = Number.parseFloat(msg.delay as string);
        if (c.by_topic === "all") topic = "_none";
        topic = String(topic);
        if (!topics.has(topic)) {
          if (topics.size >= MAX_TOPICS) return done(new Error(TOO_MANY_TOPICS));
          topics.set(topic, {});
        }
        const state = topics.get(topic)!;
        const payload = msg.payload as { toString?: () => string } | null | undefined;
        const reset = variableReset ? ctx.env.substitute(c.reset) : c.reset;
        const resetByPayload = reset !== "" && own(msg, "payload") && payload !== null && payload !== undefined && typeof payload.toString === "function" && payload.toString() == reset;
        if (own(msg, "reset") || resetByPayload) {
          clear(state);
          topics.delete(topic);
          latest.delete(topic);
          status();
          return done();
        }
        if (c.op2_type === "payl") latest.set(topic, cloneMessage(msg));
        if ((!state.tout && state.tout !== 0) || loop) {
          if (c.op2_type === "pay") state.m2 = cloneValue(msg.payload);
          else if (op2Templated) state.m2 = Mustache.render(c.op2, msg);
          else if (op2) state.m2 = op2.evaluate(ctx, msg);
          if (op1Templated) msg.payload = Mustache.render(c.op1, msg);
          else if (op1) msg.payload = op1.evaluate(ctx, msg);
          if (delay === 0) state.tout = 0;
          else if (loop) {
            clear(state);
            if (c.op1_type !== "nul") {
              const repeated = cloneMessage(msg);
              state.tout = setInterval(() => {
                // Backpressure, as inject's timers: a tick while the flow is busy is skipped, not queued.
                if (ctx.busy()) return;
                if (c.op1_type === "date") repeated.payload = Date.now();
                send(cloneMessage(repeated));
              }, delay);
            }
          } else if (!state.tout) {
            state.tout = setTimeout(() => {
              if (c.op2_type !== "nul") {
                try {
                  const msg2 = cloneMessage(msg);
                  if (reEvaluatedAtTimeout) state.m2 = op2!.evaluate(ctx, msg);
                  if (c.op2_type === "payl") {
                    sendSecond(send, latest.get(topic) ?? null);
                    latest.delete(topic);
                  } else {
                    msg2.payload = state.m2;
                    sendSecond(send, msg2);
                  }
                } catch (err) {
                  ctx.log.error(err, msg);
                }
              }
              topics.delete(topic);
              status();
            }, delay);
          }
          status();
          if (c.op1_type !== "nul") send(cloneMessage(msg));
        } else if (extend && delay > 0) {
          if (c.op2_type === "payl") state.m2 = cloneValue(msg.payload);
          clear(state);
          state.tout = setTimeout(() => {
            try {
              if (c.op2_type === "flow" || c.op2_type === "global") state.m2 = op2!.evaluate(ctx, msg);
              let msg2: Message | null = null;
              if (c.op2_type !== "nul" && topics.has(topic)) {
                msg2 = cloneMessage(msg);
                msg2.payload = state.m2;
              }
              topics.delete(topic);
              status();
              sendSecond(send, msg2);
            } catch (err) {
              ctx.log.error(err, msg);
            }
          }, delay);
        }
        done();
      } catch (err) {
        done(err);
      }
    },
    close() {
      for (const state of topics.values()) clear(state);
      topics = new Map();
      latest.clear();
      ctx.status(null);
    },
  };
});
