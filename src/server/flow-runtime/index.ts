import { randomHex } from "../ids";
import { hostname } from "node:os";
import type { KeyValueStore } from "../store";
import { ClusteredFlowRuntime, type ClusteredRuntimeDeps } from "./clustered";
import { LocalFlowRuntime } from "./local";
import type { FlowRuntime } from "./types";

export type { FlowRuntime, FlowRuntimeStats, FlowPlacement, InjectResult, DeploymentSnapshot } from "./types";
export { DEFAULT_CLUSTER_TIMINGS, type ClusterTimings } from "./clustered";

/** INSTANCE_ID, or host name, process id and a random suffix (a restarted process is a new instance). */
export function resolveInstanceId(configured: string | undefined): string {
  if (configured) return configured;
  const host = hostname().replace(/[^A-Za-z0-9.-]/g, "-").slice(0, 40) || "host";
  return `${host}-${process.pid}-${randomHex(3)}`;
}

/**
 * The flow runtime for this process: clustered when the store is shared (Redis: several instances
 * may run against the same database), local otherwise (the in-process store cannot be shared, so
 * the embedded defaults are always one instance that runs every deployed flow).
 */
export function createFlowRuntime(store: KeyValueStore, deps: Omit<ClusteredRuntimeDeps, "store">): FlowRuntime {
  if (store.kind === "redis") return new ClusteredFlowRuntime({ ...deps, store });
  return new LocalFlowRuntime({ ...deps, store });
}
