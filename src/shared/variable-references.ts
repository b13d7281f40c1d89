/**
 * Which variables a flow uses (SPEC §14), isomorphic: the editor lists them and warns on deploy
 * about undefined ones; the runtime resolves `${NAME}` with the same pattern.
 */

/** `${NAME}` as Node-RED writes it in a node property. */
export const VARIABLE_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * A property that is one `${NAME}` and nothing else: what Node-RED's `RED.validators.number`
 * accepts in a number's place, and its runtime replaces by the variable's value
 * (`mapEnvVarProperties`).
 */
export const WHOLE_VARIABLE_REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** The name of a whole-property reference (`"${MQTT_PORT}"` → `MQTT_PORT`), else undefined. */
export function wholeReferenceName(value: unknown): string | undefined {
  return typeof value === "string" ? WHOLE_VARIABLE_REFERENCE.exec(value.trim())?.[1] : undefined;
}

/** `env.get("NAME")` / `env.get('NAME')` in function code. */
const ENV_GET = /\benv\.get\(\s*(["'])([A-Za-z_][A-Za-z0-9_]*)\1\s*\)/g;

/** Node-RED's built-in names, always defined. */
export const BUILTIN_VARIABLES = new Set(["NR_NODE_ID", "NR_NODE_NAME", "NR_NODE_PATH", "NR_GROUP_ID", "NR_GROUP_NAME", "NR_FLOW_ID", "NR_FLOW_NAME", "NR_SUBFLOW_ID", "NR_SUBFLOW_NAME", "NR_SUBFLOW_PATH"]);

/** The names `${NAME}` references in a text, in order of first appearance. */
export function referencedNames(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(VARIABLE_REFERENCE)) names.add(m[1]!);
  return [...names];
}

function collect(value: unknown, into: Set<string>, depth = 0): void {
  if (typeof value === "string") {
    if (value.includes("${")) for (const name of referencedNames(value)) into.add(name);
    if (value.includes("env.get(")) for (const m of value.matchAll(ENV_GET)) into.add(m[2]!);
  } else if (value && typeof value === "object" && depth < 32) {
    for (const item of Array.isArray(value) ? value : Object.values(value)) collect(item, into, depth + 1);
  }
}

export interface VariableUse {
  name: string;
  /** The nodes that use it, in the flow's order. */
  nodeIds: string[];
}

/** Every variable the nodes use (built-ins left out), by name, each with the nodes using it. */
export function variablesUsed(nodes: ReadonlyArray<{ id: string; config: unknown }>): VariableUse[] {
  const uses = new Map<string, string[]>();
  for (const node of nodes) {
    const names = new Set<string>();
    collect(node.config, names);
    for (const name of names) {
      if (BUILTIN_VARIABLES.has(name)) continue;
      const ids = uses.get(name) ?? [];
      ids.push(node.id);
      uses.set(name, ids);
    }
  }
  return [...uses].map(([name, nodeIds]) => ({ name, nodeIds })).sort((a, b) => a.name.localeCompare(b.name));
}

/** Where a used name is defined for one flow: the flow's own variable wins over the organization's. */
export function definitionOf<V extends { name: string; flow_id: string | null }>(variables: readonly V[], flowId: string, name: string): V | undefined {
  return variables.find((v) => v.name === name && v.flow_id === flowId) ?? variables.find((v) => v.name === name && v.flow_id === null);
}
