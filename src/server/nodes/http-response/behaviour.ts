import { httpResponseNode } from "./definition";
import { defineBehaviour } from "../types";
import { filterResponseHeaders } from "../../runtime/webhooks";

export const httpResponseBehaviour = defineBehaviour(httpResponseNode, (ctx, c) => {
  const webhooks = ctx.services.webhooks;
  const binding = { flowId: ctx.flowId, organizationId: ctx.organizationId };
  return {
    input(msg, _send, done) {
      const status = c.status_code ?? (typeof msg.statusCode === "number" && Number.isInteger(msg.statusCode) && msg.statusCode >= 200 && msg.statusCode <= 599 ? msg.statusCode : 200);
      const fromMsg = msg.headers !== null && typeof msg.headers === "object" && !Array.isArray(msg.headers) ? (msg.headers as Record<string, unknown>) : {};
      // The node's own header values may hold ${NAME} (resolved now; a secret is not handed out here).
      const own = Object.fromEntries(Object.entries(c.headers).map(([name, value]) => [name, ctx.env.substitute(value)]));
      const { allowed, dropped } = filterResponseHeaders({ ...fromMsg, ...own });
      if (dropped.length > 0) ctx.log.warn(`headers not allowed on a webhook response were dropped: ${dropped.join(", ")}`);
      if (!webhooks?.respond(binding, msg, { status, headers: allowed, body: msg.payload })) {
        done(new Error("no HTTP request of this flow is waiting for this message (it did not start at this flow's http-in node, or it timed out)"));
        return;
      }
      done();
    },
  };
});
