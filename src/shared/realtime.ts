import { z } from "zod";
import { agentFrameSchemas, type AgentServerFrame } from "./agent-protocol";
import { debugSubflowSourceSchema, type DebugSubflowSource } from "./debug-source";

/**
 * The /ws contract, shared by the hub (src/server/realtime) and the browser client
 * (src/features/live): topics, event payloads, client frames, server frames, close codes and limits.
 * docs/WEBSOCKET.md is its prose form.
 */

export const eventTopics = [
  "flow.created",
  "flow.updated",
  "flow.deleted",
  "flow.deployed",
  "flow.state",
  "flow.devices",
  "node.status",
  "debug",
  "inject",
  "config_node.created",
  "config_node.updated",
  "config_node.deleted",
] as const;
export type EventTopic = (typeof eventTopics)[number];

export type FlowStateName = "running" | "stopped" | "error" | "not_deployed";

/** A target device's state for a flow (SPEC §22), as flows.get, deploys and `flow.devices` give it. */
export interface FlowDeviceState {
  device_id: string;
  name: string;
  online: boolean;
  /** applied: runs the current deployment; refused: cannot (`error` says why); pending: offline or still applying. */
  state: "applied" | "pending" | "refused";
  /** The deployment it runs (an earlier one while refused or pending), if any. */
  deployment_id: string | null;
  error: string | null;
}

export interface NodeStatusValue {
  fill?: string;
  shape?: string;
  text?: string;
}

/** `data` of each topic. `by` is the user whose action caused the event (absent for runtime events). */
export interface EventData {
  "flow.created": { name: string; revision: number; by?: string };
  "flow.updated": { name: string; revision: number; enabled: boolean; by?: string; by_name?: string };
  "flow.deleted": { name: string; by?: string };
  /** `error`: why the flow could not start, when `state` is "error" (as `flow.state` says it). */
  "flow.deployed": { deployment_id: string; revision: number; state: FlowStateName; error?: string | null; by?: string; by_name?: string; rolled_back_from?: string | null };
  "flow.state": { state: FlowStateName; error: string | null };
  /** A device flow's target devices (SPEC §22), after one of them applied, failed to apply or was refused a deployment. */
  "flow.devices": { devices: FlowDeviceState[] };
  /** `error`: the node failed (with `caught` when a catch node took the error). */
  "node.status": { node_id: string; status: NodeStatusValue | null; error?: string; caught?: true; execution_id?: string };
  /**
   * `execution_id`: the execution (SPEC §15) of the message the debug node received; null when none
   * was recorded for it. `subflow`: where a debug node inside a subflow instance sits (DebugSubflowSource).
   */
  debug: { node_id: string; name: string; property: string; msg: unknown; format: string; topic?: string; execution_id?: string | null; subflow?: DebugSubflowSource };
  inject: { node_id: string; message_id: string; by: string };
  /** A configuration node of the organization (SPEC §19) changed: these events have `flow_id` null. */
  "config_node.created": { config_node_id: string; type: string; name: string; revision: number; by?: string };
  "config_node.updated": { config_node_id: string; type: string; name: string; revision: number; by?: string };
  "config_node.deleted": { config_node_id: string; type: string; name: string; by?: string };
}

/** Topics of the organization's configuration nodes: an editor reads its pickers again on any of them. */
export const configNodeTopics: ReadonlySet<EventTopic> = new Set(["config_node.created", "config_node.updated", "config_node.deleted"]);

export type OrgEvent<T extends EventTopic = EventTopic> = {
  /** `device_id`: the event comes from a flow running on that device (SPEC §22). */
  [K in T]: { type: "event"; topic: K; flow_id: string | null; device_id?: string; data: EventData[K]; ts: string };
}[T];

/** Who has a flow open, as the hub reports it. */
export interface PresenceUser {
  user_id: string;
  name: string;
}

/**
 * Several `debug` events in one frame, oldest first, for a connection that subscribed with
 * `batch: true`. Each element is exactly the event frame the connection would otherwise have
 * received on its own; events of other topics are never batched and never overtake a batch.
 */
export interface DebugBatchFrame {
  type: "debug.batch";
  events: OrgEvent<"debug">[];
}

/** Frames the server sends. */
export type ServerFrame =
  | OrgEvent
  | DebugBatchFrame
  | { type: "ready"; user_id: string; organization_id: string; device_key_id?: string }
  /** `batch` is present (true) only for a connection that asked for batches. */
  | { type: "subscribed"; topics: string[] | "all"; flow_id: string | null; batch?: true }
  | { type: "pong"; ts: string }
  /**
   * What a slow connection missed, sent once it caught up: `count` debug events, and `statuses`
   * node.status events (present when any: the latest status of some nodes may be missing, read them again).
   */
  | { type: "dropped"; count: number; statuses?: number }
  | { type: "presence"; flow_id: string; users: PresenceUser[] }
  | { type: "error"; code: string; message: string }
  | { type: "device.message"; topic: string; payload: unknown }
  /** A `device.publish` that a busy flow refused (backpressure): nothing of it entered that flow. */
  | { type: "device.rejected"; topic: string; reason: "flow_busy"; retry_after: number }
  | AgentServerFrame;

/** Frames a client may send on /ws. */
export const clientFrameSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("auth"), token: z.string().min(1).max(8192) }),
  z.object({
    type: z.literal("subscribe"),
    topics: z.array(z.enum(eventTopics)).min(1).optional(),
    flow_id: z.string().max(100).optional(),
    // Opt in to `debug.batch` frames (see DebugBatchFrame); omitted or false: one frame per event.
    batch: z.boolean().optional(),
  }),
  z.object({
    type: z.literal("unsubscribe"),
    topics: z.array(z.string().max(50)).min(1).optional(),
    flow_id: z.string().max(100).optional(),
  }),
  z.object({ type: z.literal("ping") }),
  z.object({ type: z.literal("device.publish"), topic: z.string().min(1).max(256), payload: z.unknown() }),
  // Announces which flow this connection has open (null: none); one flow per connection.
  z.object({ type: z.literal("presence"), flow_id: z.string().min(1).max(100).nullable() }),
  // The device agent's frames (SPEC §22, shared/agent-protocol.ts): device keys only.
  ...agentFrameSchemas,
]);
export type ClientFrame = z.infer<typeof clientFrameSchema>;

// Where a debug message comes from inside a subflow instance: debug-source.ts (the device agent's frames use it too).
export { debugSubflowSourceSchema, type DebugSubflowSource };

/** The shape of a `debug.batch` frame, for clients and tests that check what they receive. */
export const debugBatchFrameSchema = z.object({
  type: z.literal("debug.batch"),
  events: z
    .array(
      z.object({
        type: z.literal("event"),
        topic: z.literal("debug"),
        flow_id: z.string().nullable(),
        data: z.object({
          node_id: z.string(),
          name: z.string(),
          property: z.string(),
          msg: z.unknown(),
          format: z.string(),
          topic: z.string().optional(),
          execution_id: z.string().nullable().optional(),
          subflow: debugSubflowSourceSchema.optional(),
        }),
        ts: z.string(),
      }),
    )
    .min(1),
});

export const WS_CLOSE = {
  normal: 1000,
  goingAway: 1001,
  tooLarge: 1009,
  /** The server failed on its side (a bug): the client may reconnect. */
  internalError: 1011,
  /** Credentials could not be checked now (database or store unreachable, rate limited): reconnect later. */
  tryAgainLater: 1013,
  unauthenticated: 4401,
  forbidden: 4403,
  /** The client fell more than WS_LIMITS.maxBufferedBytesHard behind: reconnect (and read again). */
  tooSlow: 4408,
} as const;

export const WS_LIMITS = {
  maxPayloadBytes: 64 * 1024,
  authTimeoutMs: 10_000,
  heartbeatMs: 30_000,
  /**
   * Past this many bytes waiting for a client (its send buffer plus its unsent batch), debug
   * events for it are dropped and counted.
   */
  maxBufferedBytes: 1024 * 1024,
  /**
   * Past this many bytes (frames of every kind), the connection is closed with WS_CLOSE.tooSlow:
   * whatever the drop policy, one slow reader never holds more of the server's memory than this.
   */
  maxBufferedBytesHard: 4 * 1024 * 1024,
  /**
   * `debug.batch` (clients that subscribed with `batch: true`): a batch is sent this long after its
   * first event at the latest, or at once when it holds this many events or bytes.
   */
  debugBatchMaxDelayMs: 25,
  debugBatchMaxEvents: 500,
  debugBatchMaxBytes: 64 * 1024,
  /** How often an instance re-announces its presence entries; they expire after three missed rounds. */
  presenceAnnounceMs: 15_000,
  /** Sockets one client IP may hold open before they authenticate (more: HTTP 429 on the upgrade). */
  maxUnauthenticatedPerIp: 20,
  /** Upgrade attempts per client IP per minute (more: HTTP 429). */
  upgradesPerIpPerMinute: 300,
} as const;

export const orgEventsChannel = (organizationId: string) => `org:${organizationId}:events`;
export const orgPresenceChannel = (organizationId: string) => `org:${organizationId}:presence`;
