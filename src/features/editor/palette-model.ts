import type { CatalogEntry } from "./model";

const ORDER = ["input", "output", "function", "network", "parser", "sequence", "storage", "common", "dashboard"];

export interface PaletteGroup {
  cat: string;
  items: CatalogEntry[];
}

/** The palette's list: the types a search matches, grouped by category in the palette's order. */
export function paletteGroups(catalog: CatalogEntry[], search: string, inSubflow?: { type: string }): PaletteGroup[] {
  const q = search.trim().toLowerCase();
  const list = catalog
    // Configuration nodes are organization resources (Configuration tab, property pickers), never canvas nodes.
    .filter((c) => c.kind !== "config")
    // A subflow's port nodes (subflow_only) belong in a definition's canvas, never on a flow's palette.
    .filter((c) => (inSubflow ? c.type !== inSubflow.type : !c.subflow_only))
    .filter((c) => !q || c.type.includes(q) || c.name.toLowerCase().includes(q) || c.description.toLowerCase().includes(q));
  // Subflows are listed under their definition's category, after the built-in ones.
  const extra = [...new Set(list.map((c) => c.category))].filter((c) => !ORDER.includes(c)).sort();
  return [...ORDER, ...extra].map((cat) => ({ cat, items: list.filter((c) => c.category === cat) })).filter((g) => g.items.length > 0);
}

/**
 * What Enter in the search box adds: the type named exactly as typed, else the first match as
 * listed; nothing for an empty search (Enter there adds nothing by surprise).
 */
export function searchChoice(groups: PaletteGroup[], search: string): CatalogEntry | null {
  const q = search.trim().toLowerCase();
  if (!q) return null;
  const all = groups.flatMap((g) => g.items);
  return all.find((c) => c.type === q || c.name.toLowerCase() === q) ?? all[0] ?? null;
}
