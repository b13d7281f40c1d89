import { sortNode } from "./definition";
import { defineBehaviour } from "../types";
import type { Done, Message, Send } from "../../runtime/types";
import { getProperty } from "../../runtime/properties";
import { MAX_HELD_MESSAGES, own, partsOf, type Parts } from "../sequence-support";
import { compileJsonata, nodeJsonataBindings, type CompiledJsonata } from "../../runtime/jsonata";

interface Held {
  msg: Message;
  send: Send;
  done: Done;
}

export const TOO_MANY = "Too many pending messages in sort node";

const invalid = (err: unknown) => new Error(`Invalid JSONata expression in sort node: ${err instanceof Error ? err.message : String(err)}`);

/** Node-RED 4.1's sort (18-sort.js): a property's array, or a sequence of messages by a key. */
export const sortBehaviour = defineBehaviour(sortNode, (ctx, c) => {
  const dir = c.order === "ascending" ? 1 : -1;
  const conv = c.as_number ? (x: unknown) => Number(x) : (x: unknown) => x;
  const comparison =
    <T>(key: (item: T) => unknown) =>
    (x: T, y: T) => {
      const xp = conv(key(x)) as number;
      const yp = conv(key(y)) as number;
      if (xp === yp) return 0;
      if (xp > yp) return dir;
      return -dir;
    };

  const keyExpression: CompiledJsonata | undefined =
    c.target_type === "msg" ? (c.msg_key_type === "jsonata" ? compileJsonata(c.msg_key) : undefined) : c.seq_key_type === "jsonata" ? compileJsonata(c.seq_key) : undefined;
  const bySortValue = comparison((e: { sortValue: unknown }) => e.sortValue);
  /** Items paired with their evaluated keys, sorted (stable: equal keys keep their order). */
  const sortByExpression = async <T>(items: T[], input: (item: T) => unknown): Promise<T[]> => {
    const bindings = nodeJsonataBindings(ctx);
    const evaluated = await Promise.all(
      items.map(async (item) => {
        try {
          return { item, sortValue: await keyExpression!.evaluate(input(item), bindings) };
        } catch (err) {
          throw invalid(err);
        }
      }),
    );
    return evaluated.sort(bySortValue).map((e) => e.item);
  };

  if (c.target_type === "msg") {
    const byValue = comparison((e: unknown) => e);
    return {
      input(msg, send, done) {
        const data = getProperty(msg, c.target);
        if (!Array.isArray(data)) return done();
        if (!keyExpression) {
          data.sort(byValue);
          send(msg);
          return done();
        }
        return sortByExpression(data, (e) => e).then((sorted) => {
          data.splice(0, data.length, ...sorted);
          send(msg);
        });
      },
    };
  }

  let pending = new Map<string, { count?: number; held: Held[]; seq: number }>();
  let pendingCount = 0;
  let nextSeq = 0;
  const byKey = comparison((h: Held) => getProperty(h.msg, c.seq_key));

  const removeOldest = () => {
    let oldestKey: string | undefined;
    let oldestSeq = Infinity;
    for (const [key, group] of pending) {
      if (group.seq < oldestSeq) {
        oldestSeq = group.seq;
        oldestKey = key;
      }
    }
    if (oldestKey === undefined) return;
    const group = pending.get(oldestKey)!;
    pending.delete(oldestKey);
    pendingCount -= group.held.length;
    group.held[group.held.length - 1]!.done(new Error(TOO_MANY));
    group.held.slice(0, -1).forEach((h) => h.done());
  };

  return {
    input(msg, send, done) {
      const parts = partsOf(msg);
      if (!parts || !own(parts, "id") || !own(parts, "index")) return done();
      const gid = String(parts.id);
      let group = pending.get(gid);
      if (!group) pending.set(gid, (group = { held: [], seq: nextSeq++ }));
      group.held.push({ msg, send, done });
      if (own(parts, "count")) group.count = parts.count;
      pendingCount++;
      if (group.count === group.held.length) {
        pending.delete(gid);
        pendingCount -= group.held.length;
        const held = group.held;
        const emit = (sorted: Held[]) =>
          sorted.forEach((h, i) => {
            (h.msg.parts as Parts).index = i;
            h.send(h.msg);
            h.done();
          });
        if (!keyExpression) emit(held.sort(byKey));
        else {
          sortByExpression(held, (h) => h.msg).then(emit, (err: unknown) => {
            // As Node-RED: the last message reports the error, the others are just done.
            held[held.length - 1]!.done(err);
            held.slice(0, -1).forEach((h) => h.done());
          });
        }
      } else if (pendingCount > MAX_HELD_MESSAGES) removeOldest();
    },
    close() {
      for (const group of pending.values()) group.held.forEach((h) => h.done());
      pending = new Map();
      pendingCount = 0;
    },
  };
});
