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

interface ProcedureDef {
  middlewares: Array<Middleware & { _type?: string }>;
  inputs: unknown[];
  output?: unknown;
  meta: unknown;
  type: string;
}

const chains = new WeakMap<object, Middleware[]>();

/**
 * The procedure's middlewares, with tRPC's input and output validators replaced by ones that do the
 * same with a synchronous parse where the parser has one (zod's `parse`, frozenOutput's
 * `parseSync`): tRPC calls zod's parseAsync, whose promises cost on every request. Same errors
 * (BAD_REQUEST with the parser's error as cause; "Output validation failed"), same input merging.
 */
function chainOf(def: ProcedureDef): Middleware[] {
  let chain = chains.get(def);
  if (!chain) {
    let inputIndex = 0;
    chain = def.middlewares.map((middleware) => {
      if (middleware._type === "input") {
        const parse = syncParseOf(def.inputs[inputIndex++]);
        return parse ? inputValidator(parse) : middleware;
      }
      if (middleware._type === "output") {
        const parse = syncParseOf(def.output);
        return parse ? outputValidator(parse) : middleware;
      }
      return middleware;
    });
    chains.set(def, chain);
  }
  return chain;
}

/**
 * A synchronous parse for a zod schema or a frozenOutput parser; undefined for anything else. A
 * schema with an async refinement or transform cannot be parsed synchronously: zod says so (the
 * refinement has then run once already, and its promise is left to itself), the schema is parsed
 * asynchronously as tRPC would, and from then on always. Our schemas have no async checks.
 */
function syncParseOf(parser: unknown): ((value: unknown) => unknown) | undefined {
  let sync: ((value: unknown) => unknown) | undefined;
  let async: ((value: unknown) => Promise<unknown>) | undefined;
  if (typeof parser === "function") {
    const parseSync = (parser as { parseSync?: unknown }).parseSync;
    if (typeof parseSync !== "function") return undefined;
    sync = parseSync as (value: unknown) => unknown;
    async = parser as (value: unknown) => Promise<unknown>;
  } else {
    const p = parser as { parse?: unknown; parseAsync?: unknown } | null | undefined;
    if (typeof p !== "object" || p === null || typeof p.parse !== "function" || typeof p.parseAsync !== "function") return undefined;
    sync = (p.parse as (value: unknown) => unknown).bind(p);
    async = (p.parseAsync as (value: unknown) => Promise<unknown>).bind(p);
  }
  let isAsync = false;
  return (value) => {
    if (isAsync) return async(value);
    try {
      return sync(value);
    } catch (error) {
      if (!isZodAsyncError(error)) throw error;
      isAsync = true;
      return async(value);
    }
  };
}

/** zod's "use parseAsync" error, by its message and class name (not the class: Next bundles its own zod). */
function isZodAsyncError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.constructor.name === "$ZodAsyncError" || error.message.startsWith("Encountered Promise during synchronous parse");
}

const isThenable = (value: unknown): value is Promise<unknown> => typeof (value as Promise<unknown> | null)?.then === "function";

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && !Array.isArray(value) && typeof value === "object";
}

/** The next level with the parsed input merged into what earlier inputs parsed, as tRPC merges it. */
function nextWithInput(opts: MiddlewareOptions, parsed: unknown): Promise<MiddlewareResult> {
  return opts.next({ input: isObject(opts.input) && isObject(parsed) ? { ...opts.input, ...parsed } : parsed });
}

/** tRPC's inputValidatorMiddleware, with a synchronous parse. */
function inputValidator(parse: (value: unknown) => unknown): Middleware {
  return (opts) =>
    opts.getRawInput().then((raw) => {
      let parsed: unknown;
      try {
        parsed = parse(raw);
      } catch (cause) {
        throw new TRPCError({ code: "BAD_REQUEST", cause });
      }
      if (!isThenable(parsed)) return nextWithInput(opts, parsed);
      return parsed.then((value) => nextWithInput(opts, value), (cause: unknown) => {
        throw new TRPCError({ code: "BAD_REQUEST", cause });
      });
    });
}

/** tRPC's outputValidatorMiddleware, with a synchronous parse. */
function outputValidator(parse: (value: unknown) => unknown): Middleware {
  const invalid = (cause: unknown) => new TRPCError({ message: "Output validation failed", code: "INTERNAL_SERVER_ERROR", cause });
  return (opts) =>
    opts.next().then((result) => {
      if (!result.ok) return result;
      let data: unknown;
      try {
        data = parse(result.data);
      } catch (cause) {
        throw invalid(cause);
      }
      if (!isThenable(data)) return { ...result, data };
      return data.then(
        (value) => ({ ...result, data: value }),
        (cause: unknown) => {
          throw invalid(cause);
        },
      );
    });
}

/** getRawInput for a call, returned unnamed (see nextOf). */
function rawInputOf(rawInput: unknown): () => Promise<unknown> {
  return () => Promise.resolve(rawInput);
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
  const def = procedure._def as unknown as ProcedureDef;
  const result = await step(chainOf(def), def.meta, 0, { path, type: def.type, ctx, input: undefined, getRawInput: rawInputOf(rawInput) });
  if (!result) throw new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: "No result from middlewares - did you forget to `return next()`?" });
  if (!result.ok) throw result.error;
  return result.data;
}
