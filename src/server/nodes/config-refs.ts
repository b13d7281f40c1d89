import { z } from "zod";
import { CONFIG_REF_KEY } from "../../shared/config-nodes";
import type { NodeDefinition } from "./types";

/** A property of a node type's config that names a configuration node (SPEC §19). */
export interface ConfigRefProperty {
  property: string;
  /** The configuration node type it names. */
  type: string;
}

const cache = new WeakMap<NodeDefinition, ConfigRefProperty[]>();

/**
 * The properties of a type's config built with `configNodeRef(type)`, read from the JSON Schema the
 * editor receives (so the server checks exactly what the form offers as a picker). Node-RED's
 * references are top-level properties (`broker`, `tls`, `proxy`, `group`), and so are ours.
 */
export function configRefProperties(definition: NodeDefinition): ConfigRefProperty[] {
  let refs = cache.get(definition);
  if (!refs) {
    const schema = z.toJSONSchema(definition.configSchema, { io: "input", unrepresentable: "any" }) as { properties?: Record<string, Record<string, unknown>> };
    refs = Object.entries(schema.properties ?? {}).flatMap(([property, s]) => (typeof s[CONFIG_REF_KEY] === "string" ? [{ property, type: s[CONFIG_REF_KEY] as string }] : []));
    cache.set(definition, refs);
  }
  return refs;
}

/** The configuration node ids a node's (parsed) config names, with where: "" (none) is left out. */
export function configRefsOf(definition: NodeDefinition, config: Record<string, unknown>): Array<ConfigRefProperty & { id: string }> {
  return configRefProperties(definition).flatMap((r) => {
    const id = config[r.property];
    return typeof id === "string" && id !== "" ? [{ ...r, id }] : [];
  });
}
