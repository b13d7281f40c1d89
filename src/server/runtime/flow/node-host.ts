import { DONE_LATER } from "../types";
import type { Done, Message, NodeBehaviour, NodeContext, NodeRoles, NodeStatus, RuntimeNode, RuntimeNodeType, SendValue } from "../types";
import type { TrackedExecution, TrackedStep } from "../executions/tracker";
import { memoryNodeContext } from "../memory-context";
import type { ExpandedNode } from "../subflows";
import { cutText, errorText, MAX_ERROR_TEXT, MAX_STATUS_TEXT, newMessageId, type FlowContextStores } from "./common";
import type { Flow } from "./flow";

/**
 * One running node, as Node-RED's Node: its behaviour and the context it was given, its wires and
 * status, and what it does for the node: send along its wires (through its flow), done() (to catch
 * or complete nodes), status() (to status nodes), errors (reported, then caught), and the input
 * call itself (deliver). Its roles are what its type declared; its scope, what its role read.
 */
export class NodeHost {
  behaviour: NodeBehaviour = {};
  ctx!: NodeContext;
  status: NodeStatus | null = null;
  /** A catch or status node's scope (null: all), read from its role as the flow starts. */
  scope?: string[] | null;
  /** A catch node's "uncaught only". */
  uncaught?: boolean;
  /**
   * Its input runs in the flow's turn, as its type said, asked once with its configuration: a
   * function node's code that can reach the context (NodeRoles.inTurn), or a change or switch node
   * whose JSONata goes on after the delivery while it reads or writes the context
   * (NodeRoles.jsonataTurn).
   */
  readonly inTurn: boolean;
  /**
   * Who runs its turns, set as it attaches: a function node's sandbox group (its flow's context
   * store; the group's worker runs their calls in order, so they may pipeline), or undefined: the
   * main thread, where two evaluations under way interleave, so its turns never pipeline.
   */
  turnGroup: unknown = undefined;
  private readonly inSandboxTurn: boolean;

  constructor(
    readonly flow: Flow,
    /** Its configuration is the one its type's schema parsed. */
    readonly node: RuntimeNode,
    /** The subflow instance the node runs in (null: the flow), and its part in it (runtime/subflows.ts). */
    readonly sub: ExpandedNode,
    /** wires[port] = target node ids */
    readonly wires: string[][],
    /** What its type declares to the engine (catch, status, complete, link target, link call, trigger). */
    readonly roles: NodeRoles,
  ) {
    this.inSandboxTurn = roles.inTurn?.(node.config) === true;
    this.inTurn = this.inSandboxTurn || roles.jsonataTurn?.(node.config) === true;
  }

  /** Builds the context its behaviour is made with. */
  attach(
    flowContext: Map<string, unknown>,
    stores: FlowContextStores,
    /** Nodes a complete node names in its scope (the function node then reports the msg its code left). */
    watched: ReadonlySet<string>,
    type: RuntimeNodeType | undefined,
  ): NodeContext {
    const flow = this.flow;
    const { spec, core } = flow;
    const { options, queue } = core;
    const { scope } = this.sub;
    const env = flow.variablesFor(this.sub, flow.configNodes?.globalEnv);
    const subflow = scope ? { instance_id: scope.instanceIds[0]!, instance_path: scope.instanceIds, subflow_id: scope.definition.id, node_id: this.sub.alias ?? this.node.id, path: scope.path } : undefined;
    this.ctx = {
      context: { node: memoryNodeContext(), flow: stores.flow, global: stores.global },
      env,
      node: this.node,
      flowId: spec.flowId,
      organizationId: spec.organizationId,
      organizationSlug: spec.organizationSlug,
      outputs: this.sub.role ? (this.sub.role === "instance" ? 1 : 0) : (type?.outputs(this.node.config) ?? 0),
      watchedByComplete: watched.has(this.node.id),
      send: (value) => flow.route(this, value, 0),
      status: (reported) => this.setStatus(reported),
      log: {
        warn: (message) => options.callbacks.onNodeError({ organizationId: spec.organizationId, flowId: spec.flowId, nodeId: this.node.id, error: cutText(message, MAX_ERROR_TEXT) }),
        error: (err, msg) => flow.failNode(this, err, msg && typeof msg === "object" ? msg : undefined),
      },
      debug: (data) =>
        options.callbacks.onDebug({
          organizationId: spec.organizationId,
          flowId: spec.flowId,
          nodeId: this.node.id,
          name: this.node.name,
          ...data,
          executionId: options.executions?.current?.id,
          ...(subflow ? { subflow } : {}),
        }),
      flowContext,
      busy: () => flow.load.busy,
      waiting: () => flow.load.queued + flow.load.inFlight,
      whenReady: (fn, options) => queue.whenReady(flow, fn, options?.parked === true),
      newMessageId,
      services: options.services ?? {},
      links: core.links.port(flow),
      configNode: <C extends Record<string, unknown>>(id: string, type: string) => {
        if (!id || !flow.configNodes) return undefined;
        const found = flow.configNodes.handle<C>(id, type);
        if ("handle" in found) return found.handle;
        flow.reportNodeError(this.node.id, new Error(found.error));
        return undefined;
      },
    };
    if (this.inSandboxTurn) this.turnGroup = this.ctx.context.flow;
    return this.ctx;
  }

  setStatus(reported: NodeStatus | null) {
    const { spec, core } = this.flow;
    const status = reported === null ? null : { fill: reported.fill, shape: reported.shape, text: cutText(String(reported.text ?? ""), MAX_STATUS_TEXT) };
    this.status = status;
    core.options.callbacks.onNodeStatus({ organizationId: spec.organizationId, flowId: spec.flowId, nodeId: this.node.id, status });
    if (this.flow.watchesStatus) this.flow.handleStatus(this, reported);
  }

  /** Hands a message to the node's input (the delivery queue calls it), with its send and done. */
  deliver(msg: Message, exec?: TrackedExecution, bytes = 0) {
    const flow = this.flow;
    const { queue, options } = flow.core;
    const tracker = options.executions;
    let step: TrackedStep | undefined;
    let outer: TrackedExecution | undefined;
    if (tracker) {
      exec ??= tracker.begin(flow.spec, this.node.id, msg, { sent: false });
      step = tracker.step(exec, this.node.id, this.ctx.outputs, msg);
      outer = tracker.current;
      tracker.current = exec;
      // The input call itself holds the execution open: a node may call done() before it sends (split).
      exec.pending++;
    }
    const send = this.sendFor(queue.hops.get(msg) ?? 0, exec, step);
    const done = this.doneFor(msg, exec, step);
    try {
      const result = this.behaviour.input!(msg, send, done);
      if (result && typeof (result as Promise<void>).then === "function") {
        // Counted until it settles: a node that works asynchronously (a function node's sandbox)
        // holds its messages outside the queue, and they weigh on the flow all the same.
        queue.hold(flow);
        flow.load.bytes += bytes;
        const inTurn = this.inTurn;
        if (inTurn) queue.turnBegan(flow, this.turnGroup);
        (result as Promise<unknown>).then(
          (value) => {
            queue.settled(flow, bytes);
            if (inTurn) queue.turnEnded(flow);
            if (value !== DONE_LATER) done();
          },
          (err: unknown) => {
            queue.settled(flow, bytes);
            if (inTurn) queue.turnEnded(flow);
            done(err);
          },
        );
      }
    } catch (err) {
      done(err);
    } finally {
      if (tracker) {
        tracker.current = outer;
        exec!.pending--;
        tracker.settle(exec!);
      }
    }
  }

  // Made by functions that return them unnamed: closures declared here by name would each get a
  // name-setting wrapper from the TypeScript loader on every message.
  private sendFor(inputHop: number, exec?: TrackedExecution, step?: TrackedStep): (value: SendValue) => void {
    return (value) => this.flow.route(this, value, inputHop, exec, step);
  }

  /** The node's `done`: the first call counts; with an error, the error is reported and caught. */
  private doneFor(msg: Message, exec?: TrackedExecution, step?: TrackedStep): Done {
    let finished = false;
    return (err, options) => {
      if (finished) return;
      finished = true;
      const flow = this.flow;
      if (err) {
        flow.failNode(this, err, msg, exec);
      } else if (flow.completeNodes.size > 0 && this.sub.role !== "instance" && !options?.noComplete) {
        // An instance node's own "done" reaches no complete node in Node-RED (it reports to its inner flow).
        flow.handleComplete(this.node, msg, exec);
      }
      // After catch and complete: what they send continues the execution before it can end.
      const failure = err || options?.handled;
      if (exec && step) flow.core.options.executions!.done(exec, step, msg, failure ? cutText(errorText(failure), MAX_ERROR_TEXT) : undefined);
    };
  }
}
