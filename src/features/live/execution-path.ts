import type { Execution, ExecutionStep } from "@/shared/executions";

/** What the Executions tab needs of the canvas: a node's shown name, and the wires as model.ts names them. */
export interface PathCanvas {
  names: ReadonlyMap<string, string>;
  /** Wires: `id` is model.ts's edgeId, `sourcePort` the 0-based output port. */
  edges: readonly { id: string; source: string; sourcePort: number; target: string }[];
}

/** One node the execution reached, with its steps (a node can receive the message more than once). */
export interface PathNode {
  nodeId: string;
  /** 1-based: the order in which the message first reached this node. */
  order: number;
  steps: ExecutionStep[];
  /** The first error a step of this node had. */
  error: string | null;
  /** The message ended here: a step sent nothing. */
  dropped: boolean;
  /** The node is no longer on the canvas (edited since the execution ran). */
  missing: boolean;
}

export interface ExecutionPath {
  nodes: Map<string, PathNode>;
  /** Ids of the wires the message took: from a reached node's port that sent it to a reached node. */
  edges: Set<string>;
  /** Readable as text: "Reached: inject → function (error: n is 2)". */
  summary: string;
}

/** An execution's path as the canvas shows it and as a sentence a screen reader can read. */
export function executionPath(execution: Execution, canvas: PathCanvas): ExecutionPath {
  const nodes = new Map<string, PathNode>();
  for (const step of execution.steps) {
    let node = nodes.get(step.node_id);
    if (!node) {
      node = { nodeId: step.node_id, order: nodes.size + 1, steps: [], error: null, dropped: false, missing: !canvas.names.has(step.node_id) };
      nodes.set(step.node_id, node);
    }
    node.steps.push(step);
    if (step.error && node.error === null) node.error = step.error;
    if (step.dropped) node.dropped = true;
  }
  const sentOn = new Map<string, Set<number>>();
  for (const step of execution.steps) {
    for (const out of step.outputs) {
      let ports = sentOn.get(step.node_id);
      if (!ports) sentOn.set(step.node_id, (ports = new Set()));
      ports.add(out.port);
    }
  }
  const edges = new Set<string>();
  for (const e of canvas.edges) if (sentOn.get(e.source)?.has(e.sourcePort) && nodes.has(e.target)) edges.add(e.id);
  return { nodes, edges, summary: pathSummary(execution, nodes, canvas.names) };
}

function pathSummary(execution: Execution, nodes: Map<string, PathNode>, names: ReadonlyMap<string, string>): string {
  const parts = [...nodes.values()].map((n) => {
    const name = names.get(n.nodeId) ?? `${n.nodeId} (not on the canvas)`;
    const notes = [n.error !== null ? `error: ${n.error}` : null, n.dropped && n.error === null ? "dropped here" : null].filter(Boolean);
    return notes.length > 0 ? `${name} (${notes.join("; ")})` : name;
  });
  const head = execution.status === "running" ? "Reached so far" : "Reached";
  let text = parts.length > 0 ? `${head}: ${parts.join(" → ")}` : "No step was recorded.";
  // An error no step names (the flow stopped under it, an instance died).
  if (execution.error && ![...nodes.values()].some((n) => n.error !== null)) text += `. Error: ${execution.error}`;
  return text;
}

/** A step's input as shown in a popover: pretty JSON (or the cut text), at most `max` characters. */
export function inputPreview(step: ExecutionStep, max = 2000): { text: string; cut: boolean } {
  if (!step.input_recorded) return { text: "", cut: false };
  const raw = step.truncated ? String(step.input) : (JSON.stringify(step.input, null, 2) ?? String(step.input));
  return raw.length > max ? { text: `${raw.slice(0, max)}…`, cut: true } : { text: raw, cut: false };
}

/** "12 ms", "1.4 s", "running". */
export function formatDuration(ms: number | null): string {
  if (ms === null) return "running";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** How a step's error reads on its own: "Error: …" once (Node-RED's texts often start with the error's name already). */
export function errorLine(text: string): string {
  return /^([A-Z]\w*)?(Error|Exception)\b/.test(text) ? text : `Error: ${text}`;
}
