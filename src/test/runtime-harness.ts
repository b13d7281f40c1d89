import { afterEach } from "vitest";
import { FlowEngine, type EngineOptions, type FlowSpec } from "@/server/runtime/engine";
import type { DebugSubflowSource, Message, NodeFactory, NodeStatus, RuntimeServices } from "@/server/runtime/types";
import { createNodeRegistry } from "@/server/nodes/registry";
import { WebhookRegistry } from "@/server/runtime/webhooks";
import { SandboxPool } from "@/server/runtime/sandbox/sandbox-pool";
import { variableResolver, type VariableSource } from "@/server/runtime/variables";
import { isSubflowInstanceType, SUBFLOW_PORT_TYPES, type SubflowSnapshot } from "@/shared/subflows";
import type { ConfigNodeSnapshot } from "@/shared/config-nodes";

export interface HarnessNode {
  id: string;
  type: string;
  config?: Record<string, unknown>;
  name?: string;
}

/**
 * Loads a tiny flow into a real engine with a `sink` node type that records what reaches it, as
 * Node-RED's node-red-node-test-helper does. Configs go through the type's schema (defaults filled).
 * `extraTypes` adds node types of the test's own (no outputs, config passed as is, like `sink`).
 */
export async function loadTestFlow(
  nodes: HarnessNode[],
  connections: Array<{ source: string; target: string; source_port?: number }>,
  services: RuntimeServices = {},
  extraTypes: Record<string, NodeFactory> = {},
  /**
   * Context stores, variables and executions for the flow (default: in memory, Node-RED's built-in
   * names only, none recorded); subflow definitions its instances use; the configuration nodes its
   * deployment carries (SPEC §19; `configTypes` adds configuration node types of the test's own,
   * by schema, beside the registry's) and the connection pool (default: the engine's own).
   */
  engineOptions: Pick<EngineOptions, "contextStores" | "variables" | "executions" | "connections" | "maxQueuedBytesPerFlow" | "highWaterMark"> & {
    subflows?: Record<string, SubflowSnapshot>;
    configNodes?: Record<string, ConfigNodeSnapshot>;
    configTypes?: Record<string, { parse(value: unknown): unknown }>;
    flowId?: string;
    organizationId?: string;
  } = {},
) {
  const registry = createNodeRegistry();
  const received: Message[] = [];
  /** Which sink each message reached, in order. */
  const arrivals: Array<{ sink: string; msg: Message }> = [];
  const statuses: Array<{ nodeId: string; status: NodeStatus | null }> = [];
  const debug: Array<{ nodeId: string; msg: unknown; property: string; format: string; topic?: string; subflow?: DebugSubflowSource }> = [];
  const errors: Array<{ nodeId: string; error: string }> = [];
  const waiters: Array<() => void> = [];
  const sink: NodeFactory = (ctx) => ({
    input(msg, _send, done) {
      received.push(msg);
      arrivals.push({ sink: ctx.node.id, msg });
      waiters.splice(0).forEach((w) => w());
      done();
    },
  });
  const ownType = (type: string) => type === "sink" || type in extraTypes;
  const webhooks = services.webhooks ?? new WebhookRegistry();
  const ownPool = services.sandboxes ? undefined : new SandboxPool();
  const engine = new FlowEngine({
    types: registry.runtimeTypes(Object.fromEntries([["sink", sink], ...Object.entries(extraTypes)].map(([type, behaviour]) => [type, { behaviour, outputs: () => 0 }]))),
    services: { webhooks, sandboxes: ownPool, ...services },
    callbacks: {
      onFlowState: () => undefined,
      onNodeStatus: (e) => statuses.push({ nodeId: e.nodeId, status: e.status }),
      onDebug: (e) => debug.push({ nodeId: e.nodeId, msg: e.msg, property: e.property, format: e.format, topic: e.topic, ...(e.subflow ? { subflow: e.subflow } : {}) }),
      onNodeError: (e) => errors.push({ nodeId: e.nodeId, error: e.error }),
    },
    closeTimeoutMs: 500,
    contextStores: engineOptions.contextStores,
    variables: engineOptions.variables,
    executions: engineOptions.executions,
    connections: engineOptions.connections,
    configSchemaOf: (type) => {
      if (engineOptions.configTypes && Object.hasOwn(engineOptions.configTypes, type)) return engineOptions.configTypes[type];
      const definition = registry.get(type);
      return definition?.kind === "config" ? definition.configSchema : undefined;
    },
    maxQueuedBytesPerFlow: engineOptions.maxQueuedBytesPerFlow,
    highWaterMark: engineOptions.highWaterMark,
  });
  const parseConfig = (type: string, config: Record<string, unknown> | undefined) =>
    ownType(type) || isSubflowInstanceType(type) || (SUBFLOW_PORT_TYPES as readonly string[]).includes(type)
      ? (config ?? {})
      : (registry.get(type)!.configSchema.parse(config ?? {}) as Record<string, unknown>);
  const subflows = engineOptions.subflows
    ? Object.fromEntries(
        Object.entries(engineOptions.subflows).map(([id, def]) => [id, { ...def, nodes: def.nodes.map((n) => ({ ...n, config: parseConfig(n.type, n.config) })) }]),
      )
    : undefined;
  const flowId = engineOptions.flowId ?? "flw_test";
  const spec: FlowSpec = {
    flowId,
    organizationId: engineOptions.organizationId ?? "org_test",
    organizationSlug: "acme",
    revision: 1,
    nodes: nodes.map((n) => ({
      id: n.id,
      type: n.type,
      name: n.name ?? "",
      config: parseConfig(n.type, n.config),
    })),
    connections: connections.map((c) => ({ source: c.source, target: c.target, source_port: c.source_port ?? 0 })),
    subflows,
    ...(engineOptions.configNodes ? { configNodes: engineOptions.configNodes } : {}),
  };
  const state = await engine.deploy(spec);
  return {
    engine,
    state,
    received,
    arrivals,
    statuses,
    debug,
    errors,
    webhooks,
    /** Sends a message into a node's input, as if a wire delivered it. */
    send(nodeId: string, msg: Partial<Message>) {
      engine.receive(flowId, nodeId, { _msgid: `m${Math.random().toString(36).slice(2)}`, ...msg });
    },
    async waitFor(count: number, timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} messages at the sink, got ${received.length}; errors: ${JSON.stringify(errors)}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 20);
        });
      }
      return received;
    },
    close: async () => {
      await engine.close();
      await ownPool?.close();
    },
  };
}

/**
 * loadTestFlow for a test file: every flow a test loads is closed after that test (afterEach), so
 * no engine, sandbox pool or timer outlives it.
 */
export function closingTestFlows(): typeof loadTestFlow {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((h) => h.close()));
  });
  return async (...args) => {
    const h = await loadTestFlow(...args);
    open.push(h);
    return h;
  };
}

/** loadTestFlow's engine options for variables read from `source` (SPEC §14), as the application wires them. */
export function variablesFrom(source: VariableSource): Pick<EngineOptions, "variables"> {
  return {
    variables: (spec, node, layers) => variableResolver(source, { organizationId: spec.organizationId, flowId: spec.flowId, flowName: spec.name }, node, layers),
  };
}

/**
 * A node type that holds each message (its input unsettled, so it weighs on the flow) until
 * `release()`: a flow made busy on purpose, to see a source node stop reading. After `release`,
 * later messages pass at once.
 */
export function gateNode(): { factory: NodeFactory; held: () => number; release: () => void } {
  const gate: Array<() => void> = [];
  let open = false;
  const factory: NodeFactory = () => ({
    input(msg, send, done) {
      if (open) return void (send(msg), done());
      return new Promise<void>((resolve) =>
        gate.push(() => {
          send(msg);
          done();
          resolve();
        }),
      );
    },
  });
  return {
    factory,
    held: () => gate.length,
    release: () => {
      open = true;
      for (const pass of gate.splice(0)) pass();
    },
  };
}
