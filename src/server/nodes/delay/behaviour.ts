import { defineBehaviour } from "../types";
import type { Done, Message, Send } from "../../runtime/types";
import { longInterval, longTimeout, type LongTimer } from "../../runtime/long-timers";
import { MAX_DELAY_MS, type DelayConfig, delayNode } from "./definition";

const has = (msg: object, key: string) => Object.prototype.hasOwnProperty.call(msg, key);
const TOO_MANY = "too many pending messages in delay node";

interface Held {
  msg: Message;
  send: Send;
  done: Done;
}

/** A waiting message of the delay modes: `clear` drops it, `trigger` sends it now (Node-RED's ourTimeout). */
interface Pending {
  clear(): void;
  trigger(): void;
  /** Stops the timer of a message that was refused (max_queue). */
  cancel(): void;
}

const toNumber = (v: unknown) => (typeof v === "number" ? v : Number.parseFloat(String(v)));

/**
 * Node-RED's delay node (89-delay.js), mode by mode: delay (fixed, msg.delay, random) with
 * msg.flush and msg.reset; rate limit for all messages (queue, drop, or drop to a second output;
 * msg.rate; msg.toFront) and per msg.topic (each topic in turn, or all topics each period).
 * `done` is called when a message leaves or is dropped, as Node-RED does.
 */
export const delayBehaviour = defineBehaviour(delayNode, (ctx, c) => {
  // A snapshot deployed before a property existed lacks it: the schema's defaults fill it in.
  const fixedRate = c.rate_period_ms / c.rate;
  let rate = fixedRate;
  let pending: Pending[] = [];
  let buffer: Held[] = [];
  let intervalId: LongTimer | undefined;
  let depthTimer: NodeJS.Timeout | undefined;
  let lastSent: number | undefined;

  const count = (n: number, shape: "dot" | "ring" = "dot") => ctx.status({ fill: "blue", shape, text: String(n) });
  const clamp = (n: number) => Math.min(Math.max(0, n), MAX_DELAY_MS);
  const every = (fn: () => void, ms: number) => longInterval(fn, clamp(ms) || 1);
  const stopInterval = () => {
    if (intervalId) intervalId.clear();
    intervalId = undefined;
  };
  /** The queue depth as status, at most every 500 ms. */
  const reportDepth = () => {
    depthTimer ??= setTimeout(() => {
      depthTimer = undefined;
      count(buffer.length);
    }, 500);
  };

  // ----- delay modes -----
  const schedule = (msg: Message, send: Send, done: Done, wait: number, onSent: () => void): Pending => {
    const fire = () => {
      const i = pending.indexOf(entry);
      if (i !== -1) pending.splice(i, 1);
      onSent();
      send(msg);
      done();
    };
    const timer = longTimeout(fire, clamp(wait));
    const entry: Pending = {
      clear: () => {
        timer.clear();
        done();
      },
      trigger: () => {
        timer.clear();
        fire();
      },
      cancel: () => timer.clear(),
    };
    return entry;
  };
  const clearPending = (showZero: boolean) => {
    for (const p of pending) p.clear();
    pending = [];
    if (showZero) count(0, "ring");
    else ctx.status(null);
  };
  const flushPending = (n: unknown) => {
    let len = pending.length;
    if (typeof n === "number") len = Math.min(Math.floor(n), len);
    for (let i = 0; i < len; i++) pending[0]!.trigger();
    count(pending.length);
  };
  /** A message that is only `flush` is a command, never delayed itself. */
  const flushOnly = (msg: Message) => Object.keys(msg).length === 2 && has(msg, "flush");
  const hold = (msg: Message, entry: Pending, done: Done): boolean => {
    if (flushOnly(msg)) {
      entry.clear();
      return true;
    }
    if (pending.length >= c.max_queue) {
      entry.cancel();
      done(new Error(TOO_MANY));
      return false;
    }
    pending.push(entry);
    return true;
  };

  const delayInput = (msg: Message, send: Send, done: Done) => {
    const entry = schedule(msg, send, done, c.delay_ms, () => {
      if (c.delay_ms > 1000) count(pending.length);
    });
    if (!hold(msg, entry, done)) return;
    if (has(msg, "reset")) clearPending(true);
    else if (has(msg, "flush")) {
      flushPending(msg.flush);
      done();
    } else if (c.delay_ms > 1000) count(pending.length);
  };

  const variableInput = (msg: Message, send: Send, done: Done) => {
    let wait = c.delay_ms;
    if (has(msg, "delay") && !Number.isNaN(toNumber(msg.delay))) wait = toNumber(msg.delay);
    if (wait < 0) wait = 0;
    const entry = schedule(msg, send, done, wait, () => {
      if (pending.length === 0) ctx.status(null);
      count(pending.length);
    });
    if (!hold(msg, entry, done)) return;
    if (has(msg, "reset")) clearPending(true);
    if (has(msg, "flush")) {
      flushPending(msg.flush);
      done();
    }
    count(pending.length);
  };

  const randomInput = (msg: Message, send: Send, done: Done) => {
    const wait = c.random_min_ms + (c.random_max_ms - c.random_min_ms) * Math.random();
    const entry = schedule(msg, send, done, wait, () => undefined);
    if (!hold(msg, entry, done)) return;
    if (has(msg, "reset")) clearPending(true);
    if (has(msg, "flush")) {
      flushPending(msg.flush);
      done();
    }
    if (c.delay_ms >= 1000) count(pending.length);
  };

  // ----- rate limit, all messages -----
  const sendFromBuffer = () => {
    if (buffer.length === 0) stopInterval();
    if (buffer.length > 0) {
      const held = buffer.shift()!;
      if (Object.keys(held.msg).length > 1) {
        held.send(held.msg);
        held.done();
      }
    }
    reportDepth();
  };
  const newRate = (msg: Message) => (c.allow_rate_override && has(msg, "rate") && !Number.isNaN(toNumber(msg.rate)) ? toNumber(msg.rate) : undefined);

  const rateInput = (msg: Message, send: Send, done: Done) => {
    if (!c.drop) {
      const m: Message = { ...msg };
      delete m.flush;
      if (Object.keys(m).length > 1) {
        if (intervalId) {
          const r = newRate(m);
          if (r !== undefined && r !== rate) {
            rate = r;
            stopInterval();
            intervalId = every(sendFromBuffer, rate);
          }
          if (buffer.length >= c.max_queue) {
            for (const held of buffer) held.done();
            buffer = [];
            done(new Error(TOO_MANY));
          } else if (msg.toFront === true) {
            buffer.unshift({ msg: m, send, done });
            reportDepth();
          } else {
            buffer.push({ msg: m, send, done });
            reportDepth();
          }
        } else {
          const r = newRate(m);
          if (r !== undefined) rate = r;
          if (has(msg, "reset")) {
            if (has(msg, "flush")) buffer.push({ msg: m, send, done });
          } else send(m);
          reportDepth();
          intervalId = every(sendFromBuffer, rate);
          done();
        }
      }
      if (has(msg, "flush")) {
        let len = buffer.length;
        if (typeof msg.flush === "number") len = Math.min(Math.floor(msg.flush), len);
        if (len === 0) stopInterval();
        else {
          while (len > 0) {
            const held = buffer.shift()!;
            delete held.msg.flush;
            delete held.msg.reset;
            if (Object.keys(held.msg).length > 1) {
              ctx.send(held.msg);
              held.done();
            }
            len--;
          }
          stopInterval();
          intervalId = every(sendFromBuffer, rate);
        }
        count(buffer.length);
        done();
      }
    } else if (!has(msg, "reset")) {
      const r = newRate(msg);
      if (r !== undefined) rate = r;
      const now = performance.now();
      if (lastSent === undefined || now - lastSent > rate) {
        lastSent = now;
        send(msg);
      } else if (c.outputs === 2) send([null, msg]);
      done();
    }
    if (has(msg, "reset")) {
      if (msg.flush === undefined) {
        stopInterval();
        lastSent = undefined;
      }
      // As Node-RED: the cleared messages are dropped without their done (no complete node fires).
      buffer = [];
      rate = fixedRate;
      count(0, "ring");
      done();
    }
  };

  // ----- rate limit per topic -----
  const topicTick = () => {
    if (c.mode === "rate_each_topic") {
      const held = buffer.shift();
      if (held) {
        held.send(held.msg);
        held.done();
      }
    } else {
      while (buffer.length > 0) {
        const held = buffer.shift()!;
        held.send(held.msg);
        held.done();
      }
    }
    reportDepth();
  };

  const topicInput = (msg: Message, send: Send, done: Done) => {
    const r = newRate(msg);
    if (r !== undefined && r !== rate) {
      rate = r;
      // As Node-RED 4.1 does: a changed rate switches the timer to the all-messages release.
      stopInterval();
      intervalId = every(sendFromBuffer, rate);
    }
    if (!has(msg, "topic")) msg.topic = "_none_";
    const same = buffer.findIndex((held) => held.msg.topic === msg.topic);
    if (same !== -1) {
      if (c.outputs === 2) send([null, buffer[same]!.msg]);
      buffer[same]!.done();
      buffer[same] = { msg, send, done };
    } else {
      if (buffer.length >= c.max_queue) {
        for (const held of buffer) held.done();
        buffer = [];
        done(new Error(TOO_MANY));
        return;
      }
      buffer.push({ msg, send, done });
      reportDepth();
    }
    if (has(msg, "flush")) {
      let len = typeof msg.flush === "number" ? Math.floor(msg.flush) : buffer.length;
      while (len > 0 && buffer.length > 0) {
        const held = buffer.shift()!;
        delete held.msg.flush;
        delete held.msg.reset;
        if (Object.keys(held.msg).length > 2) {
          ctx.send(held.msg);
          held.done();
        }
        len--;
      }
      ctx.status(null);
      done();
    }
    if (has(msg, "reset")) {
      for (const held of buffer) held.done();
      buffer = [];
      rate = fixedRate;
      ctx.status({ fill: "blue", shape: "ring", text: "reset" });
      done();
    }
  };

  if (c.mode === "rate_each_topic" || c.mode === "rate_all_topics") intervalId = every(topicTick, rate);

  const inputs: Record<DelayConfig["mode"], (msg: Message, send: Send, done: Done) => void> = {
    delay: delayInput,
    variable: variableInput,
    random: randomInput,
    rate: rateInput,
    rate_each_topic: topicInput,
    rate_all_topics: topicInput,
  };
  const input = inputs[c.mode];

  return {
    input(msg, send, done) {
      input(msg, send, done);
    },
    close() {
      for (const p of pending) p.clear();
      pending = [];
      stopInterval();
      if (depthTimer) clearTimeout(depthTimer);
      for (const held of buffer) held.done();
      buffer = [];
    },
  };
});
