import { compileJsonata } from "./jsonata";
import type { SubflowEnvEntry } from "../../shared/subflows";
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

/**
 * One level's env properties (a subflow instance's, a group's) evaluated into `values` as Node-RED's
 * evaluateEnvProperties does when the level starts: typed entries first (typedEnvValue, reading
 * `above`: the levels above, as the level's own settings are still empty), then `env` entries, a
 * name or a text with ${NAME} resolved through `own` (this level's values first, then above); until
 * then an env entry's raw text is what another property of this level reads. A property that reads
 * itself reads the level above (node-red#2099). One that fails is undefined and reported through
 * `onError`, as Node-RED logs it.
 */
export async function evaluateEnvEntries(
  values: Map<string, unknown>,
  entries: readonly SubflowEnvEntry[],
  lookups: { above: (name: string) => unknown; own: (name: string) => unknown },
  context: { flow: SharedContextStore; global: SharedContextStore },
  onError: (message: string) => void,
): Promise<void> {
  const envTypes: SubflowEnvEntry[] = [];
  for (const e of entries) {
    try {
      if (e.type === "env") {
        envTypes.push(e);
        values.set(e.name, e.value);
      } else {
        values.set(e.name, await typedEnvValue(e.type, e.value, { context, env: lookups.above }));
      }
    } catch (err) {
      values.set(e.name, undefined);
      onError(`Error evaluating env property '${e.name}': ${String(err)}`);
    }
  }
  for (const { name, value: raw } of envTypes) {
    const value = raw === name ? `$parent.${name}` : raw;
    if (values.has(value)) {
      values.set(name, values.get(value));
      continue;
    }
    values.set(name, envProperty(value, lookups.own));
  }
}

/** Node-RED's evaluateEnvProperty: "NAME", "${NAME}", or a text with ${NAME} in it. */
export function envProperty(value: string, lookup: (name: string) => unknown): unknown {
  const whole = /^\$\{([^}]+)\}$/.exec(value);
  if (whole) return lookup(whole[1]!) ?? "";
  if (!/\$\{\S+\}/.test(value)) return lookup(value) ?? "";
  return value.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
    const v = lookup(name);
    return v === undefined ? "" : String(v);
  });
}

/**
 * Node-RED's mapEnvVarProperties for one text property: a value that is exactly `${NAME}` (or the
 * older `$(NAME)`) is the variable's value when the node starts (env.get: the subflow's, the
 * flow's, the organization's; a secret reads as nothing); anything else, or a name without a value,
 * stays as written. For properties a node reads once at start (an MQTT topic): a node that reads
 * its variables when it uses them (`VariableResolver.substitute`) follows a changed variable.
 */
export function wholeEnvValue(value: string, get: (name: string) => unknown): string {
  const m = /^\$\{(\S+)\}$/.exec(value) ?? /^\$\((\S+)\)$/.exec(value);
  if (!m) return value;
  const v = get(m[1]!);
  return v === undefined || v === null ? value : typeof v === "string" ? v : JSON.stringify(v);
}
