import { linkCallNode } from "./definition";
import { defineBehaviour } from "../types";
import { randomBytes } from "node:crypto";
import type { Done, LinkSource, Message, Send } from "../../runtime/types";

interface Pending {
  /** The message as it came in, before its _linkSource entry: what the timeout error carries. */
  msg: Message;
  send: Send;
  done: Done;
  timer: NodeJS.Timeout;
  /** Ends the call's weight on the flow (LinkCall.end). */
  end: () => void;
}

/**
 * Node-RED's link call: pushes {id, node} on msg._linkSource, hands the message to the link-in
 * (wherever it runs) and waits for a link-out in "return" mode to hand it back (linkReturn).
 */
export const linkCallBehaviour = defineBehaviour(linkCallNode, (ctx, c) => {
  const pending = new Map<string, Pending>();
  const timeoutMs = c.timeout_seconds * 1000;

  const forget = (eventId: string) => {
    const entry = pending.get(eventId);
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    pending.delete(eventId);
    entry.end();
    return entry;
  };

  return {
    input(msg, send, done) {
      const dynamic = c.link_type === "dynamic";
      const raw = dynamic ? msg.target : c.links[0];
      const target = raw === undefined || raw === null ? "" : String(raw);
      // Node-RED reports these with node.error and never calls done: no complete node hears of them,
      // and the execution's step ends (as failed).
      const failNow = (err: Error) => {
        ctx.log.error(err, msg);
        done(undefined, { handled: err, noComplete: true });
      };
      if (target === "") {
        failNow(new Error("target link-in node '' not found"));
        return;
      }
      const original = msg._linkSource;
      if (original && !Array.isArray(original)) {
        failNow(new TypeError("msg._linkSource.push is not a function"));
        return;
      }
      // As Node-RED (msg._linkSource = msg._linkSource || []): the stack is created before the copy a
      // timeout reports, this call's entry pushed after.
      const stack = (Array.isArray(original) ? original : (msg._linkSource = [])) as LinkSource[];
      const before = structuredClone(msg);
      const eventId = randomBytes(14).toString("hex");
      const timer = setTimeout(() => {
        const entry = forget(eventId);
        if (!entry) return;
        ctx.log.error("timeout", entry.msg);
        // Node-RED never calls done here: no complete node hears of it; the execution's step ends.
        entry.done(undefined, { handled: "timeout", noComplete: true });
      }, timeoutMs);
      const entry: Pending = { msg: before, send, done, timer, end: () => undefined };
      pending.set(eventId, entry);
      stack.push({ id: eventId, node: ctx.node.id });
      const failed = (err: unknown) => {
        if (!forget(eventId)) return;
        // A target that cannot be found fails before Node-RED touches the message.
        if (original === undefined) delete before._linkSource;
        else if (!Array.isArray(original)) before._linkSource = original;
        ctx.log.error(err, before);
        done(undefined, { handled: err, noComplete: true });
      };
      try {
        const call = ctx.links.call(target, msg, { byName: dynamic });
        // Answered already (everything synchronous)? Then the call is over.
        if (pending.get(eventId) === entry) entry.end = call.end;
        else call.end();
        call.delivered?.catch(failed);
      } catch (err) {
        failed(err);
      }
    },
    linkReturn(eventId, msg) {
      if (Array.isArray(msg._linkSource) && msg._linkSource.length === 0) delete msg._linkSource;
      const entry = forget(eventId);
      if (entry) {
        entry.send(msg);
        entry.done();
      } else {
        // Node-RED sends a late answer (after its timeout) on all the same.
        ctx.send(msg);
      }
    },
    close() {
      for (const entry of pending.values()) {
        clearTimeout(entry.timer);
        entry.end();
      }
      pending.clear();
    },
  };
});
