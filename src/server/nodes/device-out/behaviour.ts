import type { NodeFactory } from "../../runtime/types";
import type { z } from "zod";
import type { deviceOutConfig } from "./definition";

export const deviceOutBehaviour: NodeFactory = (ctx) => {
  const c = ctx.node.config as z.infer<typeof deviceOutConfig>;
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
};
