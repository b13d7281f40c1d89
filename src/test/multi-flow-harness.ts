import { afterEach } from "vitest";
import { FlowEngine, type EngineOptions, type FlowSpec } from "@/server/runtime/engine";
import type { Message, NodeFactory } from "@/server/runtime/types";
import { createNodeRegistry } from "@/server/nodes/registry";

export interface TestFlow {
  flowId: string;
  /** Default org_test. */
  organizationId?: string;
  nodes: Array<{ id: string; type: string; name?: string; config?: Record<string, unknown> }>;
  connections?: Array<{ source: string; target: string; source_port?: number }>;
}

/**
 * Several flows (of one or more organizations) in one real engine, with the built-in node types
 * and a `sink` type recording what reaches it: for what crosses flows (links). Flows are closed
 * after each test.
 */
export function closingMultiFlowEngines() {
  const open: FlowEngine[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((e) => e.close()));
  });
  /** `extraTypes`: node types of the test's own (no outputs, config as given). */
  return async (flows: TestFlow[], options: Partial<EngineOptions> = {}, extraTypes: Record<string, NodeFactory> = {}) => {
    const own = (type: string) => type === "sink" || type in extraTypes;
    const registry = createNodeRegistry();
    const arrivals: Array<{ sink: string; msg: Message }> = [];
    const errors: Array<{ flowId: string; nodeId: string; error: string }> = [];
    const sink: NodeFactory = (ctx) => ({
      input(msg, _send, done) {
        arrivals.push({ sink: ctx.node.id, msg });
        done();
      },
    });
    const engine = new FlowEngine({
      types: registry.runtimeTypes(Object.fromEntries([["sink", sink], ...Object.entries(extraTypes)].map(([type, behaviour]) => [type, { behaviour, outputs: () => 0 }]))),
      callbacks: {
        onFlowState: () => undefined,
        onNodeStatus: () => undefined,
        onDebug: () => undefined,
        onNodeError: (e) => errors.push({ flowId: e.flowId, nodeId: e.nodeId, error: e.error }),
      },
      closeTimeoutMs: 500,
      ...options,
    });
    open.push(engine);
    const specOf = (f: TestFlow): FlowSpec => ({
      flowId: f.flowId,
      organizationId: f.organizationId ?? "org_test",
      organizationSlug: "acme",
      revision: 1,
      nodes: f.nodes.map((n) => ({
        id: n.id,
        type: n.type,
        name: n.name ?? "",
        config: own(n.type) ? (n.config ?? {}) : (registry.get(n.type)!.configSchema.parse(n.config ?? {}) as Record<string, unknown>),
      })),
      connections: (f.connections ?? []).map((c) => ({ source: c.source, target: c.target, source_port: c.source_port ?? 0 })),
    });
    for (const f of flows) await engine.deploy(specOf(f));
    return {
      engine,
      arrivals,
      errors,
      deploy: (f: TestFlow) => engine.deploy(specOf(f)),
      at: (sinkId: string) => arrivals.filter((a) => a.sink === sinkId).map((a) => a.msg),
      send(flowId: string, nodeId: string, msg: Partial<Message>) {
        engine.receive(flowId, nodeId, { _msgid: `m${Math.random().toString(36).slice(2)}`, ...msg });
      },
    };
  };
}
