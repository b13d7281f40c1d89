import { randomBytes } from "node:crypto";
import { projectLinkCallNode, projectLinkInNode, projectLinkOutNode } from "./definition";
import { defineBehaviour } from "../types";
import { DONE_LATER, type BuiltInMqtt, type Done, type Message, type NodeContext, type Send } from "../../runtime/types";
import { FLOWS_INSTANCE, decodeLinkMessage, encodeLinkMessage, isValidInstance, isValidLinkTopic, linkTopic, senderProperties, withProjectLink } from "./link-topics";

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

/** Publishes `msg` as FlowFuse's nodes do: QoS 2, JSON, who sent it in user properties. Rejects when it does not encode. */
async function publish(ctx: NodeContext, broker: BuiltInMqtt, topic: string, msg: Message | Buffer, correlation?: string): Promise<void> {
  await broker.publish(ctx.organizationId, {
    topic,
    payload: Buffer.isBuffer(msg) ? msg : encodeLinkMessage(msg),
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
  return {
    /** Settles once the subscription is made (or failed): a call waits for it before its first publish. */
    ready: stop.then(() => undefined),
    close: async () => {
      closed = true;
      const unsubscribe = await stop;
      await unsubscribe?.().catch(() => undefined);
    },
  };
}

export const projectLinkInBehaviour = defineBehaviour(projectLinkInNode, (ctx, c) => {
  let subscription: ReturnType<typeof subscribeNode> | undefined;
  return {
    start() {
      const broker = brokerOf(ctx);
      if (!broker) return;
      // Broadcasts come on the sender's "out" topic (any sender: a wildcard level); direct messages on our own "in".
      const filter = c.broadcast ? linkTopic(ctx.organizationId, c.project, "out", c.topic) : linkTopic(ctx.organizationId, FLOWS_INSTANCE, "in", c.topic);
      subscription = subscribeNode(ctx, broker, filter, (msg) => {
        if (typeof msg._msgid !== "string") msg._msgid = ctx.newMessageId();
        ctx.send(msg);
      });
    },
    async close() {
      await subscription?.close();
    },
  };
});

export const projectLinkOutBehaviour = defineBehaviour(projectLinkOutNode, (ctx, c) => {
  let broker: BuiltInMqtt | undefined;
  return {
    start() {
      broker = brokerOf(ctx);
      if (broker) ctx.status(CONNECTED);
    },
    // Asynchronous: the message weighs on the flow until the broker took it (backpressure).
    async input(msg) {
      if (!broker) throw new Error(NO_BROKER);
      if (c.mode === "link") {
        await publish(ctx, broker, linkTopic(ctx.organizationId, c.broadcast ? FLOWS_INSTANCE : c.project, c.broadcast ? "out" : "in", c.topic), msg);
        return;
      }
      const link = msg.projectLink as { callStack?: unknown } | undefined;
      const stack = link && Array.isArray(link.callStack) ? (link.callStack as CallEvent[]) : undefined;
      if (!stack || stack.length === 0) {
        ctx.log.warn("Project Link Source missing");
        return;
      }
      const event = stack.pop();
      const target = event && typeof event === "object" ? event.project || (event.device ? `dev:${event.device}` : "") : "";
      if (!event || typeof target !== "string" || !isValidInstance(target) || target === "all" || typeof event.topic !== "string" || !isValidLinkTopic(event.topic) || !event.eventId) {
        ctx.log.warn("Project Link Source not valid");
        return;
      }
      const response = typeof event.response === "string" && /^res[A-Za-z0-9-]*$/.test(event.response) ? event.response : "res";
      await publish(ctx, broker, `ff/v1/${ctx.organizationId}/p/${target}/${response}/${event.topic}`, msg, String(event.eventId));
    },
  };
});

interface PendingCall {
  /** The message as it came in: what a timeout error carries. */
  msg: Message;
  /** An http in message's own request and response, sent as FlowFuse's marker strings `REQ:<event id>` / `RES:<event id>`. */
  req?: unknown;
  res?: unknown;
  send: Send;
  done: Done;
  timer: NodeJS.Timeout;
  /** Ends the input's weight on the flow (its promise settles). */
  release: () => void;
}

export const projectLinkCallBehaviour = defineBehaviour(projectLinkCallNode, (ctx, c) => {
  const pending = new Map<string, PendingCall>();
  const timeoutMs = c.timeout_seconds * 1000;
  let broker: BuiltInMqtt | undefined;
  let subscription: ReturnType<typeof subscribeNode> | undefined;

  const forget = (eventId: string) => {
    const entry = pending.get(eventId);
    if (!entry) return undefined;
    pending.delete(eventId);
    clearTimeout(entry.timer);
    entry.release();
    return entry;
  };

  const answer = (msg: Message, properties: Record<string, unknown> | undefined) => {
    const correlation = properties?.correlationData;
    const eventId = Buffer.isBuffer(correlation) ? correlation.toString() : typeof correlation === "string" ? correlation : undefined;
    // Another call node of the topic (or one that timed out) asked: not ours.
    const entry = eventId === undefined ? undefined : forget(eventId);
    if (!entry) return;
    const link = msg.projectLink as { callStack?: unknown[] } | undefined;
    if (link && Array.isArray(link.callStack) && link.callStack.length === 0) delete link.callStack;
    // An http in message's request and response went as FlowFuse's marker strings: the message gets its own back.
    if (msg.res === `RES:${eventId}` && msg.req === `REQ:${eventId}`) {
      msg.req = entry.req;
      msg.res = entry.res;
    }
    entry.send(msg);
    entry.done();
  };

  return {
    start() {
      broker = brokerOf(ctx);
      if (!broker) return;
      subscription = subscribeNode(ctx, broker, linkTopic(ctx.organizationId, FLOWS_INSTANCE, "res", c.topic), answer);
    },
    // The call weighs on the flow (backpressure) until its answer, its timeout or the flow's stop.
    input(msg, send, done) {
      if (!broker) return Promise.reject(new Error(NO_BROKER));
      const eventId = randomBytes(14).toString("hex");
      const event: CallEvent = { eventId, node: ctx.node.id, project: FLOWS_INSTANCE, instance: FLOWS_INSTANCE, topic: c.topic, response: "res", ts: Date.now() };
      const before = structuredClone(msg);
      const link = typeof msg.projectLink === "object" && msg.projectLink !== null ? (msg.projectLink as Record<string, unknown>) : (msg.projectLink = {});
      if (!Array.isArray(link.callStack)) link.callStack = [];
      (link.callStack as CallEvent[]).push(event);
      const res = msg.res as { _id?: unknown } | undefined;
      const own = res && typeof res === "object" && typeof res._id === "string" && msg.req && typeof msg.req === "object" ? { req: msg.req, res: msg.res } : undefined;
      if (own) {
        msg.res = `RES:${eventId}`;
        msg.req = `REQ:${eventId}`;
      }
      // Encoded before the call is registered: a message that cannot be sent fails now, and only once.
      const payload = encodeLinkMessage(msg);
      if (own) {
        msg.req = own.req;
        msg.res = own.res;
      }
      return new Promise<typeof DONE_LATER>((release) => {
        pending.set(eventId, {
          msg: before,
          ...own,
          send,
          done,
          release: () => release(DONE_LATER),
          timer: setTimeout(() => {
            const entry = forget(eventId);
            if (!entry) return;
            ctx.log.error("timeout", entry.msg);
            // FlowFuse never calls done here: no complete node hears of it; the execution's step ends.
            entry.done(undefined, { handled: "timeout", noComplete: true });
          }, timeoutMs),
        });
        void (subscription?.ready ?? Promise.resolve())
          .then(() => publish(ctx, broker!, linkTopic(ctx.organizationId, c.project, "in", c.topic), payload, eventId))
          .catch((err: unknown) => {
            if (forget(eventId)) done(err);
          });
      });
    },
    async close() {
      for (const eventId of [...pending.keys()]) forget(eventId);
      await subscription?.close();
    },
  };
});
