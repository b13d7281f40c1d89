import { httpRequestNode } from "./definition";
import { defineBehaviour } from "../types";
import Mustache from "mustache";

export const httpRequestBehaviour = defineBehaviour(httpRequestNode, (ctx, c) => {
  const fetcher = ctx.services.httpRequest;
  if (!fetcher) throw new Error("outgoing HTTP is not available on this server");
  return {
    async input(msg, send, done) {
      const method = c.method === "use" ? String(msg.method ?? "GET").toUpperCase() : c.method;
      // The node's own URL, headers and authentication are its credential properties: ${NAME} is
      // resolved now (a changed secret is used by the next request), secrets included, and before
      // the message's values are filled in, so a message can never ask for a secret.
      const credential = (text: string) => ctx.env.substitute(text, { credential: true });
      const url = c.url ? Mustache.render(credential(c.url), msg, {}, { escape: (v: unknown) => encodeURIComponent(String(v)) }) : String(msg.url ?? "");
      if (!url) {
        done(new Error("no URL: set one on the node or in msg.url"));
        return;
      }
      const headers: Record<string, string> = { ...((msg.headers as Record<string, string> | undefined) ?? {}) };
      for (const [name, value] of Object.entries(c.headers)) headers[name] = credential(value);
      if (c.auth_type !== "none") {
        for (const name of Object.keys(headers)) if (name.toLowerCase() === "authorization") delete headers[name];
        headers.Authorization =
          c.auth_type === "basic"
            ? `Basic ${Buffer.from(`${credential(c.auth_user)}:${credential(c.auth_password)}`).toString("base64")}`
            : `Bearer ${credential(c.auth_password)}`;
      }
      let body: string | undefined;
      if (method !== "GET" && method !== "HEAD" && msg.payload !== undefined) {
        body = typeof msg.payload === "string" ? msg.payload : JSON.stringify(msg.payload);
        if (typeof msg.payload !== "string") headers["content-type"] ??= "application/json";
      }
      ctx.status({ fill: "blue", shape: "dot", text: "requesting" });
      try {
        const res = await fetcher(url, { method, headers, body, timeoutMs: c.timeout_ms });
        let payload: unknown = res.body;
        if (c.return === "txt") payload = res.body.toString("utf8");
        else if (c.return === "obj") {
          const text = res.body.toString("utf8");
          try {
            payload = JSON.parse(text);
          } catch {
            payload = text;
          }
        } else payload = [...res.body];
        msg.payload = payload;
        msg.statusCode = res.status;
        msg.headers = res.headers;
        msg.responseUrl = res.url;
        ctx.status(null);
        send(msg);
        done();
      } catch (err) {
        ctx.status({ fill: "red", shape: "ring", text: (err as Error).message.slice(0, 60) });
        done(err);
      }
    },
  };
});
