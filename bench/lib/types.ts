import type { AppServices } from "@/server/app-services";
import type { restClient } from "@/test/app";

/** One line of the results table. */
export interface Row {
  /** The benchmark's number in the brief, e.g. "1 Accounts". */
  benchmark: string;
  measure: string;
  result: string;
  /** Node-RED's figure from /work/shared/ANCHORS.md (not measured side by side), when there is one. */
  nodeRed?: string;
  notes?: string;
}

export interface BenchOutcome {
  rows: Row[];
  /** Sentences for the backend's notes: what was seeded, what was lowered, anything odd. */
  notes: string[];
}

export interface BenchContext {
  services: AppServices;
  /** http://127.0.0.1:<port>, the small REST server of the bench process. */
  baseUrl: string;
  /** In-process REST calls for setup (same adapter, no socket). */
  request: ReturnType<typeof restClient>;
  log(message: string): void;
}
