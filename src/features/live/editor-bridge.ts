import type { FlowGraph } from "@/shared/flow-graph";

/** The result of the editor's save, as the live layer needs it. */
export interface SaveOutcome {
  ok: boolean;
}

/**
 * What the live layer needs from the flow editor. The editor page builds one from its store; the
 * live parts (Deploy, Inject, statuses, Debug, Deployments, conflict merge) use nothing else of it.
 */
export interface EditorBridge {
  flowId: string;
  /** The revision the editor's graph is based on. */
  revision: number;
  /** The editor holds changes it has not saved. */
  dirty: boolean;
  /** The editor's graph differs from the deployed one in what runs (not positions). */
  changedSinceDeploy: boolean;
  /** Fetches the deployed graph again, after a deploy. */
  refreshDeployed(): void;
  /** Saves like the editor's Save (revision check included); resolves once settled. */
  save(): Promise<SaveOutcome>;
  /** The server moved to `revision` by a change that left the graph alone (enable/disable). */
  adoptRevision(revision: number): void;
  /** Throws away the editor's graph for the server's current one. */
  reload(): void | Promise<void>;
  /** Selects and shows a node on the canvas. */
  highlightNode(nodeId: string): void;
  /** A node of the editor's graph by its name (else its type); null when the graph has no such node. */
  nodeName(nodeId: string): string | null;
}

/** What a merge needs: the graph the editor loaded and the one it holds now. */
export interface MergeSources {
  base: FlowGraph;
  mine: FlowGraph;
}
