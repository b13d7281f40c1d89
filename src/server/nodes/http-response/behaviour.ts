import type { NodeFactory } from "../../runtime/types";
import type { z } from "zod";
import type { httpResponseConfig } from "./definition";

export const httpResponseBehaviour: NodeFactory = (ctx) => {
  const c = ctx.node.config as z.infer<typeof httpResponseConfig>;
  const webhooks = ctx.services.webhooks;
  return {
    input(msg, _send, done) {
      const status = c.status_code ?? (typeof msg.statusCode === "number" ? msg.statusCode : 200);
      const headers = { ...((msg.headers as Record<string, string> | undefined) ?? {}), ...c.headers };
      if (!webhooks?.respond(msg, { status, headers, body: msg.payload })) {
        done(new Error("no HTTP request is waiting for this message (it did not start at an http-in node, or it timed out)"));
        return;
      }
      done();
    },
  };
};
