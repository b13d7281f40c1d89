import { joinNode } from "./definition";
import { defineBehaviour } from "../types";
import type { NodeFactory, Done, Message, Send } from "../../runtime/types";
import { getProperty, setProperty } from "../../runtime/properties";
import { cloneMessage, MAX_HELD_MESSAGES, own, parseByteArray, partsOf, unescapeSeparator, type Parts } from "../sequence-support";
import type { JoinConfig } from "./definition";
import { compileJsonata, nodeJsonataBindings } from "../../runtime/jsonata";
import { prepareOperand } from "../../runtime/operands";

interface Group {
  currentCount: number;
  payload: unknown[] | Record<string, unknown> | Buffer;
  targetCount: number;
  type: string;
  msg: Message;
  send: Send;
  dones: Done[];
  joinChar?: unknown;
  arrayLen?: number;
  bufferLen?: number;
  prop?: string;
  timeout?: NodeJS.Timeout;
  /** Messages this group holds toward the node's bound. */
  held: number;
}

export const TOO_MANY = "too many pending messages in join node";

/**
 * Node-RED 4.1's join (17-split.js) in its automatic and manual modes, step for step: groups by
 * msg.parts.id (or one group), completes on the count, msg.complete or the timeout, and restores an
 * enclosing sequence's parts.
 */
export const joinBehaviour = defineBehaviour(joinNode, (ctx, c) => {
  if (c.mode === "reduce") return reduceBehaviour(ctx, c);
  const auto = c.mode === "auto";
  const full = c.property_type === "full";
  const property = full ? "payload" : c.property;
  const timer = auto ? 0 : c.timeout_seconds * 1000;
  // A string joiner naming a variable (${NAME}) is read each time a group starts.
  const variableJoiner = c.joiner_type === "str" && c.joiner.includes("${");
  const fixedJoiner: string | Buffer = c.joiner_type === "bin" ? Buffer.from(parseByteArray(c.joiner || "[]")) : unescapeSeparator(c.joiner);
  const joinerNow = () => (variableJoiner ? unescapeSeparator(ctx.env.substitute(c.joiner)) : fixedJoiner);
  let inflight = new Map<string, Group>();
  let held = 0;

  const completeSend = (partId: string) => {
    const group = inflight.get(partId);
    if (!group) return;
    if (group.timeout) clearTimeout(group.timeout);
    const kept = !(auto || !c.accumulate || own(group.msg, "complete"));
    if (!kept) inflight.delete(partId);
    held -= group.held;
    group.held = 0;
    if (group.type === "array" && (group.arrayLen ?? 0) > 1) {
      group.payload = ([] as unknown[]).concat(...(group.payload as unknown[]));
    } else if (group.type === "buffer") {
      const items = group.payload as unknown[];
      let buffers: Buffer[] = [];
      let length = 0;
      if (group.joinChar !== undefined) {
        const joinBuffer = Buffer.from(group.joinChar as string);
        items.forEach((item, i) => {
          if (i > 0) {
            buffers.push(joinBuffer);
            length += joinBuffer.length;
          }
          const b = Buffer.isBuffer(item) ? item : Buffer.from(item as string);
          buffers.push(b);
          length += b.length;
        });
      } else {
        length = group.bufferLen ?? 0;
        buffers = items.map((item) => (Buffer.isBuffer(item) ? item : Buffer.from(item as string)));
      }
      group.payload = Buffer.concat(buffers, length);
    }
    const target = group.prop || "payload";
    if (group.type === "string") {
      // As Node-RED: a join character that is not a string (bytes from a split) joins as its toString().
      const joinChar = typeof group.joinChar === "string" ? group.joinChar : (group.joinChar as { toString(): string }).toString();
      setProperty(group.msg, target, (group.payload as unknown[]).join(joinChar));
    } else {
      if (full) group.msg = cloneMessage(group.msg);
      setProperty(group.msg, target, group.payload);
    }
    const parts = partsOf(group.msg);
    if (parts && own(parts, "parts")) group.msg.parts = parts.parts;
    else delete group.msg.parts;
    delete group.msg.complete;
    // A group that stays (accumulate) keeps changing: what leaves is a copy.
    group.send(kept ? cloneMessage(group.msg) : group.msg);
    const dones = group.dones;
    group.dones = [];
    dones.forEach((d) => d());
  };

  const dropAll = () => {
    for (const group of inflight.values()) {
      if (group.timeout) clearTimeout(group.timeout);
      group.dones.forEach((d) => d());
    }
    inflight = new Map();
    held = 0;
  };

  return {
    input(msg, send, done) {
      try {
        let value: unknown = full ? msg : getProperty(msg, property);
        let partId = "_";
        const incomingParts = partsOf(msg);
        if (auto && (!incomingParts || !own(incomingParts, "id"))) {
          if (own(msg, "reset")) dropAll();
          else ctx.log.warn("Message missing msg.parts property - cannot join in 'auto' mode");
          return done();
        }
        if (!auto && incomingParts && !c.use_parts) {
          if (own(incomingParts, "parts")) msg.parts = { parts: incomingParts.parts };
          else delete msg.parts;
        }
        let payloadType: string;
        let targetCount: number;
        let joinChar: unknown;
        let propertyKey: unknown;
        let arrayLen: number | undefined;
        let propertyIndex: unknown;
        if (auto) {
          const parts = incomingParts!;
          partId = String(parts.id);
          payloadType = parts.type as string;
          targetCount = parts.count as number;
          joinChar = parts.ch;
          propertyKey = parts.key;
          arrayLen = parts.len;
          propertyIndex = parts.index;
          value = getProperty(msg, parts.property || "payload");
        } else {
          payloadType = c.build;
          targetCount = c.count ?? 0;
          joinChar = joinerNow();
          const parts = partsOf(msg);
          if (c.count === null && parts) {
            targetCount = parts.count || 0;
            if (own(parts, "id")) partId = String(parts.id);
          }
          if (c.build === "object") propertyKey = getProperty(msg, c.key);
        }

        if (own(msg, "restartTimeout")) {
          const group = inflight.get(partId);
          if (group) {
            if (group.timeout) clearTimeout(group.timeout);
            if (timer > 0) group.timeout = setTimeout(() => completeSend(partId), timer);
          }
        }
        if (own(msg, "reset")) {
          const group = inflight.get(partId);
          if (group) {
            if (group.timeout) clearTimeout(group.timeout);
            group.dones.forEach((d) => d());
            held -= group.held;
            inflight.delete(partId);
          }
          return done();
        }
        if (payloadType === "object" && (propertyKey === null || propertyKey === undefined || propertyKey === "")) {
          if (auto) ctx.log.warn("Message missing 'msg.parts.key' property - cannot add to object");
          else if (own(msg, "complete")) {
            const group = inflight.get(partId);
            if (group) {
              group.msg.complete = msg.complete;
              group.send = send;
              completeSend(partId);
            }
          } else ctx.log.warn(`Message missing key property 'msg.${c.key}' - cannot add to object`);
          return done();
        }

        let group = inflight.get(partId);
        if (!group) {
          const objectLike = payloadType === "object" || payloadType === "merged";
          group = {
            currentCount: 0,
            payload: objectLike ? {} : [],
            targetCount,
            type: objectLike ? "object" : payloadType,
            msg: cloneMessage(msg),
            send,
            dones: [],
            held: 0,
          };
          if (payloadType === "string") group.joinChar = joinChar;
          else if (payloadType === "array") group.arrayLen = arrayLen;
          else if (payloadType === "buffer") {
            group.bufferLen = 0;
            group.joinChar = joinChar;
          }
          if (timer > 0) group.timeout = setTimeout(() => completeSend(partId), timer);
          group.prop = auto ? incomingParts!.property : property;
          inflight.set(partId, group);
        }
        if (++held > MAX_HELD_MESSAGES) {
          // Every message held is let go; the one that overflowed carries the error.
          dropAll();
          return done(new Error(TOO_MANY));
        }
        group.dones.push(done);
        group.held++;

        if (payloadType === "buffer" && value !== undefined) {
          if (value instanceof Uint8Array || typeof value === "string" || Array.isArray(value)) group.bufferLen! += value.length;
          else return done(new Error(`Cannot join ${typeof value} to buffer`));
        }
        if (payloadType === "object") {
          const payload = group.payload as Record<string, unknown>;
          payload[String(propertyKey)] = value;
          group.currentCount = Object.keys(payload).length;
        } else if (payloadType === "merged") {
          if (Array.isArray(value) || value === null || typeof value !== "object") {
            if (!own(msg, "complete")) ctx.log.warn("Cannot merge non-object types");
          } else {
            const payload = group.payload as Record<string, unknown>;
            for (const key of Object.keys(value)) {
              if (key !== "_msgid" && key !== "__proto__") payload[key] = (value as Record<string, unknown>)[key];
            }
            group.currentCount = Object.keys(payload).length;
          }
        } else {
          const payload = group.payload as unknown[];
          // isNaN(undefined) is true in Node-RED's check: manual mode appends.
          if (!Number.isNaN(Number(propertyIndex))) {
            const index = Number(propertyIndex);
            if (payload[index] == undefined) group.currentCount++;
            payload[index] = value;
          } else if (value !== undefined) {
            payload.push(value);
            group.currentCount++;
          }
        }
        Object.assign(group.msg, msg);
        group.send = send;
        let count = group.targetCount;
        const parts = partsOf(msg);
        if (own(msg, "parts")) {
          count = group.targetCount || (parts?.count as number);
          group.targetCount = count;
        }
        if ((count > 0 && group.currentCount >= count) || own(msg, "complete")) completeSend(partId);
      } catch (err) {
        done(err);
      }
    },
    close() {
      dropAll();
    },
  };
});

interface Held {
  msg: Message;
  send: Send;
  done: Done;
}

/**
 * Node-RED 4.1's join in reduce mode: messages are handled strictly one after another (the JSONata
 * evaluations are asynchronous), grouped by msg.parts.id; a complete group is reduced in index order
 * (or reversed), fixed up, and its last message leaves with the result as payload.
 */
const reduceBehaviour: NodeFactory<JoinConfig> = (ctx, c) => {
  const reduce = compileJsonata(c.reduce_expression);
  const fixup = c.reduce_fixup.trim() === "" ? undefined : compileJsonata(c.reduce_fixup);
  const init = prepareOperand({ value: c.reduce_init, type: c.reduce_init_type });
  const flag = c.reduce_right ? -1 : 1;
  let pending = new Map<string, { count?: number; held: Held[] }>();
  let pendingCount = 0;
  const queue: Held[] = [];
  let active = false;
  let closed = false;

  const reduceGroup = async (group: { count?: number; held: Held[] }) => {
    const bindings = nodeJsonataBindings(ctx);
    let accumulated = await init.evaluate(ctx, { _msgid: "" });
    const ordered = [...group.held].sort((x, y) => {
      const ix = (x.msg.parts as Parts).index;
      const iy = (y.msg.parts as Parts).index;
      return ix < iy ? -flag : ix > iy ? flag : 0;
    });
    for (const h of ordered) {
      accumulated = await reduce.evaluate(h.msg, { ...bindings, I: (h.msg.parts as Parts).index, N: group.count, A: accumulated });
    }
    if (fixup) accumulated = await fixup.evaluate({}, { ...bindings, N: group.count, A: accumulated });
    const last = ordered[ordered.length - 1]!;
    last.msg.payload = accumulated;
    if (!closed) last.send(last.msg);
  };

  /** One message; resolves with the error that message reports, if any. */
  const handle = async (item: Held): Promise<unknown> => {
    const parts = partsOf(item.msg);
    if (!parts) {
      item.send(item.msg);
      return undefined;
    }
    const gid = String(parts.id);
    let group = pending.get(gid);
    if (!group) pending.set(gid, (group = { count: own(parts, "count") ? (parts.count as number) : undefined, held: [] }));
    if (own(parts, "count") && group.count === undefined) group.count = parts.count as number;
    group.held.push(item);
    pendingCount++;
    let failure: unknown;
    if (group.held.length === group.count) {
      pending.delete(gid);
      pendingCount -= group.held.length;
      try {
        await reduceGroup(group);
      } catch (err) {
        failure = err;
      }
      // The others are done; the message that completed the group carries any error.
      for (const h of group.held) if (h !== item) h.done();
      if (failure) return failure;
    }
    if (pendingCount > MAX_HELD_MESSAGES) {
      for (const g of pending.values()) for (const h of g.held) if (h !== item) h.done();
      pending = new Map();
      pendingCount = 0;
      return new Error(TOO_MANY);
    }
    return group.held.includes(item) && pending.get(gid) === group ? "held" : undefined;
  };

  const next = () => {
    const item = queue.shift();
    if (!item || closed) {
      active = false;
      return;
    }
    active = true;
    handle(item).then(
      (outcome) => {
        if (outcome === "held") return next();
        if (outcome) item.done(outcome);
        else item.done();
        next();
      },
      (err: unknown) => {
        item.done(err);
        next();
      },
    );
  };

  return {
    input(msg, send, done) {
      queue.push({ msg, send, done });
      if (!active) next();
    },
    close() {
      closed = true;
      for (const g of pending.values()) g.held.forEach((h) => h.done());
      queue.splice(0).forEach((h) => h.done());
      pending = new Map();
      pendingCount = 0;
    },
  };
};
