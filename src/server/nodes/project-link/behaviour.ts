import { randomBytes } from "node:crypto";
import { projectLinkCallNode, projectLinkInNode, projectLinkOutNode } from "./definition";
import { defineBehaviour } from "../types";
import type { BuiltInMqtt, Done, Message, NodeContext, Send } from "../../runtime/types";
import { FLOWS_INSTANCE, decodeLinkMessage, encodeLinkMessage, linkTopic, senderProperties, withProjectLink } from "./link-topics";

/** One entry of msg.projectLink.callStack, as FlowFuse's project link call pushes it. */
interface CallEvent {
  eventId: string;
  node: string;
  project: string;
  instance: string;
  topic: string;
  response: string;
  ts: number;
  device?: string;
}

const CONNECTED = { fill: "green", shape: "dot", text: "connected" } as const;
const FAILED = (text: string) => ({ fill: "red", shape: "dot", text }) as const;
const NO_BROKER = "the built-in MQTT broker is not available on this server";

/** The broker, or the node's error and status when this server runs none. */
function brokerOf(ctx: NodeContext): BuiltInMqtt | undefined {
  const broker = ctx.services.builtInMqtt;
  if (!broker) {
    ctx.status(FAILED("error"));
    ctx.log.error(new Error(NO_BROKER));
  }
  return broker;
}

/** Publishes `msg` as FlowFuse's nodes do: QoS 2, JSON, who sent it in user properties. */
function publish(ctx: NodeContext, broker: BuiltInMqtt, topic: string, msg: Message, correlation?: string): Promise<void> {
  return broker.publish(ctx.organizationId, {
    topic,
    payload: encodeLinkMessage(msg),
    qos: 2,
    retain: false,
    properties: {
      contentType: "application/json",
      userProperties: senderProperties(ctx.node.id),
      ...(correlation !== undefined ? { correlationData: Buffer.from(correlation) } : {}),
    },
  });
}

/**
 * Subscribes the node on start; the status says whether it worked. Messages that do not decode are
 * the node's errors. Returns what close() calls.
 */
function subscribeNode(ctx: NodeContext, broker: BuiltInMqtt, filter: string, onMessage: (msg: Message, properties: Record<string, unknown> | undefined) => void) {
  let closed = false;
  const stop = broker
    .subscribe(ctx.organizationId, filter, { qos: 2 }, (m) => {
      if (closed) return;
      let msg: Message;
      try {
        msg = withProjectLink(decodeLinkMessage(m.payload), m.topic, m.properties);
      } catch (err) {
        ctx.log.error(err);
        return;
      }
      onMessage(msg, m.properties);
    })
    .then(
      (unsubscribe) => {
        if (!closed) ctx.status(CONNECTED);
        return unsubscribe;
      },
      (err: unknown) => {
        if (!closed) {
          ctx.status(FAILED("subscribe error"));
          ctx.log.error(err);
        }
        return undefined;
      },
    );
  return async () => {
    closed = true;
    const unsubscribe = await stop;
    await unsubscribe?.().catch(() => undefined);
  };
}

export const projectLinkInBehaviour = defineBehaviour(projectLinkInNode, (ctx, c) => {
  let close: (() => Promise<void>) | undefined;
  return {
    start() {
      const broker = brokerOf(ctx);
      if (!broker) return;
      // Broadcasts come on the sender's "out" topic (any sender: a wildcard level); direct messages on our own "in".
      const filter = c.broadcast ? linkTopic(ctx.organizationId, c.project, "out", c.topic) : linkTopic(ctx.organizationId, FLOWS_INSTANCE, "in", c.topic);
      close = subscribeNode(ctx, broker, filter, (msg) => {
        if (typeof msg._msgid !== "string") msg._msgid = ctx.newMessageId();
        ctx.send(msg);
      });
    },
    async close() {
      await close?.();
    },
  };
});

export const projectLinkOutBehaviour = defineBehaviour(projectLinkOutNode, (ctx, c) => {
  let broker: BuiltInMqtt | undefined;
  const finish = (done: Done, sent: Promise<void>) =>
    void sent.then(
      () => done(),
      (err: unknown) => done(err),
    );
  return {
    start() {
      broker = brokerOf(ctx);
      if (broker) ctx.status(CONNECTED);
    },
    input(msg, _send, done) {
      if (!broker) {
        done(new Error(NO_BROKER));
        return;
      }
      if (c.mode === "link") {
        finish(done, publish(ctx, broker, linkTopic(ctx.organizationId, c.broadcast ? FLOWS_INSTANCE : c.project, c.broadcast ? "out" : "in", c.topic), msg));
        return;
      }
      const link = msg.projectLink as { callStack?: unknown } | undefined;
      const stack = link && Array.isArray(link.callStack) ? (link.callStack as CallEvent[]) : undefined;
      if (!stack || stack.length === 0) {
        ctx.log.warn("Project Link Source missing");
        done();
        return;
      }
      const event = stack.pop();
      const target = event && typeof event === "object" ? event.project || (event.device ? `dev:${event.device}` : "") : "";
      if (!event || !target || !event.topic || !event.eventId) {
        ctx.log.warn("Project Link Source not valid");
        done();
        return;
      }
      const response = typeof event.response === "string" && event.response !== "" ? event.response : "res";
      finish(done, publish(ctx, broker, `ff/v1/${ctx.organizationId}/p/${target}/${response}/${event.topic}`, msg, String(event.eventId)));
    },
  };
});

interface PendingCall {
  /** The message as it came in: what a timeout error carries. */
  msg: Message;
  send: Send;
  done: Done;
  timer: NodeJS.Timeout;
}

export const projectLinkCallBehaviour = defineBehaviour(projectLinkCallNode, (ctx, c) => {
  const pending = new Map<string, PendingCall>();
  const timeoutMs = c.timeout_seconds * 1000;
  let broker: BuiltInMqtt | undefined;
  let close: (() => Promise<void>) | undefined;

  const answer = (msg: Message, properties: Record<string, unknown> | undefined) => {
    const correlation = properties?.correlationData;
    const eventId = Buffer.isBuffer(correlation) ? correlation.toString() : typeof correlation === "string" ? correlation : undefined;
    const entry = eventId === undefined ? undefined : pending.get(eventId);
    // Another call node of the topic (or one that timed out) asked: not ours.
    if (!entry || eventId === undefined) return;
    pending.delete(eventId);
    clearTimeout(entry.timer);
    const link = msg.projectLink as { callStack?: unknown[] } | undefined;
    if (link && Array.isArray(link.callStack) && link.callStack.length === 0) delete link.callStack;
    // An http in message's request and response went as placeholders: this instance's come back.
    if (msg.res === `RES:${eventId}` && msg.req === `REQ:${eventId}`) {
      msg.req = entry.msg.req;
      msg.res = entry.msg.res;
    }
    entry.send(msg);
    entry.done();
  };

  return {
    start() {
      broker = brokerOf(ctx);
      if (!broker) return;
      close = subscribeNode(ctx, broker, linkTopic(ctx.organizationId, FLOWS_INSTANCE, "res", c.topic), answer);
    },
    input(msg, send, done) {
      if (!broker) {
        done(new Error(NO_BROKER));
        return;
      }
      const eventId = randomBytes(14).toString("hex");
      const event: CallEvent = { eventId, node: ctx.node.id, project: FLOWS_INSTANCE, instance: FLOWS_INSTANCE, topic: c.topic, response: "res", ts: Date.now() };
      const entry: PendingCall = {
        msg: structuredClone(msg),
        send,
        done,
        timer: setTimeout(() => {
          if (pending.delete(eventId)) ctx.log.error("timeout", entry.msg);
        }, timeoutMs),
      };
      pending.set(eventId, entry);
      const link = typeof msg.projectLink === "object" && msg.projectLink !== null ? (msg.projectLink as Record<string, unknown>) : (msg.projectLink = {});
      if (!Array.isArray(link.callStack)) link.callStack = [];
      (link.callStack as CallEvent[]).push(event);
      const res = msg.res as { _id?: unknown } | undefined;
      if (res && typeof res === "object" && typeof res._id === "string" && msg.req && typeof msg.req === "object") {
        msg.res = `RES:${eventId}`;
        msg.req = `REQ:${eventId}`;
      }
      publish(ctx, broker, linkTopic(ctx.organizationId, c.project, "in", c.topic), msg, eventId).catch((err: unknown) => {
        const failed = pending.get(eventId);
        if (!failed) return;
        pending.delete(eventId);
        clearTimeout(failed.timer);
        done(err);
      });
    },
    async close() {
      for (const entry of pending.values()) clearTimeout(entry.timer);
      pending.clear();
      await close?.();
    },
  };
});
