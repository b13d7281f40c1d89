import { FlowEngine, type FlowSpec } from "@/server/runtime/engine";
import type { Message, NodeFactory, RuntimeServices } from "@/server/runtime/types";
import { builtinBehaviours } from "@/server/nodes/behaviours";
import { createNodeRegistry } from "@/server/nodes/registry";
import { outputCount } from "@/server/nodes/types";
import { nodeRedToSelection } from "@/server/services/flows/node-red";
import { builtinVariables, memoryContextStore } from "@/server/runtime/memory-context";
import { collectArrivals } from "./collect";
import { collectorsOf } from "./normalize";
import { nodeRedSubflows, splitInstances } from "./subflows";
import type { Arrival, DiffCase } from "./types";

const registry = createNodeRegistry();
const COLLECTOR = "diff-collector";

/**
 * Runs one differential case in our engine: the case's Node-RED nodes go through our import mapping
 * (as a user's flows.json would), collectors become sink nodes, context and env are preset, and the
 * messages are delivered into the input node as a wire would.
 */
export async function runOurs(c: DiffCase, services: RuntimeServices = {}): Promise<{ arrivals: Arrival[]; errors: string[]; warnings: string[] }> {
  const collectors = collectorsOf(c);
  const split = splitInstances(c.nodes);
  const { nodes, connections, warnings } = nodeRedToSelection(registry, split.rest);
  connections.push(...split.connections.filter((w) => !collectors.includes(w.target)));
  const unknown = nodes.filter((n) => n.type === "unknown");
  if (unknown.length > 0) throw new Error(`imported as unknown nodes: ${unknown.map((n) => n.id).join(", ")}; ${warnings.join("; ")}`);
  // Wires to collectors are dropped by the import (their targets are not in the tab): put them back.
  for (const n of c.nodes) {
    (n.wires ?? []).forEach((port, source_port) => {
      for (const target of port) if (collectors.includes(target)) connections.push({ source: n.id, source_port, target });
    });
  }
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
    behaviours: new Map([...builtinBehaviours(), [COLLECTOR, collector]]),
    outputsOf: (node) => (node.type === COLLECTOR ? 0 : outputCount(registry.get(node.type)!, node.config)),
    services,
    callbacks: {
      onFlowState: () => undefined,
      onNodeStatus: () => undefined,
      onDebug: () => undefined,
      onNodeError: (e) => errors.push(`${e.nodeId}: ${e.error}`),
    },
    contextStores: () => ({ flow: flowStore, global: globalStore }),
    variables: (spec, node) =>
      builtinVariables({ ...(c.env ?? {}), NR_NODE_ID: node.id, NR_NODE_NAME: node.name, NR_FLOW_ID: spec.flowId, NR_FLOW_NAME: c.name }),
    nodeRedType: (type) => registry.get(type)?.nodeRed?.type,
    closeTimeoutMs: 500,
  });
  const spec: FlowSpec = {
    flowId: "flw_diff",
    organizationId: "org_diff",
    organizationSlug: "diff",
    revision: 1,
    name: c.name,
    nodes: [
      ...nodes.map((n) => ({ id: n.id, type: n.type, name: n.name, config: n.config, disabled: n.disabled })),
      ...split.instances,
      ...collectors.map((id) => ({ id, type: COLLECTOR, name: "", config: {} })),
    ],
    connections,
    subflows: nodeRedSubflows(registry, c.subflows ?? []),
  };
  try {
    const state = await engine.deploy(spec);
    if (state !== "running") throw new Error(`the flow did not start: ${errors.join("; ")}`);
    const inputId = c.input ?? c.nodes[0]!.id;
    const got = await collectArrivals(c, () => arrivals, (msg) => engine.receive(spec.flowId, inputId, msg as Message));
    return { arrivals: got, errors, warnings };
  } finally {
    await engine.close();
  }
}
