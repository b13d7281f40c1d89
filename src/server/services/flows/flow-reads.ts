import type { KeyValueStore } from "../../store";
import type { Principal } from "../../auth/principal";
import { GenerationCache } from "../../store/generation-cache";
export { deepFreeze } from "../../../shared/deep-freeze";

/** The store key holding an organization's flows generation (under the store's prefix). */
export const flowsGenerationKey = (organizationId: string) => `flows:generation:${organizationId}`;

/**
 * The reads of an organization's flows that every page and program makes (the list, one flow, the
 * node an inject names), kept in memory per organization and valid for one *flows generation*
 * (store/generation-cache.ts). Every write to an organization's flows rows replaces it after
 * committing and before answering or announcing the change: the services' creates, updates,
 * deletes, deploys and rollbacks, and the runtime's state records (`FlowRuntime` deps
 * `flowsChanged`). So a write made on any instance is read back by the very next request on every
 * instance. Values are frozen: requests share them.
 */
export type FlowReads = GenerationCache<unknown>;

/** About 20 MB at most per instance: a flow weighs its node count, a list its flow count. */
const MAX_WEIGHT = 50_000;

export function createFlowReads(store: KeyValueStore): FlowReads {
  return new GenerationCache<unknown>(store, {
    keyOf: flowsGenerationKey,
    maxAgeMs: 60_000,
    maxWeight: MAX_WEIGHT,
    weigh: weightOf,
  });
}

/**
 * The organization's flows generation for this request: the one read in the principal's own store
 * round trip when there was one (auth/principal.ts), else one read now.
 */
export function flowsGenerationFor(reads: FlowReads, principal: Pick<Principal, "organizationId" | "flowsGeneration">): Promise<string> | string {
  return principal.flowsGeneration ?? reads.current(principal.organizationId);
}

/** A flow row weighs its nodes, a list its flows, anything else 1. */
function weightOf(value: unknown): number {
  const v = value as { nodeCount?: unknown; flows?: unknown };
  if (typeof v.nodeCount === "number") return v.nodeCount + 1;
  if (Array.isArray(v.flows)) return v.flows.length + 1;
  return 1;
}
