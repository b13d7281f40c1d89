/**
 * The import's warnings as the dialog lists them: the renames that share a reason ("ids here are
 * 1-64 letters…", which every id of Node-RED 1.x's dotted form meets) become one line that says
 * how many, with the renames behind it; every other warning stands alone, in the order given. An
 * import of Node-RED's examples gave 13 such lines before the one that mattered ("the path /home is
 * taken…").
 */
export interface WarningLine {
  text: string;
  /** The warnings gathered in this line (each "old → new"), shown on request. */
  items: string[];
}

const RENAMED = /^node (\S+) was renamed (\S+): (.+)$/;

export function groupImportWarnings(warnings: readonly string[]): WarningLine[] {
  const renamesByReason = new Map<string, Array<[string, string]>>();
  for (const w of warnings) {
    const m = RENAMED.exec(w);
    if (m) renamesByReason.set(m[3]!, [...(renamesByReason.get(m[3]!) ?? []), [m[1]!, m[2]!]]);
  }
  const lines: WarningLine[] = [];
  const placed = new Set<string>();
  for (const w of warnings) {
    const m = RENAMED.exec(w);
    const group = m ? renamesByReason.get(m[3]!)! : undefined;
    if (!m || group!.length < 2) {
      lines.push({ text: w, items: [] });
      continue;
    }
    if (placed.has(m[3]!)) continue;
    placed.add(m[3]!);
    lines.push({ text: `${group!.length} nodes were given new ids (wires and references follow): ${m[3]}`, items: group!.map(([from, to]) => `${from} → ${to}`) });
  }
  // What needs a decision first; the renames, which need none, after.
  return [...lines.filter((l) => l.items.length === 0), ...lines.filter((l) => l.items.length > 0)];
}
