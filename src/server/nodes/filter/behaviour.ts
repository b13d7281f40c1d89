import { filterNode } from "./definition";
import { defineBehaviour } from "../types";
import { getProperty } from "../../runtime/properties";
import { cloneValue, MAX_TOPICS, own } from "../sequence-support";

/** Node-RED's RED.util.compareObjects: deep equality of message values (arrays, Buffers, objects). */
export function compareObjects(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a == null || b == null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => compareObjects(x, b[i]));
  if (Buffer.isBuffer(a) !== Buffer.isBuffer(b)) return false;
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  if (typeof a !== "object" || typeof b !== "object") return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => compareObjects((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Node-RED 4.1's rbe (function/rbe.js), mode for mode. */
export const filterBehaviour = defineBehaviour(filterNode, (ctx, c) => {
  const func = c.mode;
  let previous = new Map<string, unknown>();
  /** Stores a topic's value; past MAX_TOPICS, the topic stored longest ago is forgotten. */
  const remember = (t: string, value: unknown) => {
    if (!previous.has(t) && previous.size >= MAX_TOPICS) previous.delete(previous.keys().next().value!);
    previous.set(t, value);
  };

  return {
    input(msg, send, done) {
      const topic = getProperty(msg, c.topic_property);
      if (own(msg, "reset")) {
        // As Node-RED: the key deleted is msg.topic, whatever the topic property is.
        if (c.per_topic && typeof topic === "string" && topic !== "") previous.delete(msg.topic as string);
        else previous = new Map();
      }
      const value = getProperty(msg, c.property);
      if (value === undefined) return done();
      const t = c.per_topic && topic ? String(topic) : "_no_topic";
      if (func === "rbe" || func === "rbei") {
        const doSend = func !== "rbei" || previous.has(t);
        if (typeof value === "object") {
          if (typeof previous.get(t) !== "object") remember(t, {});
          if (!compareObjects(value, previous.get(t))) {
            remember(t, cloneValue(value));
            if (doSend) send(msg);
          }
        } else if (value !== previous.get(t)) {
          remember(t, value);
          if (doSend) send(msg);
        }
        return done();
      }
      const n = Number.parseFloat(value as string);
      if (Number.isNaN(n)) {
        ctx.log.warn("no number found in payload");
        return done();
      }
      if (!previous.has(t) && (func === "narrowband" || func === "narrowbandEq")) remember(t, c.start === null ? n : c.start);
      let gap = c.gap;
      if (c.gap_is_percent) gap = Math.abs(((previous.get(t) as number) * c.gap) / 100) || 0;
      if (!previous.has(t) && func === "narrowbandEq") remember(t, n);
      if (!previous.has(t)) remember(t, n - gap - 1);
      const difference = Math.abs(n - (previous.get(t) as number));
      if (difference === gap) {
        if (func === "deadbandEq" || func === "narrowband") {
          if (c.inout === "out") remember(t, n);
          send(msg);
        }
      } else if (difference > gap) {
        if (func === "deadband" || func === "deadbandEq") {
          if (c.inout === "out") remember(t, n);
          send(msg);
        }
      } else if (difference < gap) {
        if (func === "narrowband" || func === "narrowbandEq") {
          if (c.inout === "out") remember(t, n);
          send(msg);
        }
      }
      if (c.inout === "in") remember(t, n);
      done();
    },
  };
});
