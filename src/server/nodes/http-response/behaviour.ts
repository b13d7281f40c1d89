import { httpResponseNode } from "./definition";
import { defineBehaviour } from "../types";
import { filterResponseHeaders } from "../../runtime/webhooks";
import { boundedJson } from "../../runtime/bounded-json";

/** A webhook answer's JSON text at most (a body past it is the node's error, not a frozen event loop). */
const MAX_RESPONSE_JSON_CHARS = 32 * 1024 * 1024;

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
      // An object is sent as JSON, written here by the bounded serializer (runtime/bounded-json.ts):
      // a payload repeating one object is refused, never expanded in full on the event loop.
      // Node-RED sends a number as its text.
      let body: unknown = typeof msg.payload === "number" ? String(msg.payload) : msg.payload;
      if (body !== null && typeof body === "object" && !Buffer.isBuffer(body)) {
        let json: ReturnType<typeof boundedJson>;
        try {
          json = boundedJson(body, { maxChars: MAX_RESPONSE_JSON_CHARS, maxMs: 250, cut: false });
        } catch (err) {
          done(err);
          return;
        }
        if (json.truncated) {
          done(new Error(`message too large: the response body is more than ${MAX_RESPONSE_JSON_CHARS} characters as JSON (or took more than 250 ms to write)`));
          return;
        }
        body = json.text;
        if (!Object.keys(allowed).some((name) => name.toLowerCase() === "content-type")) allowed["content-type"] = "application/json; charset=utf-8";
      }
      if (!webhooks?.respond(binding, msg, { status, headers: allowed, body })) {
        done(new Error("no HTTP request of this flow is waiting for this message (it did not start at this flow's http-in node, or it timed out)"));
        return;
      }
      done();
    },
  };
});
