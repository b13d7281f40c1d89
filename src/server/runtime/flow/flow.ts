import type { FlowState, Message, NodeFactory, NodeStatus, RuntimeNode, RuntimeNodeType, SendValue, SharedContextStore, VariableResolver } from "../types";
import { groupScopes, groupVariables, type GroupScope } from "../group-env";
import type { TrackedExecution, TrackedStep } from "../executions/tracker";
import { builtinVariables } from "../memory-context";
import type { ConfigNodeHost, FlowConfigNodes } from "../config-nodes";
import { variableResolver, VariableSet, type GlobalEnv } from "../variables";
import { evaluateSubflowEnv, expandSubflows, statusFromMessage, SubflowContextScope, subflowSetting, subflowVariables, type ExpandOptions, type ExpandedNode, type SubflowScope } from "../subflows";
import { catchText, cloneMessage, cutText, errorExtras, errorText, MAX_ERROR_TEXT, newMessageId, type EngineOptions, type FlowContextStores, type FlowSpec } from "./common";
import { FlowLoad, type DeliveryQueue } from "./delivery";
import type { LinkIndex } from "./links";
import { NodeHost } from "./node-host";

/** What every flow of one engine shares: its options, its delivery queue, its link index. */
export interface EngineCore {
  readonly options: EngineOptions;
  readonly queue: DeliveryQueue;
  readonly links: LinkIndex;
  /** How subflow instances are expanded (which types have scopes: their roles). */
  readonly expandOptions: ExpandOptions;
  /** Configuration nodes and their shared connections on this instance (SPEC §19). */
  readonly configHost: ConfigNodeHost;
  /** The flow and global context stores of a flow being started. */
  contextStoresFor(spec: FlowSpec): Promise<FlowContextStores>;
}

/** The catch and status nodes of one subflow instance. */
interface ScopeIndex {
  catchNodes: NodeHost[];
  statusNodes: NodeHost[];
}

/**
 * One running version of a flow, as Node-RED's Flow: it starts (context, subflow instances, its
 * nodes made with parsed configs and indexed by their roles) and stops (nodes closed with a
 * deadline, context stored), puts what a node sends on its wires (route), and routes errors, statuses
 * and completions to the catch, status and complete nodes whose scope covers the node. The lock
 * that keeps one operation per flow at a time is the engine's (FlowEngine.withLock).
 */
export class Flow {
  readonly nodes = new Map<string, NodeHost>();
  state: FlowState = "running";
  error?: string;
  readonly load = new FlowLoad();
  contextStores?: FlowContextStores;
  /** Catch nodes in Node-RED's order: scoped ones first, then "all", then "uncaught only". */
  catchNodes: NodeHost[] = [];
  statusNodes: NodeHost[] = [];
  /** Complete nodes per node id in their scope. */
  readonly completeNodes = new Map<string, NodeHost[]>();
  /** Catch and status nodes inside subflow instances, per instance (the flow's own are above). */
  private readonly scopes = new Map<SubflowScope, ScopeIndex>();
  /** Each node's innermost group, its env evaluated (group-env.ts); set as the flow starts. */
  private groupOfNode = new Map<string, GroupScope>();
  /** Whether any status node runs in the flow or its instances (statuses are routed only then). */
  watchesStatus = false;
  /** Its configuration nodes, prepared before its nodes (SPEC §19). */
  configNodes?: FlowConfigNodes;

  constructor(
    readonly core: EngineCore,
    readonly spec: FlowSpec,
    /** Bumped on every (re)start: deliveries queued for an older version are dropped; -1 once stopped. */
    public generation: number,
  ) {}

  private fail(error: string): FlowState {
    this.state = "error";
    this.error = error;
    this.core.options.callbacks.onFlowState({ organizationId: this.spec.organizationId, flowId: this.spec.flowId, state: "error", error });
    return "error";
  }

  /** Starts this version: resolves to "running", or "error" (reported) when a node or its context could not start. */
  async start(): Promise<FlowState> {
    const { spec, core } = this;
    const { options } = core;
    const flowContext = new Map<string, unknown>();
    let stores: FlowContextStores;
    try {
      stores = await core.contextStoresFor(spec);
    } catch (err) {
      return this.fail(`context could not be loaded: ${errorText(err)}`);
    }
    this.contextStores = stores;
    // Configuration nodes start before the nodes that use them, as in Node-RED.
    this.configNodes = await core.configHost.prepare({
      organizationId: spec.organizationId,
      flowId: spec.flowId,
      configNodes: spec.configNodes,
      context: stores,
      variables: (node, globalEnv) => this.variablesFor(node, globalEnv),
      onWarning: (message) => options.callbacks.onNodeError({ organizationId: spec.organizationId, flowId: spec.flowId, nodeId: spec.nodes[0]?.id ?? spec.flowId, error: cutText(message, MAX_ERROR_TEXT) }),
    });
    // Groups' env properties (Node-RED's Group.start), before the subflows and nodes that read them.
    if (spec.groups?.length) {
      const flowBase = this.flowVariables({ id: spec.flowId, name: spec.name ?? "", type: "tab", config: {} }, this.configNodes?.globalEnv);
      this.groupOfNode = await groupScopes(spec.groups, (name) => flowBase.get(name), { flow: stores.flow, global: stores.global }, (groupId, message) =>
        options.callbacks.onNodeError({ organizationId: spec.organizationId, flowId: spec.flowId, nodeId: groupId, error: cutText(message, MAX_ERROR_TEXT) }),
      );
    }
    let expanded: ReturnType<typeof expandSubflows>;
    try {
      expanded = expandSubflows(spec, core.expandOptions);
    } catch (err) {
      return this.fail(errorText(err));
    }
    // Each instance's flow context is its own (Node-RED's), `$parent.` reaching the level above; its
    // env properties are evaluated once, as it starts, parents first.
    const scopeStores = new Map<SubflowScope, SharedContextStore>();
    for (const scope of expanded.scopes) {
      const parent = scope.parent ? scopeStores.get(scope.parent)! : stores.flow;
      const own = new SubflowContextScope(spec.organizationId, `${spec.flowId}/${scope.instanceIds.join("/")}`, parent);
      scopeStores.set(scope, own);
      this.scopes.set(scope, { catchNodes: [], statusNodes: [] });
      // The instance node's group: the flow's, or its parent definition's (as this instance evaluated it).
      scope.group = (scope.parent ? scope.parent.groups.get(scope.instance.alias ?? scope.instance.id) : this.groupOfNode.get(scope.instance.id)) ?? null;
      const base = this.flowVariables(scope.instance, this.configNodes?.globalEnv);
      const report = (nodeId: string) => (message: string) =>
        options.callbacks.onNodeError({ organizationId: spec.organizationId, flowId: spec.flowId, nodeId, error: cutText(message, MAX_ERROR_TEXT) });
      await evaluateSubflowEnv(scope, (name) => base.get(name), { flow: own, global: stores.global }, report(scope.instance.id));
      // The definition's groups, for this instance: their env reads the instance's settings above them (Node-RED's Group inside a Subflow).
      if (scope.definition.groups?.length) {
        scope.groups = await groupScopes(scope.definition.groups, (name) => subflowSetting(scope, name, (n) => base.get(n)), { flow: own, global: stores.global }, (groupId, message) =>
          report(`${scope.instance.id}-${groupId}`)(message),
        );
      }
    }
    const wires = new Map<string, string[][]>();
    for (const c of expanded.connections) {
      const ports = wires.get(c.source) ?? [];
      (ports[c.source_port] ??= []).push(c.target);
      wires.set(c.source, ports);
    }
    const failures: string[] = [];
    // Each node's configuration parsed once, by its type's schema, before any node is made: the
    // complete nodes' scopes are known to every node's context, and behaviours get typed config.
    const parts: Array<{ node: ExpandedNode; factory: NodeFactory; type?: RuntimeNodeType; config: Record<string, unknown> }> = [];
    for (const node of expanded.nodes) {
      if (node.disabled) continue;
      if (node.role) {
        parts.push({ node, factory: this.subflowPart(node), config: node.config });
        continue;
      }
      const type = options.types.get(node.type);
      if (!type) continue;
      try {
        parts.push({ node, factory: type.behaviour, type, config: type.parse ? type.parse(node.config) : node.config });
      } catch (err) {
        failures.push(`${node.id}: ${errorText(err)}`);
        this.reportNodeError(node.id, err);
      }
    }
    const watched = new Set<string>();
    for (const p of parts) if (p.type?.roles?.complete) for (const id of p.type.roles.complete(p.config).scope) watched.add(id);
    for (const { node, factory, type, config } of parts) {
      const { scope: _scope, alias: _alias, role: _role, inner: _inner, disabled: _disabled, ...plain } = node;
      const host = new NodeHost(this, { ...plain, config }, node, wires.get(node.id) ?? [], type?.roles ?? {});
      const ctx = host.attach(flowContext, node.scope ? { ...stores, flow: scopeStores.get(node.scope)! } : stores, watched, type);
      try {
        let made = config;
        if (type?.resolveAtStart) {
          // A number written as ${NAME} is read now, as Node-RED maps a node's properties when it starts.
          const resolved = type.resolveAtStart(config, (name) => ctx.env.get(name));
          made = resolved.config;
          for (const error of resolved.errors) this.reportNodeError(node.id, new Error(error));
        }
        host.behaviour = await factory(ctx, made);
        this.nodes.set(node.id, host);
      } catch (err) {
        failures.push(`${node.id}: ${errorText(err)}`);
        this.reportNodeError(node.id, err);
      }
    }
    if (failures.length > 0) return this.fail(failures.join("; "));
    this.index();
    for (const host of this.nodes.values()) {
      try {
        await host.behaviour.start?.();
      } catch (err) {
        this.reportNodeError(host.node.id, err);
      }
    }
    options.callbacks.onFlowState({ organizationId: spec.organizationId, flowId: spec.flowId, state: "running" });
    return "running";
  }

  /** Stops this version: nothing more is sent or delivered; its nodes close (each within closeTimeoutMs); its context is stored. */
  async stop(keptNodeIds: Set<string>): Promise<void> {
    const { spec, core } = this;
    const { options } = core;
    core.links.removeFlow(this);
    this.generation = -1;
    // What waited for a turn is let go (and skipped: this version no longer delivers).
    core.queue.turnsStopped(this);
    this.load.readyWaiters.clear();
    this.load.parked = 0;
    options.executions?.flowStopped(spec.flowId, "the flow stopped while it ran (a deploy, a stop or a hand-over)");
    const timeout = options.closeTimeoutMs ?? 5000;
    await Promise.all(
      [...this.nodes.values()].map(async (host) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            Promise.resolve(host.behaviour.close?.(!keptNodeIds.has(host.node.id))),
            new Promise((resolve) => {
              timer = setTimeout(resolve, timeout);
            }),
          ]);
        } catch (err) {
          this.reportNodeError(host.node.id, err);
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    await this.configNodes?.release();
    try {
      await this.contextStores?.close?.();
    } catch (err) {
      this.reportNodeError(spec.nodes[0]?.id ?? spec.flowId, new Error(`context could not be stored: ${errorText(err)}`));
    }
    options.callbacks.onFlowState({ organizationId: spec.organizationId, flowId: spec.flowId, state: "stopped" });
  }

  /**
   * Puts a node's output on its wires. As Node-RED's Node.send: the first delivery of a message object
   * gets the object itself, every other delivery of it a clone, also when one object is sent on several
   * ports (a switch with "check all rules"), so no two nodes downstream share it.
   * `inputHop`: the hops of the message the node was handling when it sent (0 outside an input).
   */
  route(host: NodeHost, value: SendValue, inputHop: number, exec?: TrackedExecution, step?: TrackedStep): void {
    if (this.generation < 0 || value === null || value === undefined) return;
    const { options, queue } = this.core;
    if (options.fence && !options.fence(this.spec.flowId)) return;
    const tracker = options.executions;
    let begunFirst: TrackedExecution | undefined;
    let begunMore: TrackedExecution[] | undefined;
    // Every message passes here: no closure, array or set is made for the common case (one message
    // object, delivered once or to several targets); a set only once a second object is delivered.
    let deliveredFirst: Message | undefined;
    let deliveredMore: Set<Message> | undefined;
    const ports = Array.isArray(value) ? value.length : 1;
    for (let port = 0; port < ports; port++) {
      const portValue: Message | Message[] | null | undefined = Array.isArray(value) ? value[port] : value;
      if (portValue === null || portValue === undefined) continue;
      const targets = host.wires[port];
      const count = Array.isArray(portValue) ? portValue.length : 1;
      for (let i = 0; i < count; i++) {
        const msg: Message | null | undefined = Array.isArray(portValue) ? portValue[i] : portValue;
        if (msg === null || typeof msg !== "object") continue;
        msg._msgid ??= newMessageId();
        // The execution the message continues (see runtime/executions/tracker.ts), or a new one.
        let e = exec;
        let s = step;
        if (tracker) {
          if (!e || e.ended) {
            e = e ? undefined : tracker.execOf(msg, this.spec.flowId);
            s = undefined;
            if (!e) {
              e = tracker.begin(this.spec, host.node.id, msg, { sent: true });
              if (begunFirst === undefined) begunFirst = e;
              else (begunMore ??= []).push(e);
            }
          }
          s ??= tracker.senderStep(e, host.node.id, host.ctx.outputs, msg);
          tracker.sent(s, port);
        }
        if (!targets || targets.length === 0) continue;
        const bytes = queue.admit(this, host, msg, targets.length, inputHop);
        if (bytes === undefined) continue;
        for (const target of targets) {
          if (msg === deliveredFirst || deliveredMore?.has(msg)) {
            const copy = cloneMessage(msg);
            queue.hops.set(copy, queue.hops.get(msg)!);
            queue.enqueue(this, target, copy, bytes, undefined, e);
          } else {
            if (deliveredFirst === undefined) deliveredFirst = msg;
            else (deliveredMore ??= new Set()).add(msg);
            queue.enqueue(this, target, msg, bytes, undefined, e);
          }
        }
      }
    }
    if (begunFirst) tracker!.settle(begunFirst);
    if (begunMore) for (const e of begunMore) tracker!.settle(e);
    queue.scheduleDrain();
  }

  /**
   * Node-RED's catch semantics (Flow.handleError): the failed message, cloned, with msg.error =
   * {message, source: {id, type, name, count}} (an error it already had moves to msg._error), leaves
   * the catch nodes of the flow whose scope covers the failing node, scoped ones first; "uncaught
   * only" ones get it only when no catch node before them did. A message failing again and again
   * at the same node stops being caught at its tenth round (an error loop). A catch node's own
   * failures are not caught again. Inside a subflow instance, its own catch nodes are asked first;
   * when none takes it, the instance's level above is, as if the instance node had failed (scopes
   * match the instance), the source still the inner node (Subflow.handleError). Returns whether a
   * catch node took it.
   */
  handleError(failing: NodeHost, msg: Message, err: unknown, exec?: TrackedExecution): boolean {
    const source = failing.node;
    if (failing.roles.catch) return false;
    let count = 1;
    const previous = (msg.error as { source?: { id?: unknown; count?: unknown } } | undefined)?.source;
    if (previous && previous.id === source.id) {
      count = Number(previous.count) + 1;
      if (count === 10) {
        this.core.options.callbacks.onNodeError({ organizationId: this.spec.organizationId, flowId: this.spec.flowId, nodeId: source.id, error: "Message exceeded maximum number of catches" });
        return false;
      }
    }
    let scope = failing.sub.scope;
    let reporting = source.id;
    for (;;) {
      const catchNodes = scope ? this.scopes.get(scope)!.catchNodes : this.catchNodes;
      if (this.catchAt(catchNodes, source, reporting, msg, err, count, exec)) return true;
      if (!scope) return false;
      reporting = scope.instance.id;
      scope = scope.parent;
    }
  }

  /** One level of handleError: the catch nodes of one flow or instance; `reporting` is what their scopes are matched with. */
  private catchAt(catchNodes: NodeHost[], source: RuntimeNode, reporting: string, msg: Message, err: unknown, count: number, exec?: TrackedExecution): boolean {
    let handled = false;
    let handledByUncaught = false;
    for (const host of catchNodes) {
      if (host.scope && !host.scope.includes(reporting)) continue;
      if (host.uncaught && !handledByUncaught) {
        if (handled) continue;
        handledByUncaught = true;
      }
      let copy: Message;
      try {
        copy = cloneMessage(msg);
      } catch {
        copy = { _msgid: msg._msgid, payload: msg.payload };
      }
      if (Object.hasOwn(copy, "error")) copy._error = copy.error;
      copy.error = { message: catchText(err), source: { ...this.sourceOf(source), count }, ...errorExtras(err) };
      this.route(host, copy, this.core.queue.hops.get(msg) ?? 0, exec ?? this.core.options.executions?.execOf(msg, this.spec.flowId));
      handled = true;
    }
    return handled;
  }

  /**
   * Node-RED's status node: each status a node in its scope reports, as msg.status = {fill, shape,
   * text, source}. Inside a subflow instance, its own status nodes first; when none takes it and
   * the definition has no status output, the level above, matched as the instance node, the source
   * still the inner node (Subflow.handleStatus).
   */
  handleStatus(reporter: NodeHost, reported: NodeStatus | null) {
    const source = reporter.node;
    let scope = reporter.sub.scope;
    let reporting = source.id;
    for (;;) {
      const statusNodes = scope ? this.scopes.get(scope)!.statusNodes : this.statusNodes;
      let handled = false;
      for (const host of statusNodes) {
        if (host.scope && !host.scope.includes(reporting)) continue;
        const status: Record<string, unknown> = reported ? { ...reported } : {};
        if (reported && Object.hasOwn(reported, "text")) status.text = String(reported.text);
        status.source = this.sourceOf(source);
        this.route(host, { _msgid: newMessageId(), status }, 0);
        handled = true;
      }
      if (handled || !scope || scope.hasStatusPort) return;
      reporting = scope.instance.id;
      scope = scope.parent;
    }
  }

  /** Node-RED's complete node: a message a node in its scope finished with (done()), as msg.complete = {source}. */
  handleComplete(source: RuntimeNode, msg: Message, exec?: TrackedExecution) {
    const targets = this.completeNodes.get(source.id);
    if (!targets) return;
    for (const host of targets) {
      let copy: Message;
      try {
        copy = cloneMessage(msg);
      } catch {
        copy = { _msgid: msg._msgid, payload: msg.payload };
      }
      copy.complete = { source: this.sourceOf(source) };
      this.route(host, copy, this.core.queue.hops.get(msg) ?? 0, exec);
    }
  }

  /**
   * The flow's catch, status and complete nodes (by their roles), as Node-RED's Flow.start lists
   * them, and its link nodes in the organization's index. A status or complete node leaves out of
   * its scope the nodes it is wired to itself (Node-RED's guard against the simplest loop).
   */
  private index() {
    const catches = new Map<SubflowScope | null, NodeHost[]>();
    for (const host of this.nodes.values()) {
      const { roles } = host;
      const config = host.node.config;
      const scope = host.sub.scope;
      if (roles.catch) {
        const role = roles.catch(config);
        host.scope = role.scope;
        host.uncaught = role.uncaught;
        const list = catches.get(scope) ?? [];
        list.push(host);
        catches.set(scope, list);
      }
      if (roles.status) {
        const role = roles.status(config);
        const wired = new Set(host.wires.flat());
        host.scope = role.scope && role.scope.filter((id) => !wired.has(id));
        (scope ? this.scopes.get(scope)!.statusNodes : this.statusNodes).push(host);
        this.watchesStatus = true;
      }
      if (roles.complete) {
        const wired = new Set(host.wires.flat());
        for (const id of roles.complete(config).scope) {
          if (wired.has(id)) continue;
          const list = this.completeNodes.get(id) ?? [];
          list.push(host);
          this.completeNodes.set(id, list);
        }
      }
      if (roles.linkTarget || roles.linkCall) this.core.links.add(host);
    }
    const rank = (host: NodeHost) => (host.scope ? 0 : host.uncaught ? 2 : 1);
    // Array.prototype.sort is stable: equal ranks keep the flow's order, as in Node-RED.
    for (const [scope, list] of catches) {
      list.sort((a, b) => rank(a) - rank(b));
      if (scope) this.scopes.get(scope)!.catchNodes = list;
      else this.catchNodes = list;
    }
  }

  /**
   * A node's variable resolver (SPEC §14, group-env.ts, subflows.ts): a node of the flow reads its
   * group's settings over the flow's; a node inside a subflow instance reads its group in the
   * definition, then the instance's levels (each with the groups around its instance node), then
   * the flow's, as Node-RED's Group and Subflow getSetting do.
   */
  variablesFor(node: RuntimeNode & Partial<Pick<ExpandedNode, "scope" | "alias">>, globalEnv?: GlobalEnv): VariableResolver {
    const base = this.flowVariables(node, globalEnv);
    const scope = node.scope;
    if (!scope) {
      const group = this.groupOfNode.get(node.id);
      return group ? groupVariables(group, base) : base;
    }
    const inner = subflowVariables(scope, node, base);
    const group = node.alias === undefined ? undefined : scope.groups.get(node.alias);
    return group ? groupVariables(group, inner) : inner;
  }

  /** The flow's variable resolver for a node (SPEC §14), or Node-RED's built-in names (and the global-config env) only: before any group or subflow level. */
  flowVariables(node: RuntimeNode, globalEnv?: GlobalEnv): VariableResolver {
    const { spec } = this;
    const { variables } = this.core.options;
    if (variables) return variables(spec, node, { globalEnv });
    if (globalEnv) return variableResolver({ current: () => VariableSet.empty }, { organizationId: spec.organizationId, flowId: spec.flowId, flowName: spec.name }, node, { globalEnv });
    return builtinVariables({ NR_NODE_ID: node.id, NR_NODE_NAME: node.name, NR_NODE_PATH: `${spec.flowId}/${node.id}`, NR_FLOW_ID: spec.flowId, NR_FLOW_NAME: spec.name ?? "" });
  }

  /**
   * The behaviour of a subflow instance node (what enters it is sent on to what the definition's
   * input is wired to) and of an instance's status node (what reaches it sets the instance's status).
   */
  private subflowPart(node: ExpandedNode): NodeFactory {
    if (node.role === "instance") {
      return () => ({
        input(msg, send, done) {
          send(msg);
          done();
        },
      });
    }
    const instanceId = node.scope!.instance.id;
    return () => ({
      input: (msg, _send, done) => {
        const status = statusFromMessage(msg);
        const instance = this.nodes.get(instanceId);
        if (status !== undefined && instance) instance.ctx.status(status as NodeStatus);
        done();
      },
    });
  }

  /** A node as catch, status and complete messages name it: Node-RED's type name, and no empty name. */
  private sourceOf(node: RuntimeNode): { id: string; type: string; name?: string } {
    const type = this.core.options.types.get(node.type)?.nodeRedType ?? node.type;
    return node.name ? { id: node.id, type, name: node.name } : { id: node.id, type };
  }

  /** A node's error: its status turns red, and it is reported (not caught: handleError does that). */
  /**
   * A node's error about a message: to the catch nodes first, then reported as caught or not (the
   * debug sidebar shows only the uncaught ones, as Node-RED logs only those).
   */
  failNode(host: NodeHost, err: unknown, msg?: Message, exec?: TrackedExecution) {
    const withMessage = msg !== undefined && msg !== null && typeof msg === "object";
    const caught = withMessage ? this.handleError(host, msg, err, exec) : false;
    // The execution the failing message belongs to (an error's is always recorded): the Debug list links to it.
    const execution = exec ?? (withMessage ? this.core.options.executions?.execOf(msg, this.spec.flowId) : undefined);
    this.reportNodeError(host.node.id, err, caught, execution?.id);
  }

  reportNodeError(nodeId: string, err: unknown, caught = false, executionId?: string) {
    const { spec } = this;
    const { callbacks } = this.core.options;
    const error = cutText(errorText(err), MAX_ERROR_TEXT);
    const host = this.nodes.get(nodeId);
    const status: NodeStatus = { fill: "red", shape: "ring", text: error.slice(0, 120) };
    if (host) host.status = status;
    callbacks.onNodeError({ organizationId: spec.organizationId, flowId: spec.flowId, nodeId, error, ...(caught ? { caught } : {}), ...(executionId ? { executionId } : {}) });
    callbacks.onNodeStatus({ organizationId: spec.organizationId, flowId: spec.flowId, nodeId, status });
  }
}
