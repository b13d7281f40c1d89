import { deviceOutNode } from "./definition";
import { defineBehaviour } from "../types";

export const deviceOutBehaviour = defineBehaviour(deviceOutNode, (ctx, c) => {
  return {
    input(msg, _send, done) {
      if (!ctx.services.sendToDevices) {
        done(new Error("devices are not available on this server"));
        return;
      }
      ctx.services.sendToDevices(ctx.organizationId, { topic: ctx.env.substitute(c.topic), payload: msg.payload, device_key_id: c.device_key_id });
      done();
    },
  };
});
