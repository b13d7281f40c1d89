import type { KeyValueStore } from "../../store";
import type { Principal } from "../../auth/principal";
import { GenerationCache } from "../../store/generation-cache";
import { deepFreeze } from "../../../shared/deep-freeze";

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

/**
 * What an instance keeps, in KiB of the values' JSON (about 32 MiB of JSON, some more in memory).
 * A value larger than all of it is read from the database every time.
 */
const MAX_WEIGHT_KIB = 32 * 1024;

export function createFlowReads(store: KeyValueStore): FlowReads {
  return new GenerationCache<unknown>(store, {
    keyOf: flowsGenerationKey,
    maxAgeMs: 60_000,
    maxWeight: MAX_WEIGHT_KIB,
    weigh: weightOf,
  });
}

/**
 * A read of the caller's organization through its flow reads: the value kept under `key` for the
 * request's flows generation, else `load()`'s, deep-frozen and kept (nothing is kept for undefined:
 * a missing flow or node is read again next time). The generation is the one read in the
 * principal's own store round trip when there was one (auth/principal.ts), else one read now, and
 * always before `load()`: a value is only kept under a token read before it.
 */
export async function readThrough<T>(
  reads: FlowReads,
  principal: Pick<Principal, "organizationId" | "flowsGeneration">,
  key: string,
  load: () => Promise<T | undefined>,
): Promise<T | undefined> {
  const scope = principal.organizationId;
  const generation = principal.flowsGeneration ?? (await reads.current(scope));
  const cached = reads.get(scope, generation, key) as T | undefined;
  if (cached !== undefined) return cached;
  const value = await load();
  if (value !== undefined) reads.set(scope, generation, key, deepFreeze(value));
  return value;
}

/**
 * A value's weight: its size as JSON in KiB (at least 1). Measured once, when it is kept: a flow's
 * row is measured by its graph and texts, so a flow of few but large nodes weighs what it holds.
 */
function weightOf(value: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(value).length / 1024));
}
