import { httpRequestNode } from "./definition";
import { defineBehaviour } from "../types";
import { renderBounded } from "../../runtime/bounded-mustache";
import { SecretText } from "./secret-text";
import { configuredDispatcher } from "./dispatcher";
import { SecretHostError } from "../../runtime/variables";
import { hostAllowed } from "../../../shared/allowed-hosts";
import type { HopCheck } from "../../runtime/safe-fetch";

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
      // A secret with allowed hosts (SPEC §14) is noted here as it resolves: the request goes out
      // only if its host, and every redirect's, is one of them (checkHop below).
      const restricted = new Map<string, readonly string[]>();
      const credential = (text: string) => ctx.env.substitute(text, { credential: true, restricted });
      // Every text this request reports is said without the secrets it resolved (secret-text.ts).
      const secrets = SecretText.of(ctx.env, [c.url, ...Object.values(c.headers), ...(c.auth_type === "none" ? [] : [c.auth_user, c.auth_password])], c.auth_type === "basic" ? { user: credential(c.auth_user), password: credential(c.auth_password) } : undefined);
      const sendWhenReady = (out: typeof msg) =>
        new Promise<void>((resolve) =>
          ctx.whenReady(
            () => {
              send(out);
              resolve();
            },
            { parked: true },
          ),
        );
      const failed = (err: unknown) => {
        const text = secrets.scrub(err instanceof Error ? err.message : String(err));
        ctx.status({ fill: "red", shape: "ring", text: text.slice(0, 60) });
        done(new Error(text));
      };
      /**
       * The request itself failed (no connection, no response in time, a refused address): Node-RED's
       * catch branch. The error goes to the catch nodes with the message as it came; unless the node
       * sends errors to catch nodes only, the message then goes on too, with msg.payload the error
       * and the URL, and msg.statusCode the error's code (ECONNREFUSED, ETIMEDOUT).
       */
      const requestFailed = async (err: unknown, url: string) => {
        const problem = requestError(err, c.timeout_ms, secrets);
        ctx.log.error(problem.reported, msg);
        // Node-RED's status (after the error's, which it replaces): "no response from server" for a timeout, else the error's code.
        ctx.status({ fill: "red", shape: "ring", text: (problem.name === "TimeoutError" ? "no response from server" : (problem.code ?? problem.message)).slice(0, 60) });
        msg.payload = `${problem.name}: ${problem.message} : ${secrets.scrub(url)}`;
        msg.statusCode = problem.code;
        // Out when the flow is ready for it, as a response is: failures do not overtake waiting answers.
        if (!c.errors_to_catch_only) await sendWhenReady(msg);
        // Reported already: complete nodes hear of it as in Node-RED, and the execution's step failed.
        done(undefined, { handled: problem.reported });
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
      // Node-RED: another scheme (ftp://) is a warning and nothing is sent; a URL without one is
      // https:// with a TLS configuration, else http://.
      if (url.includes("://") && !url.startsWith("http")) {
        ctx.log.warn("non-http transport requested");
        ctx.status({ fill: "red", shape: "ring", text: "non-http transport requested" });
        done();
        return;
      }
      const target = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `${c.tls ? "https" : "http"}://${url}`;
      let checkHop: HopCheck | undefined;
      if (restricted.size > 0) {
        let hops = 0;
        checkHop = (hop, proxyHost) => {
          const where = hops++ === 0 ? `not to ${secrets.scrub(hop.hostname)}` : `the redirect to ${secrets.scrub(hop.hostname)} was not followed`;
          for (const [name, hosts] of restricted) {
            if (!hostAllowed(hop.hostname, hosts)) throw new SecretHostError(name, hosts, where);
            if (proxyHost !== undefined && !hostAllowed(proxyHost, hosts)) throw new SecretHostError(name, hosts, `not through the plain-http proxy ${secrets.scrub(proxyHost)}`);
          }
        };
        // Before anything connects (a proxy, a DNS lookup): the first hop's host.
        try {
          checkHop(new URL(target));
          hops = 0;
        } catch (err) {
          failed(err instanceof SecretHostError ? err : new Error("the URL could not be read, and a secret it uses may only be sent to its allowed hosts"));
          return;
        }
      }
      ctx.status({ fill: "blue", shape: "dot", text: "requesting" });
      let lease: Awaited<ReturnType<NonNullable<typeof dispatcher>["acquire"]>> | undefined;
      try {
        // The TLS configuration's or proxy's connection: a problem there is the node's configuration, not the request.
        lease = await dispatcher?.acquire();
      } catch (err) {
        failed(err);
        return;
      }
      try {
        // Downloads wait for the organization's byte budget (runtime/work-limits.ts), not for memory to run out.
        const res = await fetcher(target, { method, headers, body, timeoutMs: c.timeout_ms, ...(lease ? { dispatcher: lease.connection } : {}), ...(checkHop ? { checkHop } : {}), budget: ctx.services.workLimits?.responseBudget(ctx.organizationId) });
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
        await sendWhenReady(msg);
        done();
      } catch (err) {
        await requestFailed(err, target);
      } finally {
        void lease?.release();
      }
    },
  };
});

/**
 * A failed request as Node-RED's http request (got) reports it: a TimeoutError, reported to catch
 * nodes as the text "no response from server", or a RequestError carrying the system error's code; the
 * text never holds a secret the node resolved.
 */
function requestError(err: unknown, timeoutMs: number, secrets: SecretText): { name: string; message: string; code: string | undefined; reported: Error | string } {
  const code = err && typeof err === "object" && typeof (err as { code?: unknown }).code === "string" ? (err as { code: string }).code : undefined;
  if (code === "ETIMEDOUT") {
    return { name: "TimeoutError", message: `no complete response within ${timeoutMs} ms`, code, reported: "no response from server" };
  }
  const message = secrets.scrub(err instanceof Error ? err.message : String(err));
  const reported = new Error(message);
  reported.name = "RequestError";
  if (code !== undefined) Object.assign(reported, { code });
  // got wraps a system error as its cause; Node-RED's catch passes on its fields.
  const system = err as { errno?: unknown; syscall?: unknown; address?: unknown; port?: unknown };
  if (code !== undefined && typeof system.syscall === "string") {
    // The address and port the socket tried may be a secret the URL named (http://${HOST_IP}/): left out then.
    const said = (value: unknown) => (value !== undefined && secrets.scrub(String(value)) === String(value) ? value : undefined);
    const address = said(system.address);
    const port = said(system.port);
    reported.cause = { errno: system.errno, code, syscall: system.syscall, ...(address !== undefined ? { address } : {}), ...(port !== undefined ? { port } : {}) };
  }
  return { name: "RequestError", message, code, reported };
}
