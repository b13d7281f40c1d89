import Mustache from "mustache";
import type { NodeFactory } from "../../runtime/types";
import type { z } from "zod";
import type { httpRequestConfig } from "./definition";
import { configuredDispatcher } from "./dispatcher";

export const httpRequestBehaviour: NodeFactory = (ctx) => {
  const c = ctx.node.config as z.infer<typeof httpRequestConfig>;
  const fetcher = ctx.services.httpRequest;
  if (!fetcher) throw new Error("outgoing HTTP is not available on this server");
  // Its TLS configuration and proxy (SPEC §19): prepared with the flow, shared per instance.
  const dispatcher = configuredDispatcher(ctx, { tls: c.tls, proxy: c.proxy });
  return {
    close: () => dispatcher?.close(),
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
      if (dispatcher?.missing) {
        ctx.status({ fill: "red", shape: "ring", text: "configuration missing" });
        done(new Error(dispatcher.missing));
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
      let lease: Awaited<ReturnType<NonNullable<typeof dispatcher>["acquire"]>> | undefined;
      try {
        lease = await dispatcher?.acquire();
        // Node-RED: a URL without a scheme is https:// with a TLS configuration, else http://.
        const target = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `${c.tls ? "https" : "http"}://${url}`;
        const res = await fetcher(target, { method, headers, body, timeoutMs: c.timeout_ms, ...(lease ? { dispatcher: lease.connection } : {}) });
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
      } finally {
        void lease?.release();
      }
    },
  };
};
