import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { DiffCase, RecordedCases } from "./types";

export const NODES_DIR = path.resolve(import.meta.dirname, "../../server/nodes");
/** Cases of the runtime itself (subflows, …), one folder per topic, beside the node types'. */
export const RUNTIME_CASES_DIR = path.resolve(import.meta.dirname, "../../server/runtime/cases");

export interface CaseFile {
  /** The node type's folder name (or the runtime topic's, e.g. "subflows"). */
  type: string;
  cases: DiffCase[];
  recordedPath: string;
  recorded?: RecordedCases;
}

/** Every node type folder (and runtime topic folder) with a cases.ts, optionally only the given ones. */
export async function loadCaseFiles(only: string[] = []): Promise<CaseFile[]> {
  const files: CaseFile[] = [];
  const dirs = [...readdirSync(NODES_DIR).sort().map((type) => [type, NODES_DIR] as const), ...(existsSync(RUNTIME_CASES_DIR) ? readdirSync(RUNTIME_CASES_DIR).sort().map((type) => [type, RUNTIME_CASES_DIR] as const) : [])];
  for (const [type, dir] of dirs) {
    if (only.length > 0 && !only.includes(type)) continue;
    const file = path.join(dir, type, "cases.ts");
    if (!existsSync(file)) continue;
    const mod = (await import(pathToFileURL(file).href)) as { cases?: DiffCase[] };
    if (!Array.isArray(mod.cases)) throw new Error(`${file} must export \`cases\` (DiffCase[])`);
    const names = new Set<string>();
    for (const c of mod.cases) {
      if (names.has(c.name)) throw new Error(`${file}: two cases are named "${c.name}"`);
      names.add(c.name);
    }
    const recordedPath = path.join(dir, type, "cases.recorded.json");
    const recorded = existsSync(recordedPath) ? (JSON.parse(readFileSync(recordedPath, "utf8")) as RecordedCases) : undefined;
    files.push({ type, cases: mod.cases, recordedPath, recorded });
  }
  return files;
}
