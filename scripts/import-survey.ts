/**
 * What our import makes of real flows.json files: each file under the given folders (any .json
 * that is a Node-RED flow export) goes through the import's own mapping (that of POST
 * /flows/import?dry_run=true, without the database), and every reason a node of Node-RED's core was
 * not imported as itself (unsupported, or partial: "not carried over") is listed with how many nodes
 * and which files; Dashboard 1 and 2 nodes likewise, and the other (contrib) types counted. A tool, not a test: usage `npm run import:survey -- <folder> [...]`.
 * docs/NODE-RED-EXAMPLES.md ("Real flows") has the last survey's results.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { createNodeRegistry } from "../src/server/nodes/registry";
import { mapNodeRedImport } from "../src/server/services/flows/node-red";
import { NO_SUBFLOWS } from "../src/server/services/flows/node-red-subflows";

/** Node-RED's core node types (@node-red/nodes), configuration nodes included. */
const CORE = new Set([
  "inject", "debug", "complete", "catch", "status", "link in", "link out", "link call", "comment", "function", "switch", "change", "range",
  "template", "delay", "trigger", "exec", "filter", "rbe", "mqtt in", "mqtt out", "mqtt-broker", "http in", "http response", "http request",
  "http proxy", "tls-config", "websocket in", "websocket out", "websocket-listener", "websocket-client", "tcp in", "tcp out", "tcp request",
  "udp in", "udp out", "csv", "html", "json", "xml", "yaml", "split", "join", "sort", "batch", "file", "file in", "watch", "junction", "group",
  "global-config",
]);

function flowFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return flowFiles(p);
    return name.endsWith(".json") ? [p] : [];
  });
}

function main() {
  const roots = process.argv.slice(2).filter((a) => a !== "--");
  if (roots.length === 0) throw new Error("usage: npm run import:survey -- <folder> [...]");
  const registry = createNodeRegistry();
  type Tally = Map<string, { nodes: number; files: Set<string> }>;
  /** Counts one node under `key`, and the file it was in. */
  const count = (tally: Tally, key: string, file: string) => {
    const entry = tally.get(key) ?? { nodes: 0, files: new Set<string>() };
    entry.nodes++;
    entry.files.add(file);
    tally.set(key, entry);
  };
  const reasons: Tally = new Map();
  const note = (key: string, file: string) => count(reasons, key, file);
  const contribTypes: Tally = new Map();
  const contrib = (type: string, file: string) => count(contribTypes, type, file);
  let files = 0;
  let refused = 0;
  for (const root of roots) {
    for (const file of flowFiles(root)) {
      let items: unknown;
      try {
        items = JSON.parse(readFileSync(file, "utf8"));
      } catch {
        continue;
      }
      if (!Array.isArray(items) || !items.some((n) => n && typeof n === "object" && "type" in n && "wires" in n)) continue;
      files++;
      const rel = path.relative(root, file);
      try {
        const mapped = mapNodeRedImport(registry, items as Array<Record<string, unknown>>, { takenNodeIds: new Set(), subflows: NO_SUBFLOWS });
        for (const r of mapped.report) {
          if (r.support === "supported") continue;
          // Node-RED's core and the Dashboards (1: ui_*, 2: ui-*), which we offer: each reason; any other type: counted as a contrib type.
          if (CORE.has(r.type) || /^ui[-_]/.test(r.type)) note(`${r.type}: ${r.support}: ${(r.reason ?? "").slice(0, 200)}`, rel);
          else contrib(r.type, rel);
        }
      } catch (err) {
        refused++;
        note(`the whole file is refused: ${(err instanceof Error ? err.message : String(err)).slice(0, 200)}`, rel);
      }
    }
  }
  console.log(`${files} flow files, ${refused} refused whole`);
  for (const [reason, { nodes, files: where }] of [...reasons].sort((a, b) => b[1].nodes - a[1].nodes)) {
    console.log(`${String(nodes).padStart(5)}  ${reason}  [${where.size} files: ${[...where].slice(0, 3).join(", ")}${where.size > 3 ? ", …" : ""}]`);
  }
  console.log(`\nother types not imported as themselves (contrib nodes; on a device they run as they are), by files:`);
  for (const [type, { nodes, files: where }] of [...contribTypes].sort((a, b) => b[1].files.size - a[1].files.size).slice(0, 40)) {
    console.log(`${String(where.size).padStart(5)} files ${String(nodes).padStart(5)} nodes  ${type}`);
  }
}

main();
