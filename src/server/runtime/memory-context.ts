import type { ContextStore, SharedContextStore, VariableResolver } from "./types";

/**
 * The in-memory defaults behind NodeContext.context and NodeContext.env: what a node sees when the
 * engine is given no durable context store or variable source (unit tests, the sandbox bench).
 * Values are kept as given (Node-RED's memory store keeps references too).
 */
export function memoryContextStore(map: Map<string, unknown> = new Map()): SharedContextStore {
  return {
    get: (key) => map.get(key),
    set: (key, value) => {
      if (value === undefined) map.delete(key);
      else map.set(key, value);
    },
    keys: () => [...map.keys()],
    increment: (key, by = 1) => {
      const current = map.get(key);
      const next = (typeof current === "number" ? current : 0) + by;
      map.set(key, next);
      return next;
    },
  };
}

export const memoryNodeContext = (): ContextStore => memoryContextStore();

const NAME = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Node-RED's built-in names only: no variables are defined. */
export function builtinVariables(builtins: Record<string, string>): VariableResolver {
  const get = (name: string) => (Object.prototype.hasOwnProperty.call(builtins, name) ? builtins[name] : undefined);
  const values = Object.freeze({ ...builtins });
  return {
    get,
    values: () => values,
    substitute: (text) => (text.includes("${") ? text.replace(NAME, (_, name: string) => get(name) ?? "") : text),
  };
}
