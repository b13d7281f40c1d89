import type { DashboardClient } from "../../shared/dashboard";
import type { DebugSubflowSource } from "../../shared/realtime";
import type { ConnectionKind, ConnectionLease } from "./connections";
export type { DebugSubflowSource };

/**
 * The flow runtime's vocabulary, after Node-RED's: a node gets `input(msg, send, done)`, reports
 * `status()`, and is closed with `close(removed)`. Nothing here knows Prisma, Next or tRPC: what
 * the engine reports (to be persisted or published) goes out through EngineCallbacks, and what it
 * may use of the world comes in through RuntimeServices.
 */

export interface Message {
  _msgid: string;
  payload?: unknown;
  topic?: string;
  [key: string]: unknown;
}

export interface NodeStatus {
  fill: "red" | "green" | "yellow" | "blue" | "grey";
  shape: "dot" | "ring";
  text: string;
}

/** One message, or one entry per output port (null/undefined: nothing on that port; an array: several). */
export type SendValue = Message | null | undefined | Array<Message | Message[] | null | undefined>;

export type Send = (value: SendValue) => void;
/**
 * The node is done with its input. With an error, the error is reported and goes to the catch
 * nodes (Node-RED's `done(err)`). `handled`: the node already reported it (`log.error(err, msg)`)
 * and carried on as Node-RED's nodes do after `node.error` (complete nodes are told, as by
 * `done()`), and the step still counts as failed in the execution. `noComplete`: the message
 * ended where Node-RED never calls done (a link call that timed out): no complete node is told,
 * the execution's step just ends.
 */
export type Done = (err?: unknown, options?: { handled?: unknown; noComplete?: boolean }) => void;

export interface RuntimeNode {
  id: string;
  type: string;
  name: string;
  config: Record<string, unknown>;
}

/** What a node behaviour may use: its own identity and the runtime's services for it. */
export interface NodeContext {
  node: RuntimeNode;
  flowId: string;
  organizationId: string;
  organizationSlug: string;
  /** Number of output ports of this node. */
  outputs: number;
  /** Sends outside of an input handler (timers, webhooks, devices). */
  send: Send;
  status(status: NodeStatus | null): void;
  log: {
    warn(message: string): void;
    /** Node-RED's `node.error(err, msg)`: reported, and with a message it goes to the flow's catch nodes. */
    error(err: unknown, msg?: Message): void;
  };
  /** Whether a complete node of the flow watches this node (it then gets the message the node finished with). */
  watchedByComplete: boolean;
  /** Publishes to the flow's debug stream. */
  debug(data: { property: string; msg: unknown; format: string; topic?: string }): void;
  /** Flow-scoped context shared by the flow's nodes (function nodes' `flow.get/set`). */
  flowContext: Map<string, unknown>;
  /**
   * Node-RED's three context scopes (SPEC §13) as every node sees them: change, switch, inject and
   * the operand model read and write through these, never through a store of their own.
   */
  context: NodeContextStores;
  /** Variables and secrets (SPEC §14): the one place `${NAME}` and `env.get` are resolved. */
  env: VariableResolver;
  /**
   * Backpressure: true while the flow holds more waiting messages than its high-water mark. A node
   * that starts messages by itself (a timer, a webhook, a device) refuses, skips or waits meanwhile.
   */
  busy(): boolean;
  /** How many messages wait in the flow (queued deliveries plus asynchronous inputs not yet done). */
  waiting(): number;
  /**
   * Runs `fn` once the flow is ready for more messages: in a microtask when it is not busy, else
   * when its waiting messages fall to half the mark. Never after the flow stopped. Returns the
   * function that cancels it. `parked`: the caller is an asynchronous input still in flight that
   * waits to send what it made (http-request's response); while it waits, its own input does not
   * count toward the flow's load, or inputs waiting for the flow would keep it busy for ever.
   */
  whenReady(fn: () => void, options?: { parked?: boolean }): () => void;
  /** A fresh message id. */
  newMessageId(): string;
  /** Host services a node may need (HTTP, devices); absent ones mean "not available here". */
  services: RuntimeServices;
  /** Link nodes' virtual wires to link-in nodes of any flow of the organization (SPEC §12). */
  links: LinkPort;
  /**
   * The configuration node `id` of `type` as the flow's deployment carries it (SPEC §19), prepared
   * before the flow's nodes started; undefined (and reported as this node's error) when the flow
   * has none of that id and type, or it could not be prepared. "" (no reference) is undefined
   * without a report.
   */
  configNode<C extends Record<string, unknown> = Record<string, unknown>>(id: string, type: string): ConfigNodeHandle<C> | undefined;
}

/**
 * A configuration node as a behaviour uses it (runtime/config-nodes.ts). `config` and
 * `credentials` resolve `${NAME}` each time they are read, so a changed variable or secret is used
 * by the next connection without a redeploy; credentials are credential properties (secrets
 * resolve there), the config's strings are not. A number-or-variable field holding `${NAME}`
 * (runtime/number-or-variable.ts) reads as the variable's number; reading `config` throws, naming
 * the field, when that variable is unset or not such a number.
 */
export interface ConfigNodeHandle<C extends Record<string, unknown> = Record<string, unknown>> {
  readonly id: string;
  readonly type: string;
  readonly name: string;
  /** The deployed revision the flow carries. */
  readonly revision: number;
  readonly config: C;
  readonly credentials: Readonly<Record<string, string>>;
  /**
   * The credentials for a connection to `host` (SPEC §14): a secret with allowed hosts resolves
   * when `host` is one of them; otherwise, as in `credentials`, it reads as empty and is the
   * flow's error (once).
   */
  credentialsFor(host: string): Readonly<Record<string, string>>;
  /**
   * The connection of this configuration node's revision on this instance, shared with every flow
   * here using the same revision (ConnectionPool). The lease is released when the flow stops, or
   * earlier by `release()`; the last release closes the connection.
   */
  connect<T>(kind: string, open: ConnectionKind<T>, options?: { variant?: string }): Promise<ConnectionLease<T>>;
}

/**
 * What link-out and link-call use: Node-RED's virtual wires, which reach link-in nodes in any flow
 * of the organization (never another's), on this instance or on the one running that flow.
 */
export interface LinkPort {
  /** link-out "link" mode: the message to each listed link-in; ids naming no running link-in are skipped. */
  send(targets: string[], msg: Message): void;
  /**
   * link-call: delivers the message to the link-in `target` names (its id; with `byName`, also its
   * name, as Node-RED's dynamic mode: this flow first, then the organization's). Throws (or rejects
   * with) Node-RED's error when no such link-in exists; one of a flow that does not run now is not
   * reached, and the call times out.
   */
  call(target: string, msg: Message, options: { byName: boolean }): LinkCall;
  /** link-out "return" mode: the reply to link-call `nodeId`, waiting for `eventId`; false when that node runs nowhere. */
  reply(nodeId: string, eventId: string, msg: Message): boolean | Promise<boolean>;
}

/**
 * A call under way. It counts as waiting in the calling flow (backpressure) until `end()`: the
 * link-call ends it when the answer comes, on its timeout or error, and when it closes.
 */
export interface LinkCall {
  /** Set when the target is looked up elsewhere (another flow runtime): rejects with Node-RED's error when there is no such link-in. */
  delivered?: Promise<void>;
  end(): void;
}

/** Where a link-call waits for its answer (Node-RED's msg._linkSource entries). */
export interface LinkSource {
  id: string;
  node: string;
}

/** Node-RED's context API, synchronous as its default store. Values are JSON; `set(key, undefined)` deletes. */
export interface ContextStore {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  keys(): string[];
}

export interface SharedContextStore extends ContextStore {
  /** Adds `by` (default 1) to a number (a missing key counts as 0), atomically; returns the new value. */
  increment(key: string, by?: number): number;
}

export interface NodeContextStores {
  /** This node's own context (in memory, as Node-RED's default store). */
  node: ContextStore;
  /** The flow's context (durable once issue 23 lands; in memory until then). */
  flow: SharedContextStore;
  /** The organization's global context. */
  global: SharedContextStore;
}

/** Variables (SPEC §14), resolved for one node of one flow. */
export interface VariableResolver {
  /**
   * `env.get(name)`: a non-secret variable's value (the flow's overrides the organization's), or one
   * of Node-RED's built-ins (NR_NODE_ID, NR_NODE_NAME, NR_FLOW_ID, NR_FLOW_NAME); secrets and
   * unknown names read as undefined. Variables are strings; a subflow's env properties keep their
   * type (a num is a number, a json an object), as Node-RED's env.get.
   */
  get(name: string): unknown;
  /**
   * Replaces `${NAME}` in a string property when the node uses it. Secrets are substituted only
   * with `credential: true` (http-request URL, headers, authentication); elsewhere they, and
   * unknown names, become "" as in Node-RED.
   */
  substitute(
    text: string,
    options?: {
      credential?: boolean;
      /**
       * With `credential`: receives each secret with allowed hosts (SPEC §14) the text used, by name,
       * for the caller to check its request's host against. Without it, such a secret throws a
       * SecretHostError (runtime/variables.ts) instead of resolving.
       */
      restricted?: Map<string, readonly string[]>;
    },
  ): string;
  /**
   * Every name `get` answers, with its value (built-ins and non-secret variables): what function
   * code's `env.get` reads inside its sandbox. The same object while nothing changed.
   */
  values(): Readonly<Record<string, unknown>>;
}

/**
 * What an asynchronous input handler may resolve to when the message is not finished yet: it calls
 * `done` itself later (a function node whose code calls node.done()). The message stops weighing on
 * the flow's backpressure when the handler's promise settles, whatever it resolves to.
 */
export const DONE_LATER: unique symbol = Symbol("done later");

export interface NodeBehaviour {
  input?(msg: Message, send: Send, done: Done): void | Promise<void | typeof DONE_LATER>;
  /** Called when the flow stops or is redeployed; `removed` when the node is gone from the new version. */
  close?(removed: boolean): void | Promise<void>;
  /** Called once every node of the flow is created (inject's "once at start"). */
  start?(): void | Promise<void>;
  /** A link call (role `linkCall`): a link-out in "return" mode answers the call `eventId` with `msg`. */
  linkReturn?(eventId: string, msg: Message): void;
  /**
   * A trigger (role `trigger`): starts a message by hand (`POST /nodes/{id}/inject`), the overrides
   * set after the node's own properties; returns the message's id.
   */
  trigger?(overrides: { payload?: unknown; topic?: string }): string;
  /** Switched on or off while it runs (role `switchable`: the debug node's button, Node-RED's /debug/{id}/enable). */
  setActive?(active: boolean): void;
}

/** Makes a node's behaviour; `config` is the node's configuration parsed by its type's schema once, at start. */
export type NodeFactory<Config = Record<string, unknown>> = (ctx: NodeContext, config: Config) => NodeBehaviour | Promise<NodeBehaviour>;

/**
 * What the engine asks of a node type beyond its behaviour, declared by the type (its definition's
 * `roles`), so the engine reads roles, never type names. The scope readers see the parsed config.
 */
export interface NodeRoles<Config = Record<string, unknown>> {
  /** Node-RED's catch: gets a copy of each failed message of the nodes in `scope` (null: all); `uncaught`: only when no other catch node took it. Its own failures are not caught again. */
  catch?(config: Config): { scope: string[] | null; uncaught: boolean };
  /** Node-RED's status: gets each status reported by the nodes in `scope` (null: all). */
  status?(config: Config): { scope: string[] | null };
  /** Node-RED's complete: gets each message the nodes in `scope` finish (done() without error). */
  complete?(config: Config): { scope: string[] };
  /** A link's target (link-in): reached by its id, or by its name (its id when unnamed) from a link call. */
  linkTarget?: true;
  /** Waits for link returns (link-call): its behaviour has `linkReturn`. */
  linkCall?: true;
  /** Starts messages by hand (inject): its behaviour has `trigger`. */
  trigger?: true;
  /** Switched on and off while it runs, without a deploy (debug): its behaviour has `setActive`. */
  switchable?: true;
  /**
   * Runs its input in the flow's turn, as Node-RED runs a function node's code: until the promise
   * its input returned settles (the end of the code's synchronous part), the flow's other deliveries
   * wait (DeliveryQueue.waitsForTurn). Asked once per node, with its configuration.
   */
  inTurn?(config: Config): boolean;
  /**
   * Its input evaluates JSONata and reads or writes the flow or global context before the promise
   * it returned settles (a change or switch node: runtime/operands.ts needsJsonataTurn): it runs in
   * the flow's turn too, on the main thread, never beside another turn, as Node-RED ends an
   * evaluation before the next delivery begins. Asked once per node, with its configuration.
   */
  jsonataTurn?(config: Config): boolean;
}

/**
 * A node type as the engine runs it: its behaviour, its configuration parser (run once per node as
 * the flow starts), its output ports, its roles and its Node-RED name (msg.error.source.type).
 * The node registry builds these from the node folders (NodeRegistry.runtimeTypes()); the engine
 * never imports a node folder.
 */
export interface RuntimeNodeType {
  /** Called with the config `parse` returned. */
  behaviour: NodeFactory;
  /** Parses (and fills the defaults of) a node's configuration; throws when it does not fit. Absent: the config as given. */
  parse?(config: Record<string, unknown>): Record<string, unknown>;
  outputs(config: Record<string, unknown>): number;
  /**
   * The parsed config with its number-or-variable fields' `${NAME}` read through the node's
   * `env.get` (runtime/number-or-variable.ts), when the node is made, as Node-RED maps a node's
   * properties when it starts; `errors` are reported as the node's. Absent: the type has no such field.
   */
  resolveAtStart?(config: Record<string, unknown>, get: (name: string) => unknown): { config: Record<string, unknown>; errors: string[] };
  /** Asked with the config `parse` returned. */
  roles?: NodeRoles;
  /** Node-RED's name of the type ("link call"); absent: ours. */
  nodeRedType?: string;
}

export interface RuntimeServices {
  /** Outgoing HTTP for http-request, with the SSRF policy applied. */
  httpRequest?: (
    url: string,
    /** `budget`: the organization's bound on response bytes being downloaded (WorkLimits.responseBudget). */
    init: { method: string; headers: Record<string, string>; body?: string | Buffer; timeoutMs: number; dispatcher?: import("./http-dispatchers").HttpDispatcher; budget?: import("./work-limits").ByteBudget; checkHop?: import("./safe-fetch").HopCheck; followRedirects?: boolean; cookies?: import("./safe-fetch").HopCookies },
    /** `redirects`: each redirect followed, in order (its Location, its Set-Cookie lines). */
  ) => Promise<{ status: number; headers: import("./safe-fetch").ResponseHeaders; body: Buffer; url: string; redirects?: import("./safe-fetch").RedirectFollowed[] }>;
  /**
   * Outbound rules for client nodes other than http-request (MQTT brokers, websocket clients, tcp,
   * udp; SPEC §20): connect with `outbound.lookup`, check literal hosts with `outbound.checkHost`.
   */
  outbound?: import("./outbound").OutboundRules;
  /** The TCP ports a `ping` node asks a host on (PING_PORTS); absent: 443 and 80. */
  pingPorts?: number[];
  /**
   * The app's own MQTT broker (SPEC §20, "Built-in broker"), for mqtt-broker configuration nodes
   * whose `broker` is `built-in`: absent when this process runs none (then those nodes report an error).
   */
  builtInMqtt?: BuiltInMqtt;
  /**
   * This process's instance id (SPEC §11): client nodes that need an identity of their own per
   * instance (an MQTT client id) append it. Absent: "local".
   */
  instanceId?: string;
  /** Bounds on asynchronous work per flow and organization (JSONata turns, download bytes); absent: unbounded. */
  workLimits?: import("./work-limits").WorkLimits;
  /**
   * Connections for http-request with a TLS configuration and/or a proxy (SPEC §19), under the same
   * SSRF policy as httpRequest (the proxy's address is checked as a target's is).
   */
  httpDispatcher?: (settings: import("./http-dispatchers").DispatcherSettings) => import("./http-dispatchers").HttpDispatcher;
  /**
   * Opens one sealed credential of a configuration node (server-side encryption; the runtime never
   * sees the key). Throws when it cannot (a key rotated away, tampering).
   */
  openCredential?: (sealed: string, owner: { organizationId: string; configNodeId: string; name: string }) => string | Promise<string>;
  /** The function node's sandboxes (the application's worker pool). */
  sandboxes?: import("./sandbox/sandbox-pool").SandboxPool;
  /** Webhook routes for http-in / http-response, and the routes of websocket listeners (socket-hooks.ts). */
  webhooks?: import("./webhooks").WebhookRegistry;
  /** Where websocket listeners send to their clients, on whichever instance they are connected (socket-hooks.ts). */
  socketHooks?: import("./socket-hooks").SocketHooks;
  /** Sends a message to connected devices of the organization (any instance). */
  sendToDevices?: (organizationId: string, message: DeviceOutMessage) => void;
  /** Listens to messages devices of the organization publish; returns the function that stops. */
  onDeviceMessage?: (organizationId: string, handler: (m: DeviceInMessage) => void) => () => void;
  /** The organization's files (SPEC §23), for `file` and `file in`: absent, those nodes report an error. */
  files?: OrgFiles;
  /** SQLite databases on the organization's files, for `sqlite` nodes (runtime/sqlite/sqlite-host.ts). */
  sqlite?: import("./sqlite/sqlite-host").SqliteHost;
  /** Dashboards (SPEC §21): what widget nodes show to viewers and what viewers send them (any instance). */
  dashboards?: DashboardRuntime;
}

/**
 * An organization's files as flows use them (SPEC §23), the same files /files serves, on every
 * instance. Paths are normalized already (shared/file-paths.ts). Errors are refusals a flow
 * reports as its node's error: past the organization's quota or a file's size limit (nothing is
 * written), or the database unreachable.
 */
export interface OrgFiles {
  /** The file's bytes; null when there is no such file. */
  read(organizationId: string, path: string): Promise<Buffer | null>;
  /** Replaces the file (`append: false`) or adds to its end (`append: true`), creating it when missing. */
  write(organizationId: string, path: string, content: Uint8Array, options: { append: boolean }): Promise<void>;
  /** Deletes the file; false when there was none. */
  delete(organizationId: string, path: string): Promise<boolean>;
  /** The file's version (it grows with every write), or null when there is no such file. */
  version(organizationId: string, path: string): Promise<number | null>;
  /** The file's bytes and their version; null when there is no such file. */
  readVersioned(organizationId: string, path: string): Promise<{ content: Buffer; version: number } | null>;
  /**
   * Replaces the file if its version is still `expected` (null: there must be no such file), and
   * returns the new version; false, with nothing written, when it changed. Refusals as `write`.
   */
  replaceIf(organizationId: string, path: string, content: Uint8Array, expected: number | null): Promise<number | false>;
}

/**
 * Dashboard widgets as the runtime reaches them (src/server/dashboards/bus.ts implements it): a
 * widget node reports what it shows (`emit`), receives what viewers do (`onInput`), and reads its
 * durable state once as it starts. Viewers may be on any instance; inputs reach the instance
 * running the widget's flow (only it has the handler).
 */
export interface DashboardRuntime {
  /**
   * A widget shows `msg` (payload, topic, ui_update …): every viewer of a page holding the widget
   * gets a `dashboard.update`, or only `client.socketId`'s viewer when `client` is given. `state`
   * (when given, and not for one viewer) is the widget's durable state after it, written behind.
   */
  /** `ownState`, with `client`: the state the widget would have, kept for that viewer's tab only. */
  emit(organizationId: string, widgetId: string, msg: Record<string, unknown>, options?: { client?: DashboardClientRef; state?: unknown; ownState?: unknown }): void;
  /** ui-control: a `dashboard.control` frame for the viewers of the widget's dashboard (or one viewer). */
  control(organizationId: string, widgetId: string, msg: Record<string, unknown>, options?: { client?: DashboardClientRef }): void;
  /** What viewers send the widget (`dashboard.input`, and page events for ui-event); returns the function that stops. */
  onInput(organizationId: string, widgetId: string, handler: (input: DashboardInput) => void): () => void;
  /** The widget's durable state, as last written (null: none). */
  readState(organizationId: string, widgetId: string): Promise<unknown>;
}

/** Who sent a dashboard input (Dashboard 2.0's `msg._client`). */
export type DashboardClientRef = DashboardClient;

export interface DashboardInput {
  /** "change", "click", "submit", "send" … or "$pageview" / "$pageleave" for ui-event. */
  event: string;
  msg: Record<string, unknown>;
  client: DashboardClientRef;
}

/**
 * The built-in broker as flows reach it: inside the organization's own topic space, no address and
 * no credentials. Topics are the organization's own (`a/b`), never prefixed by the caller; the
 * broker maps them to its internal space. Wildcard subscriptions match only the organization's
 * topics. `publish` resolves once the broker took the message (QoS 1/2: stored for delivery).
 */
export interface BuiltInMqtt {
  publish(organizationId: string, message: BuiltInMqttMessage): Promise<void>;
  /**
   * Subscribes within the organization; `handler` receives each matching message (retained ones
   * first, with `retain: true`). Returns the function that unsubscribes.
   */
  subscribe(organizationId: string, filter: string, options: { qos: 0 | 1 | 2; nl?: boolean; rap?: boolean; rh?: 0 | 1 | 2 }, handler: (message: BuiltInMqttMessage) => void | Promise<void>): Promise<() => Promise<void>>;
}

export interface BuiltInMqttMessage {
  topic: string;
  payload: Buffer;
  qos: 0 | 1 | 2;
  retain: boolean;
  /** MQTT 5 publish properties (contentType, userProperties, responseTopic, correlationData, messageExpiryInterval, payloadFormatIndicator). */
  properties?: Record<string, unknown>;
}

/** What a device published (`device.publish` frame), as device-in nodes receive it. */
export interface DeviceInMessage {
  topic: string;
  payload: unknown;
  device_key_id: string;
}

/**
 * What a device-out node sends: to one device key, or to every device of the organization (null).
 * With `rejected`, it tells the device that a message it published was refused (device-in of a busy flow).
 */
export interface DeviceOutMessage {
  topic: string;
  payload: unknown;
  device_key_id: string | null;
  rejected?: { reason: "flow_busy"; retry_after: number };
}

export type FlowState = "running" | "stopped" | "error";

/**
 * The functions the engine calls as flows run (its owner, flow-runtime/local.ts, records flow
 * states and publishes statuses and debug messages). Not the /hooks webhooks, not React hooks.
 */
export interface EngineCallbacks {
  onFlowState(event: { organizationId: string; flowId: string; state: FlowState; error?: string }): void;
  onNodeStatus(event: { organizationId: string; flowId: string; nodeId: string; status: NodeStatus | null }): void;
  onDebug(event: {
    organizationId: string;
    flowId: string;
    nodeId: string;
    name: string;
    property: string;
    msg: unknown;
    format: string;
    topic?: string;
    /** The execution of the message the debug node was handling (SPEC §15), when executions are recorded. */
    executionId?: string;
    /** For a node inside a subflow instance: where it is (realtime.ts, debugSubflowSource). */
    subflow?: DebugSubflowSource;
  }): void;
  /** `caught`: a catch node took it (the debug sidebar leaves it out, as Node-RED does not log it). */
  onNodeError(event: { organizationId: string; flowId: string; nodeId: string; error: string; caught?: boolean; executionId?: string }): void;
}
