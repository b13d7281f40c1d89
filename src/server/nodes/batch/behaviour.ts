import { batchNode } from "./definition";
import { defineBehaviour } from "../types";
import type { Done, Message, Send } from "../../runtime/types";
import { cloneMessage, MAX_HELD_MESSAGES, own, partsOf, type Parts } from "../sequence-support";

interface Held {
  msg: Message;
  send: Send;
  done: Done;
}

export const TOO_MANY = "too many pending messages in batch node";
export const NO_PARTS = "no parts property in message";

/** Node-RED's send_msgs: one sequence, its id the first message's _msgid. */
function sendSequence(held: Held[], copy: boolean) {
  const count = held.length;
  const id = held[0]!.msg._msgid;
  for (let i = 0; i < count; i++) {
    const msg = copy ? cloneMessage(held[i]!.msg) : held[i]!.msg;
    if (!own(msg, "parts") || msg.parts === null || typeof msg.parts !== "object") msg.parts = {};
    const parts = msg.parts as Parts;
    parts.id = id;
    parts.index = i;
    parts.count = count;
    held[i]!.send(msg);
  }
}

/** Node-RED 4.1's batch (19-batch.js): count (with overlap), interval and concat modes. */
export const batchBehaviour = defineBehaviour(batchNode, (ctx, c) => {

  if (c.mode === "count") {
    let pending: Held[] = [];
    let endOfSequence = false;
    return {
      input(msg, send, done) {
        if (own(msg, "reset")) {
          pending.forEach((h) => h.done());
          pending = [];
          return done();
        }
        const parts = partsOf(msg);
        if (c.honour_parts && parts && parts.index + 1 === parts.count) endOfSequence = true;
        pending.push({ msg, send, done });
        if (pending.length === c.count || endOfSequence) {
          const queue = pending;
          sendSequence(queue, c.overlap > 0);
          for (let i = 0; i < queue.length - c.overlap; i++) queue[i]!.done();
          pending = c.overlap === 0 ? [] : queue.slice(-c.overlap);
          endOfSequence = false;
        }
      },
      close() {
        pending.forEach((h) => h.done());
        pending = [];
      },
    };
  }

  if (c.mode === "interval") {
    let pending: Held[] = [];
    const interval = c.interval_seconds * 1000;
    const flush = () => {
      if (pending.length > 0) {
        const queue = pending;
        pending = [];
        sendSequence(queue, false);
        queue.forEach((h) => h.done());
      } else if (c.allow_empty_sequence && !ctx.busy()) {
        // An empty sequence starts a message of the node's own: skipped while the flow is busy, as inject's timers.
        ctx.send({ _msgid: ctx.newMessageId(), payload: null, parts: { id: ctx.newMessageId(), index: 0, count: 1 } });
      }
    };
    let timer: NodeJS.Timeout | undefined = setInterval(flush, interval);
    return {
      input(msg, send, done) {
        if (own(msg, "reset")) {
          clearInterval(timer);
          pending.forEach((h) => h.done());
          pending = [];
          done();
          timer = setInterval(flush, interval);
          return;
        }
        pending.push({ msg, send, done });
        if (pending.length > MAX_HELD_MESSAGES) {
          const last = pending.pop()!;
          pending.forEach((h) => h.done());
          pending = [];
          last.done(new Error(TOO_MANY));
        }
      },
      close() {
        clearInterval(timer);
        timer = undefined;
        pending.forEach((h) => h.done());
        pending = [];
      },
    };
  }

  // concat: per topic, the sequences in order of arrival; a concatenation waits for the first
  // sequence of every configured topic to be complete.
  let pending = new Map<string, { groups: Map<string, { msgs: Held[]; count?: number }>; order: string[] }>();
  let held = 0;
  const dropAll = () => {
    for (const topic of pending.values()) for (const group of topic.groups.values()) group.msgs.forEach((h) => h.done());
    pending = new Map();
    held = 0;
  };
  const firstGroup = (topic: string) => {
    const t = pending.get(topic);
    const gid = t?.order[0];
    return gid === undefined ? undefined : t!.groups.get(gid);
  };
  const tryConcat = () => {
    for (const topic of c.topics) {
      const group = firstGroup(topic);
      if (!group || group.count !== group.msgs.length) return;
    }
    let all: Held[] = [];
    for (const topic of c.topics) all = all.concat(firstGroup(topic)!.msgs);
    for (const topic of c.topics) {
      const t = pending.get(topic)!;
      const gid = t.order.shift();
      if (gid === undefined) continue;
      held -= t.groups.get(gid)!.msgs.length;
      t.groups.delete(gid);
    }
    sendSequence(all, true);
    all.forEach((h) => h.done());
  };
  return {
    input(msg, send, done) {
      if (own(msg, "reset")) {
        dropAll();
        return done();
      }
      const topic = msg.topic;
      if (typeof topic !== "string" || !c.topics.includes(topic)) return done();
      const parts = partsOf(msg);
      if (!parts || !own(parts, "id") || !own(parts, "index") || !own(parts, "count")) return done(new Error(NO_PARTS));
      if (held + 1 > MAX_HELD_MESSAGES) {
        dropAll();
        return done(new Error(TOO_MANY));
      }
      let t = pending.get(topic);
      if (!t) pending.set(topic, (t = { groups: new Map(), order: [] }));
      let group = t.groups.get(parts.id);
      if (!group) {
        t.groups.set(parts.id, (group = { msgs: [] }));
        t.order.push(parts.id);
      }
      group.msgs.push({ msg, send, done });
      held++;
      if (group.count === undefined) group.count = parts.count;
      tryConcat();
    },
    close() {
      dropAll();
    },
  };
});
