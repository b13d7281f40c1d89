import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Deployment, Flow } from "../../generated/prisma/client";
import type { FlowGraph } from "../../shared/flow-graph";
import type { ConfigNodeSnapshot } from "../../shared/config-nodes";
import type { SubflowSnapshot } from "../../shared/subflows";
import type { DeviceInMessage, FlowState, Message, NodeStatus } from "../runtime/types";
import type { WebhookRequest, WebhookResponse } from "../runtime/webhooks";

export interface DeploymentSnapshot extends FlowGraph {
  name: string;
  /**
   * Every subflow definition the flow's instances use, transitively (SPEC §16), as deployed: the
   * runtime runs these, never the subflows table. Absent in deployments without instances (and
   * in rows from before subflows).
   */
  subflows?: Record<string, SubflowSnapshot>;
  /**
   * Every configuration node the flow uses (SPEC §19): named by its nodes, by the nodes of the
   * subflow definitions it uses, and by other configuration nodes, transitively, as deployed (keyed
   * by id). The runtime uses these, never the config_nodes table. Absent in older rows.
   */
  config_nodes?: Record<string, ConfigNodeSnapshot>;
}

/** Where a flow runs: the instance holding its lease, since when. */
export interface FlowPlacement {
  instanceId: string;
  since: Date;
}

/** Who injected, for the `inject` event published where the message is sent. */
export interface InjectOrigin {
  organizationId: string;
  /** The user id the event names (`by`). */
  by: string;
}

/** not_running: the flow runs nowhere; not_deployed: the node is not in the running version; unavailable: its instance did not answer. */
export type SetActiveResult = { ok: true } | { ok: false; reason: "not_running" | "not_deployed" | "unavailable" };

export type InjectResult =
  | { ok: true; messageId: string }
  /** not_running: the flow runs nowhere; not_deployed: the node is not in the running version; unavailable: its instance did not answer. */
  | { ok: false; reason: "not_running" | "not_deployed" | "unavailable" }
  /** The flow is over its high-water mark: nothing was sent; try again after `retryAfterSec`. */
  | { ok: false; reason: "busy"; retryAfterSec: number; waiting: number };

/** A replay (SPEC §15) made where the flow runs. */
export type ReplayResult =
  | { ok: true; executionId: string }
  /** not_deployed: the trigger node is not in the running version; not_recorded: executions are off on that instance. */
  | { ok: false; reason: "not_running" | "not_deployed" | "unavailable" | "not_recorded" };

/** What this instance's flows have done, for GET /metrics: this instance only, never the cluster's. */
export interface FlowRuntimeStats {
  /** Flows running on this instance now. */
  runningFlows: number;
  /** Messages delivered to nodes on this instance since it started. */
  messagesDelivered: number;
  /** Node errors on this instance since it started. */
  nodeErrors: number;
  /** Executions this instance could not store (refused, the database away, or their organization at its bound), since it started. */
  executionsNotStored?: number;
  /** Context writes the database refused (given up, reported to their flow), since it started. */
  contextWritesRefused?: number;
}

/**
 * The running flows, as services, routers and the servers see them: one interface, owned by
 * AppServices. Two implementations: LocalFlowRuntime (this process runs every deployed flow: the
 * embedded defaults, one instance) and ClusteredFlowRuntime (several instances on one PostgreSQL
 * and Redis: each flow runs on the instance holding its lease, and every call below reaches that
 * instance, whichever instance it is made on). Nothing outside src/server/flow-runtime/ sees the
 * engine.
 */
export interface FlowRuntime {
  /** This process's id in the cluster (also reported by GET /health). */
  readonly instanceId: string;
  readonly mode: "single" | "cluster";
  /** After start-up: runs the deployed, enabled flows (single) or joins the placement (cluster). */
  start(): Promise<void>;
  /** Puts the flow's current deployment in effect wherever the flow runs: running when enabled, stopped otherwise. */
  apply(flow: Flow, deployment: Deployment): Promise<FlowState>;
  /** Starts or stops a deployed flow after its `enabled` changed. */
  setEnabled(flow: Flow, enabled: boolean): Promise<FlowState>;
  /** Stops the flow wherever it runs (it was deleted, or its organization was). */
  stop(flowId: string): Promise<void>;
  /**
   * Sends a message out of an inject node of the running flow, once. With `origin`, the instance
   * running the flow also publishes the `inject` event, and (with a shared store) it has been
   * published when this resolves: the event never comes after the answer.
   */
  inject(flowId: string, nodeId: string, overrides: { payload?: unknown; topic?: string }, origin?: InjectOrigin): Promise<InjectResult>;
  /**
   * Switches a debug node of the running flow on or off where the flow runs, at once and without a
   * deploy (Node-RED's debug button), until that node restarts.
   */
  setActive(flowId: string, nodeId: string, active: boolean): Promise<SetActiveResult>;
  /**
   * Replay (SPEC §15): sends `message` again out of `nodeId`'s outputs in the flow's running
   * version, wherever it runs, as a new execution naming `replayOf`.
   */
  replay(flowId: string, nodeId: string, message: Message, replayOf: string): Promise<ReplayResult>;
  /** Node statuses of the running flow (empty when it runs nowhere). */
  nodeStatuses(flowId: string): Promise<Map<string, NodeStatus | null>>;
  /** Where the flow runs; null when it runs nowhere. */
  placement(flowId: string): Promise<FlowPlacement | null>;
  /**
   * Whether a running flow listens there (checked before a webhook's body is read). `fresh`: read
   * the store, not the last second's answers (a WebSocket's upgrade: a socket opened on a route
   * that was just removed would stay open on nothing).
   */
  hasWebhook(organizationSlug: string, method: string, path: string, options?: { fresh?: boolean }): Promise<boolean>;
  /** Serves a request to /hooks/{slug}/...; null when no running flow listens there. */
  handleWebhook(organizationSlug: string, request: WebhookRequest): Promise<WebhookResponse | null>;
  /**
   * Which of these instances are alive (their cluster membership has not expired; in a single
   * instance, only this one): a websocket listener forgets the clients of an edge that died.
   */
  liveInstances(ids: string[]): Promise<Set<string>>;
  /** A message published by a device: it reaches the device-in nodes of the organization's running flows. */
  deviceMessage(organizationId: string, message: DeviceInMessage): void;
  /** This instance's counts (GET /metrics): read on each scrape, nothing is counted on the cluster. */
  stats(): FlowRuntimeStats;
  /** Stops this instance's flows (handing them over to the other instances, in a cluster); calling it again does nothing. */
  close(): Promise<void>;
  /**
   * A cluster's instances only: the upgraded connection (GET /_cluster/peer) another instance sends
   * its requests for this one over (flow-runtime/peer-link.ts).
   */
  acceptPeer?(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}
