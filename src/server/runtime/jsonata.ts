import jsonata from "jsonata";
import moment from "moment-timezone";
import { RE2JS } from "re2js";
import { LOOKBEHIND_REACH, lookaroundAsRe2 } from "./regex";
import type { Message, NodeContext } from "./types";
import type { WorkGate } from "./work-limits";

/**
 * JSONata expressions of node configs (change, switch, inject and template operands of type
 * `jsonata`, join's reduce mode), compiled once per deploy and evaluated against a message with
 * Node-RED's bindings ($flowContext, $globalContext, $env, $clone), under the function node's
 * limits (SPEC §12: "the same time and memory limits as function code", 1000 ms and 32 MiB).
 *
 * Where it runs, and why it is safe there. We measured both options on this machine: jsonata loaded
 * in a QuickJS sandbox costs ~190 ms per sandbox (one per node) and ~1.1 ms per evaluation plus the
 * worker hop, against ~0.05 ms in-process; and the sandbox could not reach the context stores
 * synchronously. So expressions run in-process, and every way an expression could hold the thread or
 * the heap is closed here:
 *
 * - Time: jsonata awaits a hook before every evaluation step (`__evaluate_entry`). Ours ends the
 *   evaluation with an error once it has run longer than `timeoutMs` (time spent evaluating, not
 *   waiting), and every YIELD_EVERY_MS it yields to the event loop (setImmediate), so other flows and
 *   requests go on while a slow expression runs. Loops, tail-recursive functions and $eval all go
 *   through evaluation steps. The only single steps that could run long natively are closed below.
 * - Depth: non-tail recursion is bounded by jsonata's `stack` option (MAX_DEPTH evaluation levels),
 *   so a runaway recursive function fails fast instead of growing a promise chain.
 * - Memory: every step that allocates (a function call's result, a range, an array or object
 *   constructor, a concatenation, a new sequence) is charged by the exit hook against a budget of
 *   `memoryBytes` for the whole evaluation (strings 2 bytes a character, array and object entries 16
 *   bytes). What an evaluation holds alive is at most what it allocated, so its memory is bounded by
 *   the budget (to a small constant factor). Sequences are capped at MAX_SEQUENCE items before they
 *   are allocated (jsonata's `sequence` option, which also covers the range operator), and the
 *   built-ins whose output can dwarf their input ($pad, $join, $replace) check their output size
 *   against the remaining budget before building it.
 * - Regular expressions (`/.../` literals, used by $match, $replace, $split, $contains) run on RE2
 *   (runtime/regex.ts), which matches in linear time; a lookbehind at the start and a lookahead at
 *   the end are rewritten for it (lookaroundAsRe2); other patterns RE2 lacks are refused at save
 *   time.
 * - $distinct, quadratic natively, is replaced by a linear one with the same results.
 */

export const JSONATA_DEFAULT_LIMITS = { timeoutMs: 1000, memoryBytes: 32 * 1024 * 1024 } as const;
const MAX_DEPTH = 2000;
const MAX_SEQUENCE = 1_000_000;
const YIELD_EVERY_MS = 10;
const GUARD = " flowplane guard";

export class JsonataError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code?: string) {
    super(message);
    this.name = "JsonataError";
    this.code = code;
  }
}

export type JsonataBindings = Record<string, unknown>;

/**
 * A binding the expression never sees: the flow's and organization's turn (runtime/work-limits.ts)
 * an evaluation waits for before it runs. nodeJsonataBindings sets it from the node's context.
 */
export const JSONATA_GATE: unique symbol = Symbol("flowplane jsonata gate");

export interface CompiledJsonata {
  readonly source: string;
  /**
   * Evaluates against a message. As Node-RED, an expression that names `msg` sees `{msg}`, any
   * other sees the message itself. Rejects with JsonataError.
   */
  evaluate(msg: unknown, bindings?: JsonataBindings, limits?: Partial<typeof JSONATA_DEFAULT_LIMITS>): Promise<unknown>;
}

/** Node-RED's test for "the expression refers to msg" (RED.util.prepareJSONataExpression). */
const LEGACY_MSG = /(^|[^a-zA-Z0-9_'".])msg([^a-zA-Z0-9_'"]|$)/;

interface JsonataFault {
  code?: string;
  message?: string;
  position?: number;
  token?: string;
}

function describe(err: unknown): JsonataError {
  if (err instanceof JsonataError) return err;
  if (err instanceof RangeError) return new JsonataError("the expression ran out of memory or stack", "memory");
  const fault = (err ?? {}) as JsonataFault;
  const where = typeof fault.position === "number" ? ` (at character ${fault.position})` : "";
  return new JsonataError(`${fault.message ?? String(err)}${where}`.slice(0, 500), fault.code);
}

/** Why `source` is not an expression we accept (a syntax error, or a regex RE2 lacks), or null. */
export function jsonataProblem(source: string): string | null {
  try {
    compileJsonata(source);
    return null;
  } catch (err) {
    return `is not a valid JSONata expression: ${err instanceof Error ? err.message : String(err)}`.slice(0, 400);
  }
}

/**
 * RegExp-shaped adapter over RE2 (what jsonata's `RegexEngine` option expects: exec and lastIndex).
 * A pattern with a lookbehind at its start or a lookahead at its end runs as the RE2 pattern
 * lookaroundAsRe2 makes of it: its group 1 is the match, and the search starts the lookbehind's
 * width before lastIndex (a lookbehind may read what an earlier match consumed).
 */
class Re2RegexEngine {
  lastIndex = 0;
  readonly source: string;
  private readonly re: RE2JS;
  /** With a lookaround (groups are then shifted by one): how far before lastIndex a search starts. */
  private readonly reach: number | null = null;
  constructor(pattern: RegExp) {
    this.source = pattern.source;
    let flags = 0;
    if (pattern.flags.includes("i")) flags |= RE2JS.CASE_INSENSITIVE;
    if (pattern.flags.includes("m")) flags |= RE2JS.MULTILINE;
    if (pattern.flags.includes("s")) flags |= RE2JS.DOTALL;
    const lookaround = lookaroundAsRe2(pattern.source);
    if (lookaround && "problem" in lookaround) throw new Error(lookaround.problem);
    if (lookaround) this.reach = lookaround.behindWidth ?? LOOKBEHIND_REACH;
    this.re = RE2JS.compile(lookaround ? lookaround.core : pattern.source, flags);
  }
  exec(input: string): (string[] & { index: number; input: string }) | null {
    const matcher = this.re.matcher(input);
    if (this.lastIndex > input.length) {
      this.lastIndex = 0;
      return null;
    }
    const shift = this.reach === null ? 0 : 1;
    let from = this.reach === null ? this.lastIndex : Math.max(0, this.lastIndex - this.reach);
    for (;;) {
      if (!matcher.find(from)) {
        this.lastIndex = 0;
        return null;
      }
      if (matcher.start(shift) >= this.lastIndex) break;
      from = matcher.start() + 1;
    }
    const groups: string[] = [];
    for (let i = shift; i <= matcher.groupCount(); i++) groups.push(matcher.group(i) ?? (undefined as unknown as string));
    const index = matcher.start(shift);
    this.lastIndex = matcher.end(shift);
    return Object.assign(groups, { index, input });
  }
}

interface AstNode {
  type?: string;
  value?: unknown;
  [key: string]: unknown;
}

/** Every regex literal of the expression must compile on RE2 (checked at save time, not first use). */
function checkRegexes(node: unknown, seen = new Set<unknown>()): void {
  if (node === null || typeof node !== "object" || seen.has(node)) return;
  seen.add(node);
  const ast = node as AstNode;
  if (ast.type === "regex" && ast.value instanceof RegExp) {
    try {
      new Re2RegexEngine(ast.value);
    } catch (err) {
      throw new JsonataError(`the regular expression /${ast.value.source}/ is not supported (RE2 syntax: no backreferences; lookaround only as a lookbehind at the start or a lookahead at the end): ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  for (const value of Object.values(ast)) checkRegexes(value, seen);
}

/** What one evaluation has spent: its time, and its allocations. */
class Guard {
  private active = 0;
  private resumedAt = performance.now();
  private spent = 0;
  constructor(
    private readonly timeoutMs: number,
    private readonly memoryBytes: number,
  ) {}

  entry(): Promise<void> | undefined {
    const now = performance.now();
    const elapsed = this.active + (now - this.resumedAt);
    if (elapsed > this.timeoutMs) throw new JsonataError(`the expression ran longer than its time limit (${this.timeoutMs} ms)`, "timeout");
    if (now - this.resumedAt < YIELD_EVERY_MS) return undefined;
    this.active = elapsed;
    return new Promise((resolve) =>
      setImmediate(() => {
        this.resumedAt = performance.now();
        resolve();
      }),
    );
  }

  charge(bytes: number): void {
    this.spent += bytes;
    if (this.spent > this.memoryBytes) throw new JsonataError(`the expression ran out of memory (limit ${this.memoryBytes} bytes)`, "memory");
  }

  /** Refuses an allocation of `bytes` before it is made. */
  reserve(bytes: number): void {
    if (this.spent + bytes > this.memoryBytes) throw new JsonataError(`the expression ran out of memory (limit ${this.memoryBytes} bytes)`, "memory");
  }
}

const ALLOCATING = new Set(["function", "partial", "apply", "binary", "unary", "transform", "path", "condition", "block"]);

function sizeOf(node: AstNode, result: unknown): number {
  if (typeof result === "string") {
    // A path or a name only refers to a string that exists already; a function or `&` made a new one.
    return node.type === "path" || node.type === "condition" || node.type === "block" ? 0 : result.length * 2;
  }
  if (Array.isArray(result)) return (result as { sequence?: boolean }).sequence || node.type !== "path" ? result.length * 16 : 0;
  if (result !== null && typeof result === "object" && (node.type === "unary" || node.type === "function" || node.type === "transform" || "group" in node)) {
    return Object.keys(result).length * 16;
  }
  return 0;
}

interface JsonataEnvironment {
  lookup(name: string | symbol): unknown;
}

const guardOf = (environment: JsonataEnvironment) => environment.lookup(GUARD) as Guard | undefined;

type BuiltinThis = { environment: JsonataEnvironment; input: unknown };
type Builtin = { implementation: (this: BuiltinThis, ...args: unknown[]) => unknown };
let originals: Promise<Record<"pad" | "join" | "replace", Builtin>> | undefined;
/** jsonata's own implementations, which the guarded ones call once the size is known to fit. */
function builtins() {
  originals ??= jsonata("{'pad': $pad, 'join': $join, 'replace': $replace}").evaluate({}) as Promise<Record<"pad" | "join" | "replace", Builtin>>;
  return originals;
}

/** Built-ins whose output can be far larger than their input: their size is checked before it is built. */
function guardedBuiltins(expression: jsonata.Expression): void {
  const reserve = (self: BuiltinThis, bytes: number) => guardOf(self.environment)?.reserve(bytes);
  expression.registerFunction(
    "pad",
    async function (this: BuiltinThis, str: string | undefined, width: number, char?: string) {
      if (str !== undefined) reserve(this, (str.length + Math.abs(width) * Math.max(1, (char ?? " ").length)) * 2);
      return (await builtins()).pad.implementation.call(this, str, width, char);
    },
    "<s-ns?:s>",
  );
  expression.registerFunction(
    "join",
    async function (this: BuiltinThis, strs: string[] | string | undefined, separator?: string) {
      if (Array.isArray(strs)) reserve(this, (strs.reduce((n, s) => n + String(s).length, 0) + (separator ?? "").length * strs.length) * 2);
      return (await builtins()).join.implementation.call(this, strs, separator);
    },
    "<a<s>s?:s>",
  );
  // At most (matches + 1) copies of the replacement beside the input; matches are at most its length + 1.
  expression.registerFunction(
    "replace",
    async function (this: BuiltinThis, str: string | undefined, pattern: unknown, replacement: unknown, limit?: number) {
      if (str !== undefined && typeof replacement === "string") {
        const count = limit === undefined ? str.length + 1 : Math.min(Math.max(0, limit), str.length + 1);
        reserve(this, (str.length + count * replacement.length) * 2);
      }
      const replace = (await builtins()).replace.implementation;
      return limit === undefined ? replace.call(this, str, pattern, replacement) : replace.call(this, str, pattern, replacement, limit);
    },
    "<s-(sf)(sf)n?:s>",
  );
  expression.registerFunction(
    "distinct",
    function (arr: unknown) {
      if (!Array.isArray(arr) || arr.length <= 1) return arr;
      const seen = new Set<string>();
      const out: unknown[] = [];
      for (const value of arr) {
        const key = canonical(value);
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(value);
      }
      if ((arr as { sequence?: boolean }).sequence) (out as unknown as { sequence: boolean }).sequence = true;
      return out;
    },
    "<x:x>",
  );
}

/** A key equal for deep-equal JSON values (object keys in any order), as jsonata's deepEquals. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") return typeof value === "string" ? `s${value}` : `${typeof value}:${String(value)}`;
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  return `{${Object.keys(value)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
    .join(",")}}`;
}

/** Restores Object.prototype on the null-prototype objects jsonata builds (as Node-RED does), and plain arrays. */
function normalise(value: unknown, seen = new WeakSet<object>()): unknown {
  if (value === null || typeof value !== "object" || seen.has(value)) return value;
  // A moment ($moment) as it reaches JSON in Node-RED (a debug node, a message crossing a link): its toJSON().
  if (moment.isMoment(value)) return value.toJSON();
  seen.add(value);
  if (Array.isArray(value)) {
    // jsonata marks its sequences with own properties (sequence, keepSingleton...): not message data.
    for (const key of Object.keys(value)) if (!/^\d+$/.test(key)) delete (value as unknown as Record<string, unknown>)[key];
    value.forEach((v, i) => (value[i] = normalise(v, seen)));
    return value;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto === null) Object.setPrototypeOf(value, Object.prototype);
  else if (proto !== Object.prototype) return value;
  for (const [k, v] of Object.entries(value)) (value as Record<string, unknown>)[k] = normalise(v, seen);
  return value;
}

/**
 * Compiles an expression; throws JsonataError with jsonata's message (and the position) for a syntax
 * error or an unsupported regex, so a node schema can refuse it when the flow is saved.
 */
export function compileJsonata(source: string): CompiledJsonata {
  let expression: jsonata.Expression;
  try {
    expression = jsonata(source, { RegexEngine: Re2RegexEngine as unknown as RegExpConstructor, stack: MAX_DEPTH, sequence: MAX_SEQUENCE } as never);
  } catch (err) {
    throw describe(err);
  }
  checkRegexes(expression.ast());
  expression.assign(Symbol.for("jsonata.__evaluate_entry") as unknown as string, (_expr: AstNode, _input: unknown, environment: JsonataEnvironment) => guardOf(environment)?.entry());
  expression.assign(Symbol.for("jsonata.__evaluate_exit") as unknown as string, (expr: AstNode, _input: unknown, environment: JsonataEnvironment, result: unknown) => {
    if (expr.type && ALLOCATING.has(expr.type)) {
      const bytes = sizeOf(expr, result);
      if (bytes > 0) guardOf(environment)?.charge(bytes);
    }
  });
  expression.registerFunction("clone", (value: unknown) => (value === undefined ? undefined : structuredClone(value)), "<(oa)-:o>");
  guardedBuiltins(expression);
  const legacy = LEGACY_MSG.test(source);
  return {
    source,
    async evaluate(msg, bindings = {}, limits = {}) {
      const run = async () => {
        // The time budget starts when the evaluation does, not while it waits for its turn.
        const guard = new Guard(limits.timeoutMs ?? JSONATA_DEFAULT_LIMITS.timeoutMs, limits.memoryBytes ?? JSONATA_DEFAULT_LIMITS.memoryBytes);
        try {
          const result = await expression.evaluate(legacy ? { msg } : msg, { ...bindings, [GUARD]: guard });
          return normalise(result);
        } catch (err) {
          throw describe(err);
        }
      };
      const gate = (bindings as { [JSONATA_GATE]?: WorkGate })[JSONATA_GATE];
      return gate ? gate.run(run) : run();
    },
  };
}

/** moment's methods (format, tz, add, diff, isValid...): what `$moment(...).name(...)` may call. */
const MOMENT_PROTO = moment.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
const MOMENT_METHODS = Object.getOwnPropertyNames(MOMENT_PROTO).filter((name) => name !== "constructor" && !name.startsWith("_") && typeof MOMENT_PROTO[name] === "function");

/**
 * A moment whose methods JSONata can call. Node-RED's JSONata (a patched copy) looks up inherited
 * properties, so `$moment().tz("Europe/Berlin").format()` reaches moment's prototype; the jsonata
 * package looks up own properties only. So each method is put on the instance (not enumerable, so
 * the value still reads as a moment), calling the prototype's, and a moment it returns gets the same.
 */
function jsonataMoment(m: moment.Moment): moment.Moment {
  const target = m as unknown as Record<string, unknown>;
  for (const name of MOMENT_METHODS) {
    Object.defineProperty(target, name, {
      value: (...args: unknown[]) => {
        const result = MOMENT_PROTO[name]!.apply(m, args);
        return moment.isMoment(result) && result !== m ? jsonataMoment(result) : result;
      },
      enumerable: false,
      configurable: true,
      writable: true,
    });
  }
  return m;
}

/** Node-RED's $moment: moment-timezone's moment(), as util.js prepareJSONataExpression binds it. */
const momentBinding = (...args: Parameters<typeof moment>) => jsonataMoment(moment(...args));

/**
 * Node-RED's bindings for a node: $flowContext, $globalContext (plain or nested keys), $env and
 * $moment; and, when the node's services bound work (RuntimeServices.workLimits), its flow's and
 * organization's JSONata gate.
 */
export function nodeJsonataBindings(ctx: Pick<NodeContext, "context" | "env"> & Partial<Pick<NodeContext, "services" | "organizationId" | "flowId">>): JsonataBindings {
  const bindings: JsonataBindings = {
    flowContext: (key: string) => readContext(ctx.context.flow, key),
    globalContext: (key: string) => readContext(ctx.context.global, key),
    env: (name: string) => ctx.env.get(name) ?? "",
    moment: momentBinding,
  };
  const limits = ctx.services?.workLimits;
  if (limits && ctx.organizationId !== undefined && ctx.flowId !== undefined) {
    (bindings as { [JSONATA_GATE]?: WorkGate })[JSONATA_GATE] = limits.jsonataGate(ctx.organizationId, ctx.flowId);
  }
  return bindings;
}

function readContext(store: NodeContext["context"]["flow"], key: string): unknown {
  const [head, ...rest] = key.split(".");
  let value = store.get(head ?? key);
  for (const part of rest) {
    if (value === null || typeof value !== "object" || !Object.prototype.hasOwnProperty.call(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

export type { Message };
