import type { Arrival, DiffCase } from "./types";

/**
 * What is compared of a case's arrivals: JSON values (a Buffer as {type: "Buffer", data}), without
 * `_msgid`, with `parts.id` (random on both sides) replaced by its order of first appearance, and
 * only the `compare` properties when the case names them.
 */
export function normalizeArrivals(c: DiffCase, arrivals: Arrival[]): Arrival[] {
  const ids = new Map<string, string>();
  const idOf = (id: unknown) => {
    const key = String(id);
    if (!ids.has(key)) ids.set(key, `id${ids.size + 1}`);
    return ids.get(key)!;
  };
  const fixParts = (parts: unknown): unknown => {
    if (parts === null || typeof parts !== "object" || Array.isArray(parts)) return parts;
    const p = { ...(parts as Record<string, unknown>) };
    if ("id" in p) p.id = idOf(p.id);
    if ("parts" in p) p.parts = fixParts(p.parts);
    return p;
  };
  return arrivals.map(({ collector, msg }) => {
    const json = JSON.parse(JSON.stringify(msg)) as Record<string, unknown>;
    delete json._msgid;
    if ("parts" in json) json.parts = fixParts(json.parts);
    const kept = c.compare ? Object.fromEntries(c.compare.filter((k) => k in json).map((k) => [k, json[k]])) : json;
    return { collector, msg: kept };
  });
}

/** Collector ids of a case: wire targets that are not nodes of the case. */
export function collectorsOf(c: DiffCase): string[] {
  const ids = new Set(c.nodes.map((n) => n.id));
  const out = new Set<string>();
  for (const n of c.nodes) for (const port of n.wires ?? []) for (const t of port) if (!ids.has(t)) out.add(t);
  return [...out];
}
