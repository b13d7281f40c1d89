import { wholeEnvValue } from "../../runtime/env-values";
import { defineBehaviour } from "../types";
import type { Message, NodeContext, NodeStatus } from "../../runtime/types";
import type { ConnectionLease } from "../../runtime/connections";
import { mqttInNode } from "./definition";
import { acquireBroker } from "../mqtt-broker/acquire-broker";
import type { MessageCallback, MqttConnection, MqttUser } from "../mqtt-broker/connection";
import { isValidSubscriptionTopic, receivedMessage, setBoolProp, setIntProp } from "../mqtt-broker/mqtt-values";
import { brokerAction } from "../mqtt-broker/actions";

const CONNECTED: NodeStatus = { fill: "green", shape: "dot", text: "connected" };
const DISCONNECTED: NodeStatus = { fill: "red", shape: "ring", text: "disconnected" };

const ACTIONS = ["connect", "disconnect", "subscribe", "unsubscribe", "getSubscriptions"];

/** The user a node is to its shared connection: its status dot, its errors, its flow's backpressure. */
export function mqttUser(ctx: NodeContext, withBackpressure: boolean): MqttUser {
  return {
    id: `${ctx.flowId}/${ctx.node.id}`,
    status: (s) => ctx.status(s),
    log: { warn: (m) => ctx.log.warn(m), error: (e) => ctx.log.error(e) },
    ...(withBackpressure ? { busy: () => ctx.busy(), whenReady: (fn: () => void) => ctx.whenReady(fn) } : {}),
  };
}

/** Opens the node's broker connection, or reports why it cannot (Node-RED's "missing broker configuration"). */
export async function openBroker(ctx: NodeContext, brokerId: string): Promise<ConnectionLease<MqttConnection> | undefined> {
  if (!brokerId) {
    ctx.log.error(new Error("missing broker configuration"));
    return undefined;
  }
  try {
    // Undefined: the deployment lacks it (ctx.configNode reported it).
    return await acquireBroker(ctx, brokerId);
  } catch (err) {
    ctx.log.error(err);
    ctx.status({ fill: "red", shape: "ring", text: "error" });
    return undefined;
  }
}

export const mqttInBehaviour = defineBehaviour(mqttInNode, async (ctx, config) => {
  // A topic written as ${NAME} (a subflow's env, a variable) is its value, as Node-RED maps it when the node starts.
  const c = { ...config, topic: wholeEnvValue(config.topic, (name) => ctx.env.get(name)) };
  const isDynamic = c.inputs === 1;
  if (!isDynamic && !isValidSubscriptionTopic(c.topic)) {
    ctx.log.warn("Invalid topic specified");
    return {};
  }
  const lease = await openBroker(ctx, c.broker);
  if (!lease) return {};
  const conn = lease.connection;
  const user = mqttUser(ctx, true);
  const ref = user.id;
  const dynamicSubs = new Map<string, Record<string, unknown>>();

  const handler =
    (datatype: string): MessageCallback =>
    (topic, payload, packet) => {
      const r = receivedMessage(datatype, topic, payload, packet, conn.v5());
      if ("error" in r) ctx.log.error(r.error, { _msgid: ctx.newMessageId(), ...r.msg } as Message);
      else ctx.send({ _msgid: ctx.newMessageId(), ...r.msg } as Message);
    };

  ctx.status(DISCONNECTED);
  let registered = false;
  if (!c.topic && !isDynamic) ctx.log.error(new Error("topic not defined"));

  return {
    // Once every node of the flow exists (Node-RED's constructors all run before any message): a
    // message arriving at once (a persistent session's, stored at the broker) finds the nodes it
    // goes to ready.
    start() {
      if (!c.topic && !isDynamic) return;
      conn.register(user);
      registered = true;
      if (!isDynamic) {
        const options: Record<string, unknown> = { qos: c.qos };
        if (conn.v5()) {
          setIntProp({ rh: c.rh }, options, "rh", 0, 2, 0);
          options.nl = c.nl;
          options.rap = c.rap;
        }
        conn.subscribe(c.topic, options, handler(c.datatype), ref);
      }
      if (conn.connected) ctx.status(CONNECTED);
    },
    async input(msg, send, done) {
      const action = msg.action;
      if (typeof action !== "string" || !ACTIONS.includes(action)) return done(new Error("Invalid action specified"));
      if (action === "connect" || action === "disconnect") return brokerAction(conn, msg, done);
      if (action === "getSubscriptions") {
        msg.topic = "subscriptions";
        msg.payload = [...dynamicSubs.values()];
        send(msg);
        return done();
      }
      let list: unknown[];
      if (action === "unsubscribe" && (msg.topic as unknown) === true) list = [...dynamicSubs.values()];
      else if (Array.isArray(msg.topic)) list = msg.topic;
      else if (typeof msg.topic === "string" || (typeof msg.topic === "object" && msg.topic !== null)) list = [msg.topic];
      else return done(new Error("msg.topic is missing or invalid"));
      const subs: Array<Record<string, unknown>> = [];
      for (const entry of list) {
        const sub = (typeof entry === "string" ? { topic: entry } : entry) as Record<string, unknown>;
        if (!sub || typeof sub.topic !== "string" || !sub.topic || !isValidSubscriptionTopic(sub.topic)) return done(new Error("Invalid topic specified"));
        subs.push(sub);
      }
      if (action === "unsubscribe") {
        for (const sub of subs) {
          conn.unsubscribe(sub.topic as string, ref, true);
          dynamicSubs.delete(sub.topic as string);
        }
      } else {
        const v5 = conn.v5();
        for (const sub of subs) {
          const topic = sub.topic as string;
          // Unsubscribe first, so one topic is never subscribed twice.
          if (dynamicSubs.has(topic)) {
            conn.unsubscribe(topic, ref, true);
            dynamicSubs.delete(topic);
          }
          const options: Record<string, unknown> = {};
          setIntProp(sub, options, "qos", 0, 2, 2);
          sub.qos = options.qos;
          if (v5) {
            setIntProp(sub, options, "rh", 0, 2, 0);
            sub.rh = options.rh;
            setBoolProp(sub, options, "rap", true);
            sub.rap = options.rap;
            if (sub.nl === "true" || sub.nl === true) options.nl = sub.nl = true;
            else if (sub.nl === "false" || sub.nl === false) options.nl = sub.nl = false;
            else delete sub.nl;
          }
          conn.subscribe(topic, options, handler(typeof sub.datatype === "string" && sub.datatype ? sub.datatype : c.datatype), ref);
          dynamicSubs.set(topic, sub);
        }
      }
      msg.subscriptions = [...dynamicSubs.values()];
      done();
    },
    async close(removed) {
      if (isDynamic) {
        for (const topic of dynamicSubs.keys()) conn.unsubscribe(topic, ref, removed);
        dynamicSubs.clear();
      } else if (c.topic) conn.unsubscribe(c.topic, ref, removed);
      if (registered) await conn.deregister(user, removed);
      await lease.release();
    },
  };
});
