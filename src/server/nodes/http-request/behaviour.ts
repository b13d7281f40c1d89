import { hasScheme, httpRequestNode, MAX_TIMEOUT_MS } from "./definition";
import { defineBehaviour } from "../types";
import { renderBounded } from "../../runtime/bounded-mustache";
import { SecretText } from "./secret-text";
import { configuredDispatcher } from "./dispatcher";
import { SecretHostError } from "../../runtime/variables";
import { hostAllowed } from "../../../shared/allowed-hosts";
import type { HopCheck } from "../../runtime/safe-fetch";
import { getProperty } from "../../runtime/properties";
import querystring from "node:querystring";
import hashSum from "hash-sum";
import type FormData from "form-data";
import { extractCookies, RequestCookies } from "./cookies";
import { digestAuthorization } from "./digest";

/** The name `headers` holds for this header, whatever its case, if any. */
const headerName = (headers: Record<string, string>, name: string) => Object.keys(headers).find((k) => k.toLowerCase() === name);

/**
 * Node-RED's updateHeader: sets a header under the name given, replacing it in any case; a value
 * that is empty or missing (any falsy value, as there) removes it.
 */
function setHeader(headers: Record<string, string>, name: string, value: unknown) {
  for (const k of Object.keys(headers)) if (k.toLowerCase() === name.toLowerCase()) delete headers[k];
  if (value) headers[name] = String(value);
}

/** Node-RED's mark on the response headers it sets as msg.headers (x-node-red-request-node: their hash). */
const RESPONSE_MARK = "x-node-red-request-node";

/**
 * The headers a message asks for. msg.headers left as the previous http request node set them (its
 * response's, marked with their hash) are not sent, as in Node-RED; the mark itself never is.
 */
function messageHeaders(msg: Record<string, unknown>): Record<string, unknown> {
  const given = msg.headers;
  if (given === null || typeof given !== "object") return {};
  const headers = given as Record<string, unknown>;
  if (Object.prototype.hasOwnProperty.call(headers, RESPONSE_MARK)) {
    const mark = headers[RESPONSE_MARK];
    delete headers[RESPONSE_MARK];
    if (hashSum(headers) === mark) {
      delete msg.headers;
      return {};
    }
  }
  return headers;
}

/** form-data, loaded by the first form upload (it brings mime-db: 6 MB of an idle server's memory otherwise). */
let formData: Promise<typeof FormData> | undefined;
const loadFormData = () => (formData ??= import("form-data").then((m) => m.default));

/**
 * A multipart/form-data body from an object, as Node-RED's http request builds it with the same
 * package (form-data): each key a part; text and bytes as they are, `{value, options}` with its
 * options (`filename`, `contentType`), anything else as JSON; null and undefined left out.
 */
function multipartBody(Form: typeof FormData, payload: object, headers: Record<string, string>, type: string): Buffer {
  const form = new Form();
  const fields = payload as Record<string, unknown>;
  for (const key in fields) {
    if (!Object.prototype.hasOwnProperty.call(fields, key)) continue;
    const value = fields[key];
    if (value === undefined || value === null) continue;
    if (typeof value === "string" || Buffer.isBuffer(value)) form.append(key, value);
    else if (typeof value === "object" && Object.prototype.hasOwnProperty.call(value, "value")) {
      const part = value as { value: unknown; options?: FormData.AppendOptions | string };
      form.append(key, part.value, part.options || {});
    } else form.append(key, JSON.stringify(value));
  }
  // The boundary's content type replaces the one that asked for a form.
  delete headers[type];
  headers["Content-Type"] = form.getHeaders()["content-type"] as string;
  return form.getBuffer();
}

/**
 * A request's body from msg.payload, as Node-RED's http request makes it: text and bytes as they
 * are, a number as its digits, anything else as JSON (with content-type application/json unless the
 * headers name one), or as a form's fields when the content-type is application/x-www-form-urlencoded,
 * or as a multipart form when it is multipart/form-data (an object's keys its parts).
 */
async function requestBody(payload: unknown, headers: Record<string, string>): Promise<string | Buffer | undefined> {
  if (payload === undefined) return undefined;
  const type = headerName(headers, "content-type");
  // Node-RED asks this first: any object, a Buffer too (its bytes become parts), under exactly this type.
  if (type !== undefined && headers[type] === "multipart/form-data" && typeof payload === "object") return multipartBody(await loadFormData(), payload ?? {}, headers, type);
  if (typeof payload === "string" || Buffer.isBuffer(payload)) return payload;
  if (typeof payload === "number") return String(payload);
  if (type !== undefined && headers[type] === "application/x-www-form-urlencoded") return querystring.stringify(payload as querystring.ParsedUrlQueryInput);
  if (type === undefined) headers["Content-Type"] = "application/json";
  return JSON.stringify(payload);
}

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
      const requestFailed = async (err: unknown, url: string, timeoutMs: number) => {
        const problem = requestError(err, timeoutMs, secrets);
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
      // Node-RED's order: the message's headers, then the node's (a header is one whatever its
      // case; the node's win, and an empty value removes it), then the authentication.
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(messageHeaders(msg))) setHeader(headers, name, value);
      for (const [name, value] of Object.entries(c.headers)) setHeader(headers, name, credential(value));
      for (const { header, property } of c.message_headers) setHeader(headers, header, getProperty(msg, property));
      // Digest answers the server's challenge (below); the others go with the first request.
      if (c.auth_type === "basic" || c.auth_type === "bearer") {
        setHeader(headers, "Authorization", c.auth_type === "basic" ? `Basic ${Buffer.from(`${credential(c.auth_user)}:${credential(c.auth_password)}`).toString("base64")}` : `Bearer ${credential(c.auth_password)}`);
      }
      let body: string | Buffer | undefined;
      if (method !== "GET" && method !== "HEAD") body = await requestBody(msg.payload, headers);
      else if (method === "GET" && msg.payload !== undefined && c.get_payload === "query") {
        // Node-RED's paytoqs: an object's keys appended to the query string; anything else is the node's error.
        if (typeof msg.payload !== "object") {
          done("Invalid payload");
          return;
        }
        const query = querystring.stringify(msg.payload as querystring.ParsedUrlQueryInput);
        url += url.includes("?") ? (url.endsWith("?") ? "" : "&") + query : `?${query}`;
      } else if (method === "GET" && msg.payload !== undefined && c.get_payload === "body") {
        // Node-RED's paytobody: sent as it is (an object as JSON, without a content-type of its own).
        const p = msg.payload;
        body = Buffer.isBuffer(p) || typeof p === "string" ? p : typeof p === "number" ? String(p) : typeof p === "object" ? JSON.stringify(p) : undefined;
      }
      if (body !== undefined && headerName(headers, "content-length") === undefined) headers["Content-Length"] = String(Buffer.byteLength(body));
      // Node-RED: another scheme (ftp://) is a warning and nothing is sent; a URL without one is
      // https:// with a TLS configuration, else http://.
      if (url.includes("://") && !url.startsWith("http")) {
        ctx.log.warn("non-http transport requested");
        ctx.status({ fill: "red", shape: "ring", text: "non-http transport requested" });
        done();
        return;
      }
      const target = hasScheme(url) ? url : `${c.tls ? "https" : "http"}://${url}`;
      // The request's cookie jar: a `cookie` header's pairs and msg.cookies, then what each hop sets.
      const cookies = new RequestCookies(target);
      try {
        cookies.seed(headers, msg.cookies);
      } catch (err) {
        failed(err);
        return;
      }
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
      // Node-RED's msg.requestTimeout (ms) instead of the node's timeout: a value that is not a
      // positive number is warned about and ignored; here at most the node's own maximum.
      let timeoutMs = c.timeout_ms;
      if (msg.requestTimeout !== undefined) {
        const asked = Number(msg.requestTimeout);
        if (Number.isNaN(asked)) ctx.log.warn("Timeout value is not a valid number, ignoring");
        else if (asked < 1) ctx.log.warn("Timeout value is negative, ignoring");
        else timeoutMs = Math.min(Math.round(asked), MAX_TIMEOUT_MS);
      }
      // Node-RED's msg.followRedirects: false answers with the redirect itself.
      const followRedirects = Object.prototype.hasOwnProperty.call(msg, "followRedirects") ? Boolean(msg.followRedirects) : true;
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
        const request = { method, headers, body, timeoutMs, followRedirects, cookies, ...(lease ? { dispatcher: lease.connection } : {}), ...(checkHop ? { checkHop } : {}), budget: ctx.services.workLimits?.responseBudget(ctx.organizationId) };
        let res = await fetcher(target, request);
        const challenge = res.headers["www-authenticate"];
        // Node-RED's afterResponse hook: once, to the URL that asked, with the answer to its challenge;
        // only from the origin the node names (as Authorization is kept only there across redirects).
        if (c.auth_type === "digest" && res.status === 401 && typeof challenge === "string" && new URL(res.url).origin === new URL(target).origin) {
          let authorization: string | undefined;
          try {
            const asked = new URL(res.url);
            authorization = digestAuthorization(credential(c.auth_user), credential(c.auth_password), method, asked.pathname + asked.search, challenge);
          } catch (err) {
            ctx.log.warn(`Digest authentication failed: ${secrets.scrub(err instanceof Error ? err.message : String(err))}`);
          }
          if (authorization) {
            const retried = { ...request.headers };
            setHeader(retried, "Authorization", authorization);
            res = await fetcher(res.url, { ...request, headers: retried });
          }
        }
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
        // Node-RED's mark: the next http request node knows these for a response's and does not send them.
        (msg.headers as Record<string, unknown>)[RESPONSE_MARK] = hashSum(res.headers);
        msg.responseUrl = secrets.scrub(res.url);
        if (Object.prototype.hasOwnProperty.call(res.headers, "set-cookie")) msg.responseCookies = extractCookies([res.headers["set-cookie"]!].flat());
        // Node-RED 4.1+: the redirects followed, with the cookies each set, and the retries made (none: no retry option).
        msg.redirectList = (res.redirects ?? []).map((r) => ({ location: secrets.scrub(r.location), ...(r.setCookie ? { cookies: extractCookies(r.setCookie) } : {}) }));
        msg.retry = 0;
        ctx.status(null);
        // A response may be 10 MiB: it enters the flow only while the flow is not busy (over its
        // high-water mark in messages or bytes), so many downloads at once wait here, counted as
        // waiting, instead of filling the flow past its runaway bound.
        // Sent inside the waiter: the flow's release lets waiters go one at a time while it stays ready.
        await sendWhenReady(msg);
        done();
      } catch (err) {
        await requestFailed(err, target, timeoutMs);
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
