import type { FlowGroup } from "../../../shared/subflows";
import { randomHex } from "../../ids";
import type { SubflowSnapshot } from "../../../shared/subflows";
import type { ConfigNodeSnapshot } from "../../../shared/config-nodes";
import type { EngineCallbacks, Message, RuntimeNode, RuntimeNodeType, RuntimeServices, SharedContextStore, VariableResolver } from "../types";
import type { ExecutionTracker } from "../executions/tracker";
import type { ConnectionPool } from "../connections";
import type { GlobalEnv } from "../variables";

/**
 * The engine's vocabulary shared by its objects (runtime/flow/): what a flow version is (FlowSpec),
 * what the engine is given (EngineOptions), its limits and its small helpers. runtime/engine.ts
 * re-exports all of it: the rest of the code imports the engine's names from there.
 */

export interface FlowSpec {
  flowId: string;
  organizationId: string;
  organizationSlug: string;
  revision: number;
  /** The deployment this version comes from (executions name it). */
  deploymentId?: string;
  /** The flow's name (NR_FLOW_NAME); absent in older callers. */
  name?: string;
  nodes: Array<RuntimeNode & { disabled?: boolean }>;
  connections: Array<{ source: string; source_port: number; target: string }>;
  /** The subflow definitions the flow's `subflow:<id>` instances use, transitively (from the deployment snapshot). */
  subflows?: Record<string, SubflowSnapshot>;
  /** The configuration nodes the flow uses, transitively, keyed by id (from the deployment snapshot, SPEC §19). */
  configNodes?: Record<string, ConfigNodeSnapshot>;
  /** The flow's groups (from the deployment snapshot): their env properties and NR_GROUP_* (group-env.ts). */
  groups?: FlowGroup[];
}

export interface EngineOptions {
  /**
   * The node types it runs (nodes/registry.ts: NodeRegistry.runtimeTypes()): behaviour, config
   * parser, ports, roles. A node of a type not here does not run.
   */
  types: ReadonlyMap<string, RuntimeNodeType>;
  /** What the engine reports as it runs: flow state, node statuses, debug messages, node errors. */
  callbacks: EngineCallbacks;
  services?: RuntimeServices;
  /** How long a closing node may take before the deploy goes on without it. */
  closeTimeoutMs?: number;
  /** Nodes one message may pass through (loops A→A, A→B→A) before it is dropped as a runaway. */
  maxHops?: number;
  /** Deliveries one flow may have waiting at once (fan-out loops) before new ones are dropped. */
  maxQueuedPerFlow?: number;
  /** Estimated bytes of the messages one flow may have waiting at once before new ones are dropped (runtime/work-limits.ts). */
  maxQueuedBytesPerFlow?: number;
  /** Backpressure in bytes: a flow whose waiting messages reach this estimated size is busy until they fall to half of it. */
  highWaterBytes?: number;
  /**
   * Backpressure: a flow whose waiting messages (queued deliveries plus asynchronous inputs not yet
   * done) reach this mark is busy until they fall to half of it. While busy, the doors that can say
   * so refuse (inject, webhooks, devices), timers wait or skip; maxQueuedPerFlow stays the last
   * resort for a flow that floods without yielding.
   */
  highWaterMark?: number;
  /**
   * While this answers false for a flow, nothing of that flow is sent or delivered: the instance
   * can no longer prove it may run the flow (its cluster lease), e.g. after being paused.
   */
  fence?: (flowId: string) => boolean;
  /**
   * The flow and global context stores of a flow being started (SPEC §13). Absent: in memory, the
   * flow's for as long as it runs, the organization's for as long as this engine lives.
   */
  contextStores?: (spec: FlowSpec) => FlowContextStores | Promise<FlowContextStores>;
  /**
   * The durability rule of SPEC §13: context writes are counted (`written`) and stored behind
   * (`stored`); a message sent while a write of its flow's context or its organization's global
   * context is not yet stored is held, and delivered in order (per flow) once it is (whenStored).
   * Other flows' writes hold nothing. Absent: nothing is held (in-memory context).
   */
  durability?: DurabilityGate;
  /**
   * Variables for a node of a flow being started (SPEC §14), with the global-config env its
   * deployment carries layered in (SPEC §19). Absent: Node-RED's built-in names (and that env) only.
   */
  variables?: (spec: FlowSpec, node: RuntimeNode, layers: { globalEnv?: GlobalEnv }) => VariableResolver;
  /**
   * The schema of a configuration node type (SPEC §19, runtime/config-nodes.ts); undefined for a
   * type this server lacks. Absent: no configuration node can be prepared.
   */
  configSchemaOf?: (type: string) => { parse(value: unknown): unknown } | undefined;
  /** The instance's shared connections (runtime/connections.ts); absent: the engine makes its own. */
  connections?: ConnectionPool;
  /**
   * Link targets this engine does not run (flows of the organization that run on another instance,
   * or not at all). Absent: links reach only the flows running here.
   */
  links?: LinkRelay;
  /** Executions (SPEC §15, runtime/executions/tracker.ts): where every message goes. Absent: nothing is recorded. */
  executions?: ExecutionTracker;
}

export interface FlowContextStores {
  flow: SharedContextStore;
  global: SharedContextStore;
  /** Called once the flow's nodes are closed (stop, redeploy): stores what they wrote. */
  close?(): Promise<void>;
}

export interface DurabilityGate {
  /** Sequence number of the last write a message of this flow may depend on (its own scope's, its organization's global scope's). */
  written(scope: { organizationId: string; flowId: string }): number;
  /** Every write up to this sequence number is stored. */
  stored(): number;
  whenStored(seq: number, fn: () => void): void;
}

/** A link delivery this engine could not make itself, for the flow runtime to make where the target runs. */
export interface LinkDelivery {
  organizationId: string;
  fromFlowId: string;
  /** A link-in id, or (byName) a link-in's name, as link-call's dynamic mode. */
  target: string;
  byName: boolean;
  msg: Message;
  /** Hops the message has made so far (the runaway guard follows it across flows). */
  hops: number;
}

export type LinkDeliveryResult = "delivered" | "not_running" | "not_found" | "ambiguous";

export interface LinkRelay {
  deliver(delivery: LinkDelivery): Promise<LinkDeliveryResult>;
  /** A link-out "return" for a link-call that does not run here: true once it was handed to it. */
  reply(reply: { organizationId: string; nodeId: string; eventId: string; msg: Message; hops: number }): Promise<boolean>;
}

/** Node-RED's link-call errors (60-link.js), word for word: catch nodes and tests match on them. */
export const linkNotFound = (target: string) => new Error(`target link-in node '${target}' not found`);
export const linkAmbiguous = (target: string) => new Error(`Multiple link-in nodes named '${target}' found`);

export const DEFAULT_MAX_HOPS = 10_000;
export const DEFAULT_MAX_QUEUED_PER_FLOW = 50_000;
export const DEFAULT_HIGH_WATER_MARK = 10_000;
/**
 * What one flow may hold waiting in bytes (estimated, approxMessageBytes): busy at 16 MiB, new
 * messages dropped past 32 MiB. A loop of 10 KiB messages held 50,000 of them (500 MB) under the
 * count bounds alone.
 */
export const DEFAULT_HIGH_WATER_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_QUEUED_BYTES_PER_FLOW = 32 * 1024 * 1024;
/**
 * Text a node reports is cut (with "…") to bound what every listener of the organization receives
 * and what a slow WebSocket reader can make the server hold: a status text, and a warning or error.
 */
export const MAX_STATUS_TEXT = 256;
export const MAX_ERROR_TEXT = 4096;

export function cutText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
/** What a refused door tells its caller to wait (Retry-After) while a flow is busy. */
export const FLOW_BUSY_RETRY_AFTER_SEC = 1;

export function newMessageId(): string {
  return randomHex(8);
}

export function cloneMessage(msg: Message): Message {
  return structuredClone(msg);
}

/** msg.error.message as Node-RED writes it: the error's toString() ("Error: ..." for an Error). */
export function catchText(err: unknown): string {
  if (err instanceof Error) return String(err);
  return typeof err === "string" ? err : JSON.stringify(err);
}

/** The most of an error's `cause` a caught message carries (as JSON). */
const MAX_CAUSE_JSON = 4096;

/**
 * What Node-RED's catch copies from an error besides its text: its own `code` (a system error's
 * ENOENT, ECONNREFUSED; a JSONata error's T2001) to msg.error.code and its own `cause` to
 * msg.error.cause. Here only as data: a code that is a string or a number, a cause that is JSON of
 * at most 4 KiB (copied), never an object with a prototype of its own (a socket, an Error), which
 * a message could not carry.
 */
export function errorExtras(err: unknown): { code?: string | number; cause?: unknown; stack?: string } {
  if (err === null || typeof err !== "object") return {};
  const own = err as { code?: unknown; cause?: unknown; stack?: unknown };
  const out: { code?: string | number; cause?: unknown; stack?: string } = {};
  if (Object.hasOwn(err, "code") && (typeof own.code === "string" || typeof own.code === "number")) out.code = own.code;
  // A stack of one line names no frame of the server (node-sqlite3's errors, made in C++, have
  // such a stack, and Node-RED's catch shows it): kept. One with frames is left out.
  if (typeof own.stack === "string" && own.stack.length <= MAX_ERROR_TEXT && !own.stack.includes("\n")) out.stack = own.stack;
  if (Object.hasOwn(err, "cause") && isPlainData(own.cause)) {
    try {
      const json = JSON.stringify(own.cause);
      if (json !== undefined && json.length <= MAX_CAUSE_JSON) out.cause = JSON.parse(json);
    } catch {
      // not JSON (a cycle, a BigInt): left out
    }
  }
  return out;
}

function isPlainData(value: unknown): boolean {
  if (value === null || ["string", "number", "boolean"].includes(typeof value)) return true;
  if (typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return Array.isArray(value) || proto === Object.prototype || proto === null;
}

export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === "string" ? err : JSON.stringify(err);
}

/** A link-in's name as Node-RED registers it: its name, or its id when unnamed. */
export function linkName(node: RuntimeNode): string {
  return node.name || node.id;
}
