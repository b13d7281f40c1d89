import { wholeEnvValue } from "../../runtime/env-values";
import { defineBehaviour } from "../types";
import { DONE_LATER, type NodeStatus } from "../../runtime/types";
import { mqttOutNode } from "./definition";
import { mqttUser, openBroker } from "../mqtt-in/behaviour";
import { setUserProperties } from "../mqtt-broker/mqtt-values";
import { brokerAction } from "../mqtt-broker/actions";

const CONNECTED: NodeStatus = { fill: "green", shape: "dot", text: "connected" };
const DISCONNECTED: NodeStatus = { fill: "red", shape: "ring", text: "disconnected" };

export const mqttOutBehaviour = defineBehaviour(mqttOutNode, async (ctx, config) => {
  // A topic written as ${NAME} is its value, as Node-RED maps it when the node starts.
  const c = { ...config, topic: wholeEnvValue(config.topic, (name) => ctx.env.get(name)) };
  const own: Record<string, unknown> = {};
  try {
    if (/^ *{/.test(c.userProps)) setUserProperties(JSON.parse(c.userProps), own);
  } catch {
    // not JSON: none, as Node-RED
  }
  const lease = await openBroker(ctx, c.broker);
  if (!lease) return {};
  const conn = lease.connection;
  const user = mqttUser(ctx, false);
  ctx.status(DISCONNECTED);
  if (conn.connected) ctx.status(CONNECTED);
  conn.register(user);
  return {
    async input(msg, _send, done) {
      if (msg.action) {
        if (msg.action === "connect" || msg.action === "disconnect") return brokerAction(conn, msg, done);
        return done(new Error("Invalid action specified"));
      }
      // Node-RED's doPublish: the node's topic, QoS and retain win over the message's.
      if (msg.qos) {
        const q = parseInt(String(msg.qos));
        msg.qos = q === 0 || q === 1 || q === 2 ? q : null;
      }
      if (c.topic) msg.topic = c.topic;
      msg.qos = Number(c.qos || msg.qos || 0);
      const retain = c.retain || msg.retain || false;
      msg.retain = retain === true || retain === "true";
      if (conn.v5()) {
        if (own.userProperties) msg.userProperties = own.userProperties;
        if (c.respTopic) msg.responseTopic = c.respTopic;
        if (c.correl) msg.correlationData = c.correl;
        if (c.contentType) msg.contentType = c.contentType;
        if (c.expiry) msg.messageExpiryInterval = c.expiry;
      }
      if (!Object.hasOwn(msg, "payload")) return done();
      try {
        await conn.publish(msg);
        done();
      } catch (err) {
        // An invalid topic is a warning and the message is never done (as Node-RED).
        if ((err as { warn?: boolean }).warn) {
          ctx.log.warn((err as Error).message);
          return DONE_LATER;
        }
        done(err);
      }
    },
    async close(removed) {
      await conn.deregister(user, removed);
      await lease.release();
    },
  };
});
