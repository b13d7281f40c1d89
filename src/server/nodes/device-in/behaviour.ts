import { deviceInNode } from "./definition";
import { defineBehaviour } from "../types";
import { FLOW_BUSY_RETRY_AFTER_SEC } from "../../runtime/engine";

/** MQTT-style topic match: "#" matches everything below, "+" one level. */
export function topicMatches(filter: string, topic: string): boolean {
  if (filter === "#") return true;
  const f = filter.split("/");
  const t = topic.split("/");
  for (let i = 0; i < f.length; i++) {
    if (f[i] === "#") return true;
    if (f[i] !== "+" && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}

export const deviceInBehaviour = defineBehaviour(deviceInNode, (ctx, c) => {
  let stop: (() => void) | undefined;
  return {
    start() {
      stop = ctx.services.onDeviceMessage?.(ctx.organizationId, (m) => {
        if (!topicMatches(c.topic, m.topic)) return;
        // Backpressure: the device that published is told its message was refused, to send it again later.
        if (ctx.busy()) {
          ctx.services.sendToDevices?.(ctx.organizationId, {
            topic: m.topic,
            payload: null,
            device_key_id: m.device_key_id,
            rejected: { reason: "flow_busy", retry_after: FLOW_BUSY_RETRY_AFTER_SEC },
          });
          return;
        }
        ctx.send({ _msgid: ctx.newMessageId(), topic: m.topic, payload: m.payload, device_key_id: m.device_key_id });
      });
    },
    close() {
      stop?.();
    },
  };
});
