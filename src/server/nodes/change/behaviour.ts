import { defineBehaviour } from "../types";
import type { Done, Message, NodeContext, Send } from "../../runtime/types";
import { PropertyPathError } from "../../runtime/properties";
import { envValue, getTarget, prepareOperand, setTarget, type OperandType, type PreparedOperand, type Target, type TargetType } from "../../runtime/operands";
import { safeReplaceAll, type SafeRegex } from "../../runtime/regex";
import { inOrder } from "../../runtime/in-order";
import { changeNode } from "./definition";

/** One step of a rule, as Node-RED's applyRule: set (also used by move) or delete. */
type Step =
  | { t: "set"; target: Target; to: PreparedOperand; deepCopy: boolean }
  | { t: "delete"; target: Target }
  | { t: "change"; target: Target; from: PreparedOperand; fromType: OperandType; to: PreparedOperand; toType: OperandType; deepCopy: boolean };

class RuleError extends Error {}

/** What a "change" searches for, as Node-RED's getFromValueType: a literal, a number, a boolean or a regex. */
type From = { kind: "str" | "num" | "bool"; value: string } | { kind: "re"; regex: SafeRegex };

function fromOf(step: Extract<Step, { t: "change" }>, ctx: NodeContext, msg: Message): From {
  if (step.fromType === "re") return { kind: "re", regex: step.from.evaluate(ctx, msg) as SafeRegex };
  if (step.fromType === "msg" || step.fromType === "flow" || step.fromType === "global") {
    const value = step.from.evaluate(ctx, msg);
    if (typeof value === "number") return { kind: "num", value: String(value) };
    if (typeof value === "boolean") return { kind: "bool", value: String(value) };
    if (typeof value === "string") return { kind: "str", value };
    throw new RuleError(`Invalid 'from' property: unsupported type: ${typeof value}`);
  }
  if (step.fromType === "env") return { kind: "str", value: String(envValue(ctx, step.from.operand.value)) };
  return { kind: step.fromType as "str" | "num" | "bool", value: step.from.operand.value };
}

/** The new value of a string property for a "change" rule (Node-RED: a complete match of a num/bool/str replaces the type). */
function replaced(current: string, from: From, to: unknown, toType: OperandType): unknown {
  if (from.kind !== "re" && current === from.value) return to;
  const replacement = String(to);
  const result = from.kind === "re" ? safeReplaceAll(from.regex, current, replacement) : current.replaceAll(from.value, replacement);
  return toType === "bool" && result === replacement ? to : result;
}

/** Sets, changes, deletes or moves properties of the message or of flow/global context, rule by rule, as Node-RED 4.1's change node. */
export const changeBehaviour = defineBehaviour(changeNode, (ctx, config) => {
  // Parsed again so that rules saved before p_type and deep_copy existed read with their defaults.
  const { rules } = config;
  const target = (path: string, type: TargetType): Target => ({ path, type });
  const literal = (value: string, type: OperandType) => prepareOperand({ value, type });
  // Each rule becomes its steps, compiled once per deploy (regexes, JSONata).
  const programs: Step[][] = rules.map((r) => {
    switch (r.t) {
      case "set":
        return [{ t: "set", target: target(r.p, r.p_type), to: literal(r.to, r.to_type), deepCopy: r.deep_copy }];
      case "delete":
        return [{ t: "delete", target: target(r.p, r.p_type) }];
      case "change":
        return [{ t: "change", target: target(r.p, r.p_type), from: literal(r.from, r.from_type), fromType: r.from_type, to: literal(r.to, r.to_type), toType: r.to_type, deepCopy: r.deep_copy }];
      case "move": {
        const from = target(r.p, r.p_type);
        const to = target(r.to, r.to_type);
        // Node-RED moves in one step unless the destination is within the source (then through a temporary).
        if (r.to_type !== r.p_type || (r.p.includes(r.to) && r.p !== r.to)) {
          return [
            { t: "set", target: to, to: literal(r.p, r.p_type), deepCopy: false },
            { t: "delete", target: from },
          ];
        }
        const temp = target("_temp_move", r.to_type);
        return [
          { t: "set", target: temp, to: literal(r.p, r.p_type), deepCopy: false },
          { t: "delete", target: from },
          { t: "set", target: to, to: literal("_temp_move", r.p_type), deepCopy: false },
          { t: "delete", target: temp },
        ];
      }
    }
  });
  const steps = programs.flat();
  const anyAsync = steps.some((s) => s.t !== "delete" && s.to.async);

  /**
   * Applies one step; false: the message is dropped (an error was reported). As Node-RED's change
   * node, a message property that cannot be reached (`payload[msg.missing]`: an undefined reference)
   * is skipped silently; a context key that cannot fails the message.
   */
  const apply = (step: Step, msg: Message, to: unknown): boolean => {
    if (step.target.type !== "msg") return applyStep(step, msg, to);
    try {
      return applyStep(step, msg, to);
    } catch (err) {
      if (err instanceof PropertyPathError) return true;
      throw err;
    }
  };
  const applyStep = (step: Step, msg: Message, to: unknown): boolean => {
    if (step.t === "delete") {
      setTarget(ctx, step.target, msg, undefined);
      return true;
    }
    const value = step.deepCopy && to !== undefined ? structuredClone(to) : to;
    if (step.t === "set") {
      if (!setTarget(ctx, step.target, msg, value)) ctx.log.warn(`Cannot set property of non-object type: ${step.target.path}`);
      return true;
    }
    const from = fromOf(step, ctx, msg);
    const current = getTarget(ctx, step.target, msg);
    if (typeof current === "string") {
      setTarget(ctx, step.target, msg, replaced(current, from, value, step.toType));
    } else if (typeof current === "number" && from.kind === "num") {
      if (current === Number(from.value)) setTarget(ctx, step.target, msg, value);
    } else if (typeof current === "boolean" && from.kind === "bool") {
      if (String(current) === from.value) setTarget(ctx, step.target, msg, value);
    }
    return true;
  };

  const fail = (err: unknown, msg: Message) => {
    const message = err instanceof Error ? err.message : String(err);
    ctx.log.error(new Error(err instanceof RuleError ? message : `Invalid JSONata expression: ${message}`), msg);
  };

  // With an asynchronous rule (JSONata), messages are handled one at a time, in order: an evaluation
  // that yields to the event loop (jsonata.ts's guard, every few milliseconds of a busy thread) must
  // not let the messages behind it overtake it.
  const queue = inOrder();
  const applyAsync = async (msg: Message, send: Send, done: Done) => {
    for (const step of steps) {
      let to: unknown;
      try {
        to = step.t === "delete" ? undefined : await step.to.evaluate(ctx, msg);
        apply(step, msg, to);
      } catch (err) {
        fail(err, msg);
        done();
        return;
      }
    }
    send(msg);
    done();
  };

  return {
    input: anyAsync
      ? (msg, send, done) => queue(() => applyAsync(msg, send, done))
      : (msg, send, done) => {
          for (const step of steps) {
            try {
              apply(step, msg, step.t === "delete" ? undefined : step.to.evaluate(ctx, msg));
            } catch (err) {
              fail(err, msg);
              done();
              return;
            }
          }
          send(msg);
          done();
        },
  };
});
