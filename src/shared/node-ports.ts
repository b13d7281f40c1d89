import { z } from "zod";

/**
 * How many output ports a node has, as data rather than code, so the server (catalog, graph
 * validation, export, runtime) and the browser (the editor draws a switch node's ports while its
 * rules are edited) apply the same rule:
 * - a number: always that many;
 * - `{ count_of: "rules" }`: as many as the config array has items (a switch node's rules);
 * - `{ value_of: "outputs" }`: the config's integer (a function node's `outputs`).
 */
export const outputsRuleSchema = z.union([
  z.number().int().min(0),
  z.object({ count_of: z.string() }),
  z.object({ value_of: z.string() }),
]);
export type OutputsRule = z.infer<typeof outputsRuleSchema>;

/** The most output ports a node can have (a connection's source_port is below this). */
export const MAX_OUTPUTS = 64;

export function outputsFor(rule: OutputsRule, config: Record<string, unknown>): number {
  if (typeof rule === "number") return rule;
  if ("count_of" in rule) {
    const value = config[rule.count_of];
    return Array.isArray(value) ? Math.min(value.length, MAX_OUTPUTS) : 0;
  }
  const value = Number(config[rule.value_of]);
  return Number.isInteger(value) && value > 0 ? Math.min(value, MAX_OUTPUTS) : 0;
}

/**
 * Whether a node has its input port, as data like the outputs rule: 0 or 1 always, or
 * `{ value_of: "inputs" }`: the config's value, 1 giving the port (an mqtt in with dynamic
 * subscription, Node-RED's `inputs: 1`; without it the node has none, as there).
 */
export const inputsRuleSchema = z.union([z.literal(0), z.literal(1), z.object({ value_of: z.string() })]);
export type InputsRule = z.infer<typeof inputsRuleSchema>;

export function inputsFor(rule: InputsRule, config: Record<string, unknown>): 0 | 1 {
  if (typeof rule === "number") return rule;
  return Number(config[rule.value_of]) === 1 ? 1 : 0;
}
