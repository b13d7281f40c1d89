import { httpRequestNode } from "./definition";
import { defineBehaviour } from "../types";
import { renderBounded } from "../../runtime/bounded-mustache";
import { SecretText } from "./secret-text";
import { configuredDispatcher } from "./dispatcher";

export const httpRequestBehaviour = defineBehaviour(httpRequestNode, (ctx, c) => {
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
      // Every text this request reports is said without the secrets it resolved (secret-text.ts).
      const secrets = SecretText.of(ctx.env, [c.url, ...Object.values(c.headers), ...(c.auth_type === "none" ? [] : [c.auth_user, c.auth_password])], c.auth_type === "basic" ? { user: credential(c.auth_user), password: credential(c.auth_password) } : undefined);
      const failed = (err: unknown) => {
        const text = secrets.scrub(err instanceof Error ? err.message : String(err));
        ctx.status({ fill: "red", shape: "ring", text: text.slice(0, 60) });
        done(new Error(text));
      };
      let url: string;
      try {
        url = c.url ? renderBounded(credential(c.url), msg, { escape: (v: unknown) => encodeURIComponent(String(v)) }) : String(msg.url ?? "");
      } catch (err) {
        failed(err);
        return;
      }
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
        // Downloads wait for the organization's byte budget (runtime/work-limits.ts), not for memory to run out.
        const target = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `${c.tls ? "https" : "http"}://${url}`;
        const res = await fetcher(target, { method, headers, body, timeoutMs: c.timeout_ms, ...(lease ? { dispatcher: lease.connection } : {}), budget: ctx.services.workLimits?.responseBudget(ctx.organizationId) });
        let payload: unknown = res.body;
        if (c.return === "txt") payload = res.body.toString("utf8");
        else if (c.return === "obj") {
          const text = res.body.toString("utf8");
          try {
            payload = JSON.parse(text);
          } catch {
            payload = text;
          }
        } else payload = res.body; // bin: a Buffer, as Node-RED's
        msg.payload = payload;
        msg.statusCode = res.status;
        msg.headers = res.headers;
        msg.responseUrl = secrets.scrub(res.url);
        // Node-RED 4.1+: the redirects followed (their cookies are not offered) and the retries made (none: no retry option).
        msg.redirectList = (res.redirects ?? []).map((location) => ({ location: secrets.scrub(location) }));
        msg.retry = 0;
        ctx.status(null);
        // A response may be 10 MiB: it enters the flow only while the flow is not busy (over its
        // high-water mark in messages or bytes), so many downloads at once wait here, counted as
        // waiting, instead of filling the flow past its runaway bound.
        // Sent inside the waiter: the flow's release lets waiters go one at a time while it stays ready.
        await new Promise<void>((resolve) =>
          ctx.whenReady(
            () => {
              send(msg);
              resolve();
            },
            { parked: true },
          ),
        );
        done();
      } catch (err) {
        failed(err);
      } finally {
        void lease?.release();
      }
    },
  };
});
