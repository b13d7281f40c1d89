import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { DiffCase, RecordedCases } from "./types";

export const NODES_DIR = path.resolve(import.meta.dirname, "../../server/nodes");

export interface CaseFile {
  /** The node type's folder name. */
  type: string;
  cases: DiffCase[];
  recordedPath: string;
  recorded?: RecordedCases;
}

/** Every node type folder with a cases.ts, optionally only the given types. */
export async function loadCaseFiles(only: string[] = []): Promise<CaseFile[]> {
  const files: CaseFile[] = [];
  for (const type of readdirSync(NODES_DIR).sort()) {
    if (only.length > 0 && !only.includes(type)) continue;
    const file = path.join(NODES_DIR, type, "cases.ts");
    if (!existsSync(file)) continue;
    const mod = (await import(pathToFileURL(file).href)) as { cases?: DiffCase[] };
    if (!Array.isArray(mod.cases)) throw new Error(`${file} must export \`cases\` (DiffCase[])`);
    const names = new Set<string>();
    for (const c of mod.cases) {
      if (names.has(c.name)) throw new Error(`${file}: two cases are named "${c.name}"`);
      names.add(c.name);
    }
    const recordedPath = path.join(NODES_DIR, type, "cases.recorded.json");
    const recorded = existsSync(recordedPath) ? (JSON.parse(readFileSync(recordedPath, "utf8")) as RecordedCases) : undefined;
    files.push({ type, cases: mod.cases, recordedPath, recorded });
  }
  return files;
}
