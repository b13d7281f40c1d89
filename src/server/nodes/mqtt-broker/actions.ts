import type { Done, Message } from "../../runtime/types";
import type { MqttConnection } from "./connection";

/**
 * The `connect` and `disconnect` actions of mqtt-in and mqtt-out (Node-RED's handleConnectAction and
 * handleDisconnectAction): `msg.broker` overrides the broker's settings; on a connected broker only
 * with `force`, which cycles the connection.
 */
export async function brokerAction(conn: MqttConnection, msg: Message, done: Done): Promise<void> {
  try {
    if (msg.action === "disconnect") {
      await conn.disconnect();
      return done();
    }
    const actionData = typeof msg.broker === "object" && msg.broker !== null ? (msg.broker as Record<string, unknown>) : null;
    if (conn.canConnect()) {
      if (actionData) conn.setOptions(actionData);
      await conn.connect();
      return done();
    }
    if (!actionData) return done();
    if (actionData.force) {
      await conn.disconnect();
      conn.setOptions(actionData);
      await conn.connect();
      return done();
    }
    done(new Error("Disconnect from broker before connecting"));
  } catch (err) {
    done(err);
  }
}
