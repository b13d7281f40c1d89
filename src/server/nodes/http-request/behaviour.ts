import Mustache from "mustache";
import type { NodeFactory } from "../../runtime/types";
import type { z } from "zod";
import type { httpRequestConfig } from "./definition";

export const httpRequestBehaviour: NodeFactory = (ctx) => {
  const c = ctx.node.config as z.infer<typeof httpRequestConfig>;
  const fetcher = ctx.services.httpRequest;
  if (!fetcher) throw new Error("outgoing HTTP is not available on this server");
  return {
    async input(msg, send, done) {
      const method = c.method === "use" ? String(msg.method ?? "GET").toUpperCase() : c.method;
      const url = c.url ? Mustache.render(c.url, msg, {}, { escape: (v: unknown) => encodeURIComponent(String(v)) }) : String(msg.url ?? "");
      if (!url) {
        done(new Error("no URL: set one on the node or in msg.url"));
        return;
      }
      const headers: Record<string, string> = { ...((msg.headers as Record<string, string> | undefined) ?? {}), ...c.headers };
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
};
