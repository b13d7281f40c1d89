/** A flow as the variables page offers it for a scope. */
export interface NamedFlow {
  id: string;
  name: string;
}

const SHORT_ID_LENGTH = 6;

/** The end of an id (its random part: a prefix like `flw_` is the same for every flow). */
function shortId(id: string): string {
  return id.length > SHORT_ID_LENGTH ? `…${id.slice(-SHORT_ID_LENGTH)}` : id;
}

/**
 * Each flow's label by id: its name, and only when another flow has the same name, the end of its
 * id too ("Hello flow (…a1b2c3)"), or the whole id should those ends collide as well.
 */
export function flowLabels(flows: readonly NamedFlow[]): Map<string, string> {
  const byName = new Map<string, NamedFlow[]>();
  for (const f of flows) byName.set(f.name, [...(byName.get(f.name) ?? []), f]);
  const labels = new Map<string, string>();
  for (const [name, same] of byName) {
    if (same.length === 1) {
      labels.set(same[0]!.id, name);
      continue;
    }
    const shorts = same.map((f) => shortId(f.id));
    const unique = new Set(shorts).size === shorts.length;
    same.forEach((f, i) => labels.set(f.id, `${name} (${unique ? shorts[i] : f.id})`));
  }
  return labels;
}
