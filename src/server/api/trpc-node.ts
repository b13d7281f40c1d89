import { getErrorShape, getTRPCErrorFromUnknown, transformTRPCResponse, TRPCError, type AnyProcedure, type AnyRouter } from "@trpc/server";
import { getHTTPStatusCode } from "@trpc/server/http";
import type { AppServices } from "../app-services";
import { browserSessionId } from "../auth/browser-session";
import { toAppError } from "../errors";
import { jsonTooDeep } from "../../shared/json-depth";
import { isDeepFrozen } from "../../shared/deep-freeze";
import { jsonBodyOf, type JsonWrap } from "./frozen-output";
import { invokeProcedure } from "./invoke-procedure";
import { requestContext } from "./request-context";
import type { Context } from "./trpc";
import { ResponseHeaderMap, type RestRequest, type RestResult } from "./rest/handler";
import { TRPC_ENDPOINT } from "./trpc-handler";

/** One call of a batch: its procedure, its name and its raw input. */
interface Call {
  procedure: AnyProcedure;
  path: string;
  input: unknown;
}

/** A call's answer as tRPC's HTTP format has it. */
type Answer = { result: { data: unknown } } | { error: unknown };

const PREFIX = `${TRPC_ENDPOINT}/`;
/** tRPC's envelope of a result: `{"result":{"data":…}}`. */
const RESULT_WRAP: JsonWrap = { before: '{"result":{"data":', after: "}}" };
/** A batch of one query (what tRPC's client sends): its answer in the batch's array. */
const BATCH_OF_ONE_WRAP: JsonWrap = { before: '[{"result":{"data":', after: "}}]" };

const isObject = (value: unknown): value is Record<string, unknown> => !!value && !Array.isArray(value) && typeof value === "object";
const isAsyncIterable = (value: unknown): boolean => isObject(value) && Symbol.asyncIterator in value;
const isPromise = (value: unknown): boolean => isObject(value) && typeof (value as { then?: unknown }).then === "function";

/** tRPC's isDataStream: an async iterable, or an object with a promise or an async iterable among its values. */
function isDataStream(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (isAsyncIterable(value)) return true;
  const values = Object.values(value);
  return values.some(isPromise) || values.some(isAsyncIterable);
}

/**
 * The queries of a /api/trpc GET as tRPC's fetch adapter answers them (src/server/http/README.md,
 * "Request path"), from the request's method, target and headers: undefined when the request is
 * not the common case (a POST, a stream or SSE request, a form or binary body, an unknown or
 * non-query procedure, input that does not parse or is too deep, a path that is not valid
 * percent-encoding, a context that cannot be made). The caller then hands the request to the fetch
 * adapter (createTrpcHandler), which answers those, their errors included, exactly as before.
 *
 * Why: the fetch adapter builds a fetch Request, Headers, three AbortSignals, a Response and its
 * body stream for every call, about 120 µs of a ~450 µs request on Node 20, and a large answer (the
 * node catalog, 150 KB) also pays undici's well-formed-string check over the whole text. Here the
 * procedures run through the same middleware chain as the REST adapter (invokeProcedure), errors
 * take tRPC's own shape (getErrorShape, the router's errorFormatter) and status
 * (getHTTPStatusCode), and the answer is written with Node's response. trpc-node.integration.test.ts
 * holds both paths to the same answers.
 */
export function createTrpcCore(router: AnyRouter, getAppServices: () => Promise<AppServices>): (req: RestRequest) => Promise<RestResult | undefined> {
  const procedures = router._def.procedures as Record<string, AnyProcedure | undefined>;
  const config = router._def._config;
  const deserialize = (value: unknown): unknown => config.transformer.input.deserialize(value);

  /** The calls the request names, or undefined when any of them is not for this path. */
  function callsOf(req: RestRequest): { calls: Call[]; batch: boolean } | undefined {
    if (req.method !== "GET") return undefined;
    // Streamed (jsonl) and SSE answers, and the form and binary content-type handlers, stay tRPC's.
    if (req.header("trpc-accept") !== null || req.header("content-type") !== null) return undefined;
    if (req.header("accept")?.split(",").some((t) => t.trim() === "application/jsonl")) return undefined;
    const q = req.target.indexOf("?");
    const pathname = q === -1 ? req.target : req.target.slice(0, q);
    if (!pathname.startsWith(PREFIX)) return undefined;
    const params = new URLSearchParams(q === -1 ? "" : req.target.slice(q + 1));
    if (params.has("connectionParams") || params.has("lastEventId") || params.has("Last-Event-Id")) return undefined;
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname.slice(PREFIX.length));
    } catch {
      return undefined;
    }
    const batch = params.get("batch") === "1";
    const paths = batch ? decoded.split(",") : [decoded];
    const raw = params.get("input");
    let inputs: unknown;
    if (raw) {
      if (jsonTooDeep(raw)) return undefined;
      try {
        inputs = JSON.parse(raw);
      } catch {
        return undefined;
      }
    }
    if (batch && inputs !== undefined && !isObject(inputs)) return undefined;
    const calls: Call[] = [];
    for (const [index, path] of paths.entries()) {
      const procedure = Object.hasOwn(procedures, path) ? procedures[path] : undefined;
      if (!procedure || procedure._def.type !== "query") return undefined;
      let input: unknown;
      if (inputs !== undefined) {
        const own = batch ? (inputs as Record<string, unknown>)[index] : inputs;
        if (own !== undefined) input = deserialize(own);
      }
      calls.push({ procedure, path, input });
    }
    return { calls, batch };
  }

  return async function serve(req: RestRequest): Promise<RestResult | undefined> {
    const named = callsOf(req);
    if (!named) return undefined;
    const app = await getAppServices();
    const headers = new ResponseHeaderMap();
    headers.map.set("vary", "trpc-accept, accept");
    headers.map.set("content-type", "application/json");
    headers.map.set("cache-control", "no-store");
    let sessionId: string | undefined;
    try {
      sessionId = await browserSessionId(app, { cookie: req.header("cookie"), origin: req.header("origin") });
    } catch {
      return undefined;
    }
    const ctx = requestContext(app, req.header, { responseHeaders: headers, headerCredentials: true, browserSessionId: sessionId });
    const answers = await Promise.all(named.calls.map((call) => answerOf(call, ctx, headers)));
    const untransformed = named.batch ? answers : answers[0]!;
    return { status: getHTTPStatusCode(untransformed as Parameters<typeof getHTTPStatusCode>[0]), headers, body: bodyOf(answers, named.batch) };
  };

  /** One call's answer, or its error in tRPC's shape (the router's errorFormatter). */
  async function answerOf({ procedure, path, input }: Call, ctx: Context, headers: ResponseHeaderMap): Promise<Answer> {
    try {
      const data = await invokeProcedure(procedure, path, ctx, input);
      // tRPC refuses a promise or a stream in a plain (non-streaming) answer; the output validators leave none.
      if (isDataStream(data)) throw new TRPCError({ code: "UNSUPPORTED_MEDIA_TYPE", message: "Cannot use stream-like response in non-streaming request - use httpBatchStreamLink" });
      return { result: { data } };
    } catch (cause) {
      const error = getTRPCErrorFromUnknown(cause);
      // What the fetch handler's responseMeta adds: the error's headers (Retry-After on 429 and 503).
      for (const [name, value] of Object.entries(toAppError(error).headers ?? {})) {
        if (!headers.has(name)) headers.set(name, value);
      }
      return { error: getErrorShape({ config, error, type: "query", path, input, ctx }) };
    }
  }

  /**
   * An answer's JSON as tRPC writes it (transformTRPCResponse, then JSON.stringify); a deep-frozen
   * result (a cached flow list, the node catalog) reuses the text, or the bytes, made once for it.
   */
  function answerJson(answer: Answer, wrap = RESULT_WRAP): string | Buffer {
    if ("result" in answer && isDeepFrozen(answer.result.data) && config.transformer.output.serialize(answer.result.data) === answer.result.data) {
      return jsonBodyOf(answer.result.data, wrap);
    }
    const json = JSON.stringify(transformTRPCResponse(config, answer as Parameters<typeof transformTRPCResponse>[1]));
    return wrap === BATCH_OF_ONE_WRAP ? `[${json}]` : json;
  }

  /** The body: one answer, or a batch's array of them. */
  function bodyOf(answers: Answer[], batch: boolean): string | Buffer {
    // A batch of one (a cached answer's bytes then kept as the batch's, not copied into it anew).
    if (batch && answers.length === 1) return answerJson(answers[0]!, BATCH_OF_ONE_WRAP);
    const parts = answers.map((answer) => answerJson(answer));
    if (!batch) return parts[0]!;
    if (parts.every((part) => typeof part === "string")) return `[${parts.join(",")}]`;
    const chunks: Buffer[] = [Buffer.from("[")];
    for (const [i, part] of parts.entries()) {
      if (i > 0) chunks.push(Buffer.from(","));
      chunks.push(typeof part === "string" ? Buffer.from(part) : part);
    }
    chunks.push(Buffer.from("]"));
    return Buffer.concat(chunks);
  }
}
