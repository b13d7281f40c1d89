import { defineBehaviour } from "../types";
import type { Message } from "../../runtime/types";
import { compileJsonata } from "../../runtime/jsonata";
import { getProperty } from "../../runtime/properties";
import { jsonataBindings, prepareOperand, type OperandType, type PreparedOperand } from "../../runtime/operands";
import { compileRegexTest, type RegexTest } from "../../runtime/regex";
import { inOrder } from "../../runtime/in-order";
// How many messages of incomplete sequences a node holds at most, as join, batch and sort (Node-RED: unbounded by default).
import { MAX_HELD_MESSAGES } from "../sequence-support";
import { type SwitchRule, switchNode } from "./definition";

type Parts = { id?: unknown; index?: number; count?: number };

export { MAX_HELD_MESSAGES };

const isBuffer = (a: unknown) => Buffer.isBuffer(a) || a instanceof Uint8Array;

function isEmpty(a: unknown): boolean | undefined {
  if (typeof a === "string" || Array.isArray(a) || isBuffer(a)) return (a as { length: number }).length === 0;
  if (typeof a === "object" && a !== null) return Object.keys(a).length === 0;
  return undefined;
}

function isType(a: unknown, type: string): boolean {
  if (type === "array") return Array.isArray(a);
  if (type === "buffer") return isBuffer(a);
  if (type === "json") {
    try {
      JSON.parse(String(a));
      return true;
    } catch {
      return false;
    }
  }
  if (type === "null") return a === null;
  if (type === "number") return typeof a === "number" && !Number.isNaN(a);
  return typeof a === type && !Array.isArray(a) && !isBuffer(a) && a !== null;
}

function partsOf(msg: Message): Parts {
  const parts = msg.parts as Parts | undefined;
  if (parts === null || typeof parts !== "object") throw new Error("the rule needs msg.parts (a message of a sequence)");
  return parts;
}

// Node-RED's operators, with JavaScript's own comparisons ("5" == 5, "10" < "9" as strings).
type Num = number;
const OPERATORS: Record<string, (a: unknown, b: unknown, c: unknown, msg: Message, regex?: RegexTest) => boolean> = {
  eq: (a, b) => a == b,
  neq: (a, b) => a != b,
  lt: (a, b) => (a as Num) < (b as Num),
  lte: (a, b) => (a as Num) <= (b as Num),
  gt: (a, b) => (a as Num) > (b as Num),
  gte: (a, b) => (a as Num) >= (b as Num),
  btwn: (a, b, c) => ((a as Num) >= (b as Num) && (a as Num) <= (c as Num)) || ((a as Num) <= (b as Num) && (a as Num) >= (c as Num)),
  cont: (a, b) => String(a).includes(String(b)),
  regex: (a, _b, _c, _msg, regex) => regex!.test(String(a)),
  true: (a) => a === true,
  false: (a) => a === false,
  null: (a) => a === undefined || a === null,
  nnull: (a) => a !== undefined && a !== null,
  empty: (a) => isEmpty(a) === true,
  nempty: (a) => isEmpty(a) === false,
  istype: (a, b) => isType(a, String(b)),
  head: (_a, b, _c, msg) => (partsOf(msg).index as Num) < Number(b),
  tail: (_a, b, _c, msg) => (partsOf(msg).count as Num) - Number(b) <= (partsOf(msg).index as Num),
  index: (_a, b, c, msg) => Number(b) <= (partsOf(msg).index as Num) && (partsOf(msg).index as Num) <= Number(c),
  hask: (a, b) => a !== undefined && a !== null && typeof b !== "object" && Object.prototype.hasOwnProperty.call(Object(a), String(b)),
  jsonata_exp: (_a, b) => b === true,
  else: (a) => a === true,
};

class SwitchError extends Error {}
class PropertyError extends Error {}

type Maybe<T> = T | Promise<T>;
/** Runs `next` on a value now, or once it is there: the synchronous path stays synchronous. */
const chain = <T, U>(value: Maybe<T>, next: (v: T) => Maybe<U>): Maybe<U> => (value instanceof Promise ? value.then(next) : next(value));

/**
 * Node-RED 4.1's switch: one output per rule, "else" when no rule since the previous else matched,
 * check_all off stops at the first match. Each output of a matching message gets its own copy (the
 * engine clones every delivery of one object but the first).
 * Messages are handled one at a time, in order, as Node-RED's queue does. With repair (or a tail rule) whole
 * sequences are held until complete; repair sends each output's messages as a new sequence.
 */
export const switchBehaviour = defineBehaviour(switchNode, (ctx, c) => {
  // Parsed again so that a config saved before property_type and repair existed reads with their defaults.
  const rules = c.rules as SwitchRule[];
  const prepare = (value: string | undefined, type: string | undefined): PreparedOperand | "prev" | undefined =>
    type === undefined ? undefined : type === "prev" ? "prev" : prepareOperand({ value: value ?? "", type: type as OperandType });
  const compiled = rules.map((rule) => ({
    rule,
    v: rule.t === "regex" || rule.t === "istype" || rule.t === "jsonata_exp" ? undefined : prepare(rule.v, rule.v_type),
    v2: prepare(rule.v2, rule.v2_type),
    regex: rule.t === "regex" ? compileRegexTest(rule.v ?? "", { caseInsensitive: rule.case_insensitive === true }) : undefined,
    expression: rule.t === "jsonata_exp" ? compileJsonata(rule.v ?? "") : undefined,
  }));
  const property = c.property_type === "msg" ? undefined : prepareOperand({ value: c.property, type: c.property_type });
  const needsCount = c.repair || rules.some((r) => r.t === "tail");
  let previousValue: unknown = null;

  const anyAsync = property?.async === true || compiled.some((r) => r.expression !== undefined || (typeof r.v === "object" && r.v.async) || (typeof r.v2 === "object" && r.v2.async));

  const invalid = (promise: Promise<unknown>) =>
    promise.catch((err: unknown) => {
      throw new SwitchError(`Invalid expression: ${err instanceof Error ? err.message : String(err)}`);
    });

  /** An operand's value: synchronous unless it is JSONata. A literal that fails reads as undefined (Node-RED). */
  const operand = (prepared: PreparedOperand | "prev" | undefined, msg: Message): Maybe<unknown> => {
    if (prepared === undefined) return undefined;
    if (prepared === "prev") return previousValue;
    if (prepared.async) return invalid(prepared.evaluate(ctx, msg) as Promise<unknown>);
    try {
      return prepared.evaluate(ctx, msg);
    } catch {
      return undefined;
    }
  };

  /** The messages per output for one message (null: not on that output). */
  const applyRules = (msg: Message, value: unknown, hasParts: boolean): Maybe<Array<Message | null>> => {
    const onward: Array<Message | null> = [];
    let elseFlag = true;
    const step = (i: number): Maybe<Array<Message | null>> => {
      const r = compiled[i];
      if (!r) return onward;
      let v1: Maybe<unknown>;
      if (r.expression) {
        const parts = msg.parts as Parts;
        v1 = invalid(r.expression.evaluate(msg, { ...jsonataBindings(ctx), ...(hasParts ? { I: parts.index, N: parts.count } : {}) }));
      } else v1 = operand(r.v, msg);
      return chain(v1, (a) =>
        chain(operand(r.v2, msg), (b) => {
          let tested = value;
          if (r.rule.t === "else") {
            tested = elseFlag;
            elseFlag = true;
          }
          if (OPERATORS[r.rule.t]!(tested, r.rule.t === "istype" ? r.rule.v : a, b, msg, r.regex)) {
            onward.push(msg);
            elseFlag = false;
            if (!c.check_all) return onward;
          } else onward.push(null);
          return step(i + 1);
        }),
      );
    };
    return step(0);
  };

  // Sequences held for repair/tail (by parts.id), and the outputs of sequences being recreated.
  let held = 0;
  let pendingIn = new Map<unknown, { count: number | undefined; msgs: Message[] }>();
  let pendingOut = new Map<unknown, Array<Array<Message | null>>>();
  const clearPending = () => {
    held = 0;
    pendingIn = new Map();
    pendingOut = new Map();
  };
  const overflow = (msg: Message) => {
    if (held <= MAX_HELD_MESSAGES) return;
    clearPending();
    ctx.log.error(new Error(`too many messages held (more than ${MAX_HELD_MESSAGES}) waiting for complete sequences`), msg);
  };

  const sendGroup = (onwards: Array<Array<Message | null>>, ports: number) => {
    const counts = new Array<number>(ports).fill(0);
    for (const onward of onwards) for (let j = 0; j < ports; j++) counts[j]! += onward[j] ? 1 : 0;
    const ids = Array.from({ length: ports }, () => ctx.newMessageId());
    const indexes = new Array<number>(ports).fill(0);
    for (const onward of onwards) {
      const out: Array<Message | null> = [];
      for (let j = 0; j < ports; j++) {
        const msg = onward[j];
        if (!msg) {
          out.push(null);
          continue;
        }
        const copy = structuredClone(msg);
        copy.parts = { ...(copy.parts as Parts), id: ids[j], index: indexes[j]!++, count: counts[j] };
        out.push(copy);
      }
      ctx.send(out);
    }
  };

  const sendGroupMessages = (onward: Array<Message | null>, msg: Message) => {
    const parts = msg.parts as Parts;
    const group = pendingOut.get(parts.id) ?? [];
    pendingOut.set(parts.id, group);
    group.push(onward);
    held++;
    if (group.length === parts.count) {
      sendGroup(group, onward.length);
      held -= group.length;
      pendingOut.delete(parts.id);
    }
    overflow(msg);
  };

  const processMessage = (msg: Message, checkParts: boolean, send: (v: Array<Message | null>) => void): Maybe<void> => {
    const parts = msg.parts as Parts | undefined;
    const hasParts = parts !== null && typeof parts === "object" && "id" in parts && "index" in parts;
    if (needsCount && checkParts && hasParts) {
      const group = pendingIn.get(parts.id) ?? { count: undefined, msgs: [] };
      pendingIn.set(parts.id, group);
      group.msgs.push(msg);
      held++;
      if (typeof parts.count === "number") group.count = parts.count;
      overflow(msg);
      if (group.count !== group.msgs.length) return;
      pendingIn.delete(parts.id);
      held -= group.msgs.length;
      const drain = (k: number): Maybe<void> => {
        const m = group.msgs[k];
        if (!m) return;
        (m.parts as Parts).count = group.count;
        return chain(processMessage(m, false, send), () => drain(k + 1));
      };
      return drain(0);
    }
    let value: Maybe<unknown>;
    if (property === undefined) value = getProperty(msg, c.property.startsWith("msg.") ? c.property.slice(4) : c.property);
    else value = property.async ? (property.evaluate(ctx, msg) as Promise<unknown>).catch((err: unknown) => Promise.reject(new PropertyError(err instanceof Error ? err.message : String(err)))) : operand(property, msg);
    return chain(value, (v) =>
      chain(applyRules(msg, v, hasParts), (onward) => {
        previousValue = v;
        if (!c.repair || !hasParts) send(onward);
        else sendGroupMessages(onward, msg);
      }),
    );
  };

  /** Node-RED: a property that cannot be evaluated is a warning, a rule that fails an error; nothing is sent. */
  const report = (err: unknown, msg: Message) => {
    if (err instanceof PropertyError) ctx.log.warn(err.message);
    else ctx.log.error(err, msg);
  };

  const queue = inOrder();
  return {
    input(msg, send, done) {
      if (!anyAsync) {
        // Nothing to wait for: the message is handled now, in order.
        try {
          void processMessage(msg, true, (v) => send(v));
        } catch (err) {
          report(err, msg);
        }
        done();
        return;
      }
      // One message at a time, in order (Node-RED's processMessageQueue): a message's rules see the
      // previous value the message before it left, even while an operand is being evaluated.
      return queue(async () => {
        try {
          await processMessage(msg, true, (v) => send(v));
        } catch (err) {
          report(err, msg);
        }
        done();
      });
    },
    close() {
      clearPending();
    },
  };
});
