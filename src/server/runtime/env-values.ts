import { compileJsonata } from "./jsonata";
import type { SharedContextStore, VariableResolver } from "./types";

/**
 * Node-RED's typed env properties (a subflow's, a group's, a global-config's): the value of a
 * `str`, `bool`, `num`, `json`, `bin` or `jsonata` entry. `env` and `cred` entries are their
 * callers' to resolve (they read other levels). Throws what Node-RED reports as "Error evaluating
 * env property" (bad JSON, a failing expression).
 */
export async function typedEnvValue(
  type: string,
  value: string,
  scope: { context: { flow: SharedContextStore; global: SharedContextStore }; env: (name: string) => unknown },
): Promise<unknown> {
  switch (type) {
    case "bool":
      return value === "true";
    case "num":
      return Number(value);
    case "json":
      return JSON.parse(value);
    case "bin":
      return Buffer.from(JSON.parse(value) as number[]);
    case "jsonata": {
      const read = (store: SharedContextStore) => (key: string) => store.get(key);
      return compileJsonata(value).evaluate(
        { _msgid: "" },
        { flowContext: read(scope.context.flow), globalContext: read(scope.context.global), env: (n: string) => scope.env(n) ?? "" },
      );
    }
    default:
      return value;
  }
}

/**
 * What a reader gets of an env value: a copy of an object (json, bin, jsonata), as Node-RED hands
 * out clones of those, so that a message carrying it cannot change it for the next reader.
 */
export function envValueCopy(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Buffer.isBuffer(value)) return Buffer.from(value);
  try {
    return structuredClone(value);
  } catch {
    // Something a clone cannot copy (a JSONata result holding a function): the value itself.
    return value;
  }
}

/**
 * `${NAME}` in a text, each name read through `lookup` (a subflow's or a group's levels), which
 * falls back to `base`'s substitution (the flow's variables, with its rules for secrets: SPEC §14).
 */
export function substituteLevels(
  text: string,
  lookup: (name: string, flow: (name: string) => unknown) => unknown,
  base: Pick<VariableResolver, "substitute">,
  options: Parameters<VariableResolver["substitute"]>[1],
): string {
  if (!text.includes("${")) return text;
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_.$]*)\}/g, (_, name: string) => {
    const v = lookup(name, (n) => {
      const r = base.substitute(`\${${n}}`, options);
      return r === "" ? undefined : r;
    });
    return v === undefined || v === null ? "" : String(v);
  });
}
