import { getTRPCErrorFromUnknown, TRPCError, type AnyProcedure } from "@trpc/server";

/** What tRPC's middlewares (ours, its input and output validators, the resolver) answer. */
interface MiddlewareResult {
  ok: boolean;
  data?: unknown;
  error?: unknown;
}

type Middleware = (opts: MiddlewareOptions) => Promise<MiddlewareResult>;

interface NextOptions {
  ctx?: object;
  input?: unknown;
  getRawInput?: () => Promise<unknown>;
}

interface CallState {
  path: string;
  type: string;
  ctx: object;
  input: unknown;
  getRawInput: () => Promise<unknown>;
}

interface MiddlewareOptions extends CallState {
  meta: unknown;
  signal: undefined;
  batchIndex: number;
  next(options?: NextOptions): Promise<MiddlewareResult>;
}

/**
 * The `next` of one level. Made by a function that returns it unnamed: a closure written inline as
 * `next: (…) => …` gets a name-setting wrapper from the TypeScript loader on every call.
 */
function nextOf(middlewares: Middleware[], meta: unknown, index: number, state: CallState): (options?: NextOptions) => Promise<MiddlewareResult> {
  return (options) =>
    step(middlewares, meta, index + 1, {
      path: state.path,
      type: state.type,
      ctx: options?.ctx ? { ...state.ctx, ...options.ctx } : state.ctx,
      input: options && "input" in options ? options.input : state.input,
      getRawInput: options?.getRawInput ?? state.getRawInput,
    });
}

/** A middleware's failure as tRPC reports it: a result, not a rejection. */
function failed(cause: unknown): MiddlewareResult {
  return { ok: false, error: getTRPCErrorFromUnknown(cause) };
}

/** One level: not an async function, so a level costs one promise (Next turns on async hooks, which run for each). */
function step(middlewares: Middleware[], meta: unknown, index: number, state: CallState): Promise<MiddlewareResult> {
  let result: Promise<MiddlewareResult> | MiddlewareResult;
  try {
    result = middlewares[index]!({
      path: state.path,
      type: state.type,
      ctx: state.ctx,
      input: state.input,
      getRawInput: state.getRawInput,
      meta,
      signal: undefined,
      batchIndex: 0,
      next: nextOf(middlewares, meta, index, state),
    });
  } catch (cause) {
    return Promise.resolve(failed(cause));
  }
  return typeof (result as Promise<MiddlewareResult>).then === "function" ? (result as Promise<MiddlewareResult>).then(undefined, failed) : Promise.resolve(result);
}

/**
 * Calls a procedure as tRPC's server-side caller does (the same middlewares in the same order:
 * ours, the input validator, the output validator, the resolver; the same options and results),
 * for the REST adapter. tRPC's own chain copies its options at every level with a
 * defineProperty-based spread, which was ~10 % of a REST request's time (docs/BENCHMARKS.md); here
 * each level gets a plain object literal. Errors come out as tRPC's caller throws them.
 */
export async function invokeProcedure(procedure: AnyProcedure, path: string, ctx: object, rawInput: unknown): Promise<unknown> {
  const def = procedure._def as unknown as { middlewares: Middleware[]; meta: unknown; type: string };
  const result = await step(def.middlewares, def.meta, 0, { path, type: def.type, ctx, input: undefined, getRawInput: async () => rawInput });
  if (!result) throw new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: "No result from middlewares - did you forget to `return next()`?" });
  if (!result.ok) throw result.error;
  return result.data;
}
