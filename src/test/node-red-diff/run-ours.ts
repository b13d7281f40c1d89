import { FlowEngine, type FlowSpec } from "@/server/runtime/engine";
import type { Message, NodeFactory, RuntimeServices } from "@/server/runtime/types";
import { createNodeRegistry } from "@/server/nodes/registry";
import { mapNodeRedImport } from "@/server/services/flows/node-red";
import { NO_SUBFLOWS } from "@/server/services/flows/node-red-subflows";
import type { SubflowSnapshot } from "@/shared/subflows";
import type { ConfigNodeSnapshot } from "@/shared/config-nodes";
import { builtinVariables, memoryContextStore } from "@/server/runtime/memory-context";
import { collectArrivals, realClock, type DiffClock } from "./collect";
import { collectorsOf } from "./normalize";
import type { Arrival, DiffCase } from "./types";

const registry = createNodeRegistry();
const COLLECTOR = "diff-collector";
const TAB = "diff-tab";

/**
 * A case as the import maps it (POST /flows/import's own mapping, without the database: an
 * organization with no nodes and no subflow definitions): the case's nodes in one tab, its
 * subflow definitions beside them, checked as the import checks them. Wires to collectors are
 * dropped by the import (their targets are not in the tab) and put back here.
 */
export function importCase(c: DiffCase) {
  const collectors = collectorsOf(c);
  const items = [
    { id: TAB, type: "tab", label: c.name },
    ...(c.subflows ?? []),
    ...(c.configNodes ?? []),
    ...c.nodes.map((n, i) => ({ x: 200, y: 100 + 40 * i, ...n, z: TAB })),
  ];
  const mapped = mapNodeRedImport(registry, items, { takenNodeIds: new Set(), subflows: NO_SUBFLOWS });
  if (mapped.graphs.length !== 1) throw new Error(`the case imported as ${mapped.graphs.length} flows`);
  const graph = mapped.graphs[0]!;
  const warnings = mapped.warnings.filter((w) => !collectors.some((id) => w.endsWith(` to ${id} was dropped: the target is not in the same tab`)));
  const connections = [...graph.connections];
  for (const n of c.nodes) {
    (n.wires ?? []).forEach((port, source_port) => {
      for (const target of port) if (collectors.includes(target)) connections.push({ source: n.id, source_port, target });
    });
  }
  const subflows: Record<string, SubflowSnapshot> = {};
  mapped.newSubflows.forEach((def, i) => {
    const checked = mapped.checkedSubflows.graphs[i]!;
    subflows[def.id] = { id: def.id, name: def.name, revision: 1, env: def.env, nodes: checked.nodes, connections: checked.connections, groups: def.groups };
  });
  // Configuration nodes as a deployment carries them (credentials: none in a case).
  const configNodes: Record<string, ConfigNodeSnapshot> = {};
  for (const p of mapped.configPlan) configNodes[p.id] = { id: p.id, type: p.type, name: p.name, config: p.config, revision: 1, sealed_credentials: {} };
  return { nodes: graph.nodes, connections, groups: graph.groups ?? [], subflows, configNodes, collectors, warnings };
}

/**
 * Runs one differential case in our engine: the case's Node-RED nodes and subflows go through our
 * import mapping (as a user's flows.json would), collectors become sink nodes, context and env are
 * preset, and the messages are delivered into the input node as a wire would. `drive` then
 * reaches the flow from outside (HTTP requests to its http-in paths), recording what it got.
 */
export async function runOurs(
  c: DiffCase,
  services: RuntimeServices = {},
  options: { organizationSlug?: string; organizationId?: string; drive?: (record: (arrival: Arrival) => void) => Promise<void>; clock?: DiffClock } = {},
): Promise<{ arrivals: Arrival[]; errors: string[]; warnings: string[] }> {
  const { nodes, connections, groups, subflows, configNodes, collectors, warnings } = importCase(c);
  const unknown = [...nodes, ...Object.values(subflows).flatMap((s) => s.nodes), ...Object.values(configNodes)].filter((n) => n.type === "unknown");
  if (unknown.length > 0) throw new Error(`imported as unknown nodes: ${unknown.map((n) => n.id).join(", ")}; ${warnings.join("; ")}`);
  const arrivals: Arrival[] = [];
  const errors: string[] = [];
  const collector: NodeFactory = (ctx) => ({
    input(msg, _send, done) {
      arrivals.push({ collector: ctx.node.id, msg: JSON.parse(JSON.stringify(msg)) as Record<string, unknown> });
      done();
    },
  });
  const flowStore = memoryContextStore(new Map(Object.entries(structuredClone(c.flow ?? {}))));
  const globalStore = memoryContextStore(new Map(Object.entries(structuredClone(c.global ?? {}))));
  const engine = new FlowEngine({
    types: registry.runtimeTypes({ [COLLECTOR]: { behaviour: collector, outputs: () => 0 } }),
    services,
    callbacks: {
      onFlowState: () => undefined,
      onNodeStatus: () => undefined,
      onDebug: () => undefined,
      onNodeError: (e) => errors.push(`${e.nodeId}: ${e.error}`),
    },
    contextStores: () => ({ flow: flowStore, global: globalStore }),
    variables: (spec, node) =>
      builtinVariables({ ...(c.env ?? {}), NR_NODE_ID: node.id, NR_NODE_NAME: node.name, NR_NODE_PATH: `${spec.flowId}/${node.id}`, NR_FLOW_ID: spec.flowId, NR_FLOW_NAME: c.name }),
    closeTimeoutMs: 500,
    configSchemaOf: (type) => {
      const definition = registry.get(type);
      return definition?.kind === "config" ? definition.configSchema : undefined;
    },
  });
  const spec: FlowSpec = {
    flowId: "flw_diff",
    organizationId: options.organizationId ?? "org_diff",
    organizationSlug: options.organizationSlug ?? "diff",
    revision: 1,
    name: c.name,
    nodes: [
      ...nodes.map((n) => ({ id: n.id, type: n.type, name: n.name, config: n.config, disabled: n.disabled })),
      ...collectors.map((id) => ({ id, type: COLLECTOR, name: "", config: {} })),
    ],
    connections,
    subflows,
    ...(groups.length > 0 ? { groups } : {}),
    ...(Object.keys(configNodes).length > 0 ? { configNodes } : {}),
  };
  const clock = options.clock ?? realClock;
  clock.install?.();
  try {
    const state = await engine.deploy(spec);
    if (state !== "running") throw new Error(`the flow did not start: ${errors.join("; ")}`);
    const inputId = c.input ?? c.nodes[0]!.id;
    const drive = options.drive;
    const got = await collectArrivals(
      c,
      () => arrivals,
      (msg) => engine.receive(spec.flowId, inputId, msg as Message),
      drive ? () => drive((a) => arrivals.push(a)) : undefined,
      clock,
    );
    return { arrivals: got, errors, warnings };
  } finally {
    // Real time again before closing: the close waits on a deadline of its own.
    clock.uninstall?.();
    await engine.close();
  }
}
