import { readFileSync } from "node:fs";
import path from "node:path";
import type { DiffCase, NodeRedNode } from "../../../../test/node-red-diff/types";

/**
 * The whole Node-RED project of SPEC §16's done-when (src/test/fixtures/node-red-subflows-project.json:
 * nested groups, a junction, a subflow used twice, one instance overriding its env property, a
 * nested subflow with two outputs, a status output watched by a status node scoped to both
 * instances), run from its inject node as Node-RED 4.1 runs it. What reaches each debug node is what the debug node shows: every wire into a debug node also
 * goes to a collector named `debug:<its id>` (the debug node itself stays, in its group).
 */
export const PROJECT_FIXTURE = path.resolve(import.meta.dirname, "../../../../test/fixtures/node-red-subflows-project.json");
export const DEBUG_COLLECTOR_PREFIX = "debug:";
export const PROJECT_CASE = "the project: inject → junction → a subflow used twice (nesting another) → debug, in nested groups";

function projectCase(): DiffCase {
  const items = JSON.parse(readFileSync(PROJECT_FIXTURE, "utf8")) as NodeRedNode[];
  const tab = items.find((n) => n.type === "tab")!;
  const definitions = new Set(items.filter((n) => n.type === "subflow").map((n) => n.id));
  const debugIds = new Set(items.filter((n) => n.type === "debug").map((n) => n.id));
  const nodes = items
    .filter((n) => n.z === tab.id)
    .map(({ z: _z, ...n }) => (n.wires ? { ...n, wires: n.wires.map((port) => [...port, ...port.filter((t) => debugIds.has(t)).map((t) => `${DEBUG_COLLECTOR_PREFIX}${t}`)]) } : n) as NodeRedNode);
  const subflows = items.filter((n) => definitions.has(n.id) || (typeof n.z === "string" && definitions.has(n.z)));
  const inject = nodes.find((n) => n.type === "inject")!;
  return {
    name: PROJECT_CASE,
    nodes,
    subflows,
    input: inject.id,
    send: [{ msg: { topic: "first" } }, { msg: { topic: "second" } }],
    // Measured: the same arrivals at each debug node, in the same order. Across them the order
    // varies run to run in ours: scale, round and status text are function nodes whose code names
    // no flow or global context, so it runs in the sandbox beside the flow and answers
    // asynchronously (Node-RED runs it in the delivering turn; ours does so only for code that can
    // reach the shared context: NodeRoles.inTurn), and the payload and status branches interleave
    // otherwise. The same structure with synchronous nodes orders as Node-RED does (probed:
    // junction, two instances, nested instance, status output).
    orderPerCollector: "function nodes that name no shared context answer asynchronously from the sandbox: the payload and status branches interleave otherwise than in Node-RED",
    // Per message: one arrival at each instance's debug node, and one status of each instance.
    expect: 2 * 4,
  };
}

export const cases: DiffCase[] = [projectCase()];
