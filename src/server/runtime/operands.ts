import moment from "moment-timezone";
import { z } from "zod";
import { compileJsonata, jsonataProblem, nodeJsonataBindings, type CompiledJsonata } from "./jsonata";
import { deleteProperty, getProperty, isPropertyPath, parseJsonSafe, parsePath, setMessageProperty, setProperty } from "./properties";
import { compileSafeRegex, safeRegexProblem, type SafeRegex } from "./regex";
import type { Message, NodeContext } from "./types";
import { OPERAND_TYPES, OPERAND_TYPE_TITLES, type OperandType } from "../../shared/operand-types";

/**
 * The one operand model (Node-RED's "typed input"): a value in a node's config is a string and a type
 * saying how to read it. Every node with operands (change, switch, inject, template, and any later
 * one) declares them with the convention of two sibling properties, `<name>` (the string) and
 * `<name>_type` (one of OPERAND_TYPES), and evaluates them here; the editor renders such a pair as
 * one typed input. Types, as Node-RED 4.1's RED.util.evaluateNodeProperty:
 *
 * - msg, flow, global: a property of the message, or a key (or nested path "a.b") of the flow's or
 *   the organization's context (ctx.context, SPEC §13);
 * - env: a variable (ctx.env.get): "NAME" or "${NAME}", or a text in which every ${NAME} is replaced;
 * - str, num, bool, json, bin: literals (bin: a JSON array of bytes or a string, as a Buffer);
 * - date: "" the current time in ms, "iso" an ISO 8601 string, "object" a Date, else a moment.js format;
 * - re: a regular expression (RE2, see runtime/regex.ts);
 * - jsonata: an expression (runtime/jsonata.ts), the only asynchronous one.
 *
 * As Node-RED does when it loads a flow, a literal whose whole value is `${NAME}` reads the variable
 * instead (kept as written when there is none); it is resolved at each use, so a changed variable
 * reaches running flows without a redeploy.
 */
export { OPERAND_TYPES, OPERAND_TYPE_TITLES, type OperandType } from "../../shared/operand-types";
export const operandType = z.enum(OPERAND_TYPES);

/** Types that name a place a value can be written to (change's property, template's field). */
export const TARGET_TYPES = ["msg", "flow", "global"] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

export interface Operand {
  value: string;
  type: OperandType;
}

const WHOLE_VARIABLE = /^\$\{(\S+)\}$/;

/** Why `value` is not a valid operand of `type`, or null. Used by every node schema (save/deploy/import). */
export function operandProblem(value: string, type: OperandType): string | null {
  if (WHOLE_VARIABLE.test(value) && type !== "jsonata" && type !== "re") return null;
  switch (type) {
    case "msg":
      return isPropertyPath(value) ? null : "must be a property path such as payload.value (no __proto__, constructor or prototype)";
    case "flow":
    case "global":
      return isPropertyPath(value.replace(STORE_PREFIX, "")) ? null : "must be a context key such as count, stats.total or list[0] (no __proto__, constructor or prototype)";
    case "num":
      // "" reads as 0, as Node-RED's typed input allows it.
      return Number.isNaN(Number(value)) ? "must be a number" : null;
    case "bool":
      return /^(true|false)$/i.test(value) ? null : "must be true or false";
    case "json":
      try {
        parseJsonSafe(value);
        return null;
      } catch (err) {
        return `must be valid JSON: ${err instanceof Error ? err.message : String(err)}`;
      }
    case "bin":
      try {
        const data = parseJsonSafe(value);
        return Array.isArray(data) || typeof data === "string" ? null : "must be a JSON array of bytes or a JSON string";
      } catch {
        return "must be a JSON array of bytes or a JSON string";
      }
    case "re":
      return safeRegexProblem(value);
    case "jsonata":
      return jsonataProblem(value);
    default:
      return null;
  }
}

/**
 * A call of, or a reference to, JSONata's context bindings in an expression; or `$eval`, whose text
 * (built at run time, "$" & "flowContext(...)") is evaluated with the same bindings.
 */
const JSONATA_CONTEXT = /\$(?:flowContext|globalContext|eval)\b/;

/**
 * Whether a node whose input evaluates these operands (and settles when they are evaluated) must
 * run in the flow's turn (NodeRoles.jsonataTurn): one is JSONata, so the input goes on after the
 * drain that delivered it, and one reads or writes the flow or global context (a context operand or
 * target, or an expression naming $flowContext / $globalContext or calling $eval), which
 * Node-RED does before the next delivery begins.
 */
export function needsJsonataTurn(operands: ReadonlyArray<{ value: unknown; type: unknown }>): boolean {
  if (!operands.some((o) => o.type === "jsonata")) return false;
  return operands.some((o) => o.type === "flow" || o.type === "global" || (o.type === "jsonata" && typeof o.value === "string" && JSONATA_CONTEXT.test(o.value)));
}

/** Adds a zod issue at `path` when the operand is invalid (for superRefine in node schemas). */
export function checkOperand(ctx: z.RefinementCtx, path: Array<string | number>, value: string | undefined, type: OperandType | undefined): void {
  const problem = operandProblem(value ?? "", type ?? "str");
  if (problem) ctx.addIssue({ code: "custom", path, message: problem });
}

/** A literal's text: the variable's value when the whole text is `${NAME}` and it is defined (Node-RED). */
function literal(ctx: Pick<NodeContext, "env">, value: string): string {
  const whole = WHOLE_VARIABLE.exec(value);
  if (!whole) return value;
  const found = ctx.env.get(whole[1]!);
  return found === undefined ? value : typeof found === "string" ? found : JSON.stringify(found);
}

/** Node-RED's evaluateEnvProperty: "NAME", "${NAME}", or a text with ${NAME} in it. */
export function envValue(ctx: Pick<NodeContext, "env">, value: string): unknown {
  const whole = /^\$\{([^}]+)\}$/.exec(value);
  if (whole) return ctx.env.get(whole[1]!) ?? "";
  if (!/\$\{\S+\}/.test(value)) return ctx.env.get(value) ?? "";
  return value.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
    const found = ctx.env.get(name);
    return found === undefined || found === null ? "" : typeof found === "string" ? found : String(found);
  });
}

type Stores = Pick<NodeContext, "context">;

/** Node-RED's `#:(store)::key` names a context store; there is one store here, so the prefix is dropped. */
const STORE_PREFIX = /^#:\([^)]*\)::/;

/**
 * A context key's name and the path inside its value, in the grammar of message properties (`[msg.x]`
 * read from `msg`). Inside a subflow, `$parent.` (repeated) names the context a level up
 * (runtime/subflows.ts): it stays on the key's name.
 */
function splitContextKey(key: string, msg?: Message): { head: string; rest: ReadonlyArray<string | number> } {
  const stripped = key.replace(STORE_PREFIX, "");
  const parent = /^(\$parent\.)+/.exec(stripped)?.[0] ?? "";
  let parts: ReadonlyArray<string | number>;
  try {
    parts = parsePath(stripped.slice(parent.length), msg);
  } catch (err) {
    throw new Error(`"${key.slice(0, 80)}" is not an allowed context key${err instanceof Error ? `: ${err.message}` : ""}`);
  }
  const [head, ...rest] = parts;
  return { head: parent + String(head), rest };
}

/** flow/global get with Node-RED's nested keys ("stats.total", "list[0]", "users[msg.id]"). */
export function getContextValue(ctx: Stores, scope: "flow" | "global", key: string, msg?: Message): unknown {
  const { head, rest } = splitContextKey(key, msg);
  let value = ctx.context[scope].get(head);
  for (const part of rest) {
    if (value === null || typeof value !== "object" || !Object.prototype.hasOwnProperty.call(value, part)) return undefined;
    value = (value as Record<string | number, unknown>)[part];
  }
  return value;
}

/** flow/global set (undefined deletes), creating the objects of a nested key on the way. */
export function setContextValue(ctx: Stores, scope: "flow" | "global", key: string, value: unknown, msg?: Message): void {
  const { head, rest } = splitContextKey(key, msg);
  const store = ctx.context[scope];
  if (rest.length === 0) {
    store.set(head, value);
    return;
  }
  const current = store.get(head);
  // Walk a copy (the store may hold the very object another node reads), then store it whole.
  const wrapper = { _msgid: "", root: current !== null && typeof current === "object" ? structuredClone(current) : typeof rest[0] === "number" ? [] : {} } as Message;
  const path = `root${rest.map((p) => (typeof p === "number" ? `[${p}]` : p.includes('"') ? `['${p}']` : `["${p}"]`)).join("")}`;
  if (value === undefined) deleteProperty(wrapper, path);
  else setProperty(wrapper, path, value);
  store.set(head, wrapper.root);
}

/** An operand made ready once per deploy (regexes and JSONata compiled), evaluated per message. */
export interface PreparedOperand {
  readonly operand: Operand;
  /** The value; a Promise only for jsonata. */
  evaluate(ctx: NodeContext, msg: Message): unknown;
  readonly async: boolean;
}

/** Node-RED's JSONata bindings for a node: $flowContext, $globalContext, $env, and $moment (moment-timezone). */
export function jsonataBindings(ctx: Pick<NodeContext, "context" | "env"> & Partial<Pick<NodeContext, "services" | "organizationId" | "flowId">>): Record<string, unknown> {
  return nodeJsonataBindings(ctx);
}

export function prepareOperand(operand: Operand): PreparedOperand {
  const { value, type } = operand;
  if (type === "jsonata") {
    const compiled: CompiledJsonata = compileJsonata(value);
    return { operand, async: true, evaluate: (ctx, msg) => compiled.evaluate(msg, jsonataBindings(ctx)) };
  }
  if (type === "re") {
    const regex: SafeRegex = compileSafeRegex(value);
    return { operand, async: false, evaluate: () => regex };
  }
  return { operand, async: false, evaluate: (ctx, msg) => evaluateSync(ctx, value, type, msg) };
}

function evaluateSync(ctx: NodeContext, raw: string, type: OperandType, msg: Message): unknown {
  switch (type) {
    case "msg":
      return getProperty(msg, withoutMsg(raw));
    case "flow":
    case "global":
      return getContextValue(ctx, type, raw, msg);
    case "env":
      return envValue(ctx, raw);
    case "num":
      return Number(literal(ctx, raw));
    case "bool":
      return /^true$/i.test(literal(ctx, raw));
    case "json":
      return parseJsonSafe(literal(ctx, raw));
    case "bin": {
      const data = parseJsonSafe(literal(ctx, raw));
      if (!Array.isArray(data) && typeof data !== "string") throw new Error("buffer operand: not a JSON array or string");
      return Buffer.from(data as string);
    }
    case "date":
      return dateValue(literal(ctx, raw));
    default:
      return String(literal(ctx, raw));
  }
}

/** Node-RED's date operand: "" ms since the epoch, "iso", "object", or a moment.js format. */
export function dateValue(format: string): unknown {
  if (!format) return Date.now();
  if (format === "object") return new Date();
  if (format === "iso") return new Date().toISOString();
  return moment().format(format);
}

/** Evaluates one operand against a message (sync unless it is jsonata). Prefer prepareOperand per deploy. */
export function evaluateOperand(ctx: NodeContext, operand: Operand, msg: Message): unknown {
  return prepareOperand(operand).evaluate(ctx, msg);
}

/** A place a value can be written to: a message property, or a flow or global context key. */
export interface Target {
  path: string;
  type: TargetType;
}

/** Node-RED accepts "msg.payload" where it means "payload". */
const withoutMsg = (path: string) => (path.startsWith("msg.") ? path.slice(4) : path);

export function getTarget(ctx: NodeContext, target: Target, msg: Message): unknown {
  if (target.type === "msg") return getProperty(msg, withoutMsg(target.path));
  return getContextValue(ctx, target.type, target.path, msg);
}

/**
 * Writes a value; undefined deletes (as Node-RED's setMessageProperty and context set). False when a
 * message property could not be written (its parent is not an object), as Node-RED.
 */
export function setTarget(ctx: NodeContext, target: Target, msg: Message, value: unknown, createMissing?: boolean): boolean {
  if (target.type === "msg") return setMessageProperty(msg, withoutMsg(target.path), value, createMissing ?? value !== undefined);
  setContextValue(ctx, target.type, target.path, value, msg);
  return true;
}

/** Zod for an operand pair's type: one of `types` (default: all), with a human title. */
export function operandTypeSchema<T extends OperandType>(types: readonly T[], title = "Type") {
  return z.enum(types as unknown as [T, ...T[]]).meta({ title, description: `How the value is read: ${types.map((t) => OPERAND_TYPE_TITLES[t]).join(", ")}` });
}
