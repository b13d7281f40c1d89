/**
 * Records Node-RED 4.1's answers to the differential cases (src/server/nodes/<type>/cases.ts) into
 * cases.recorded.json beside them, so `npm test` compares our engine with Node-RED without running
 * Node-RED. Usage: npm run diff:record [-- <type> ...]. Node-RED is the one the benchmark installs
 * (bench/node-red, installed on first use), embedded in this process (scripts/lib/node-red-embedded.ts)
 * with a `diff-collector` node type; each case gets a fresh tab, its context and env preset, its
 * messages delivered with node.receive() and what reaches each collector recorded in order.
 */
import { writeFileSync } from "node:fs";
import { loadCaseFiles } from "../src/test/node-red-diff/load-cases";
import type { RecordedCases } from "../src/test/node-red-diff/types";
import { runNodeRedCase, startNodeRed } from "./lib/node-red-embedded";

async function main() {
  const only = process.argv.slice(2).filter((a) => a !== "--");
  const nodeRed = await startNodeRed();
  try {
    const files = await loadCaseFiles(only);
    let index = 0;
    for (const file of files) {
      const recorded: RecordedCases = { node_red: nodeRed.version, cases: {} };
      for (const c of file.cases) {
        recorded.cases[c.name] = { arrivals: await runNodeRedCase(nodeRed.RED, c, index++) };
      }
      writeFileSync(file.recordedPath, `${JSON.stringify(recorded, null, 1)}\n`);
      console.log(`${file.type}: ${file.cases.length} cases recorded (Node-RED ${nodeRed.version})`);
    }
  } finally {
    await nodeRed.stop();
  }
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
