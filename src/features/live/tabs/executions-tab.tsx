"use client";

import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { useInfiniteQuery, useMutation, useQuery } from "@tanstack/react-query";
import { useEditor } from "@/features/editor/editor-api";
import { useCanvasDecorations, type CanvasDecorations, type EdgeDecoration, type NodeDecoration } from "@/features/editor/canvas/decorations";
import type { SidebarTab } from "@/features/editor/sidebar/tab";
import { portOf } from "@/features/editor/model";
import type { Execution, ExecutionListItem } from "@/shared/executions";
import { errorInfo, useTRPC } from "@/trpc/react";
import { useLiveFrames } from "../live-context";
import { errorLine, executionPath, formatDuration, inputPreview, type PathCanvas, type PathNode } from "../execution-path";
import { JsonValue } from "../json-value";
import { useLiveTabs } from "./live-tabs-context";

const PAGE = 50;
/** After a sign that a message ran (an inject, a debug message), the list is read again this long after it. */
const SETTLE_MS = 400;
/** And once more, for executions written after the first read (they are written within ~100 ms of ending). */
const LATE_MS = 1500;
/** Without any sign (a webhook or timer flow without debug nodes), the open tab reads the list this often. */
const POLL_MS = 10_000;

type StatusFilter = "all" | "success" | "error";

const STATUS_TEXT: Record<ExecutionListItem["status"], string> = { success: "Success", error: "Error", running: "Running" };

function clockTime(iso: string): string {
  const d = new Date(iso);
  const today = new Date();
  const time = d.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  return d.toDateString() === today.toDateString() ? time : `${d.toLocaleDateString()} ${time}`;
}

const shortId = (id: string) => (id.length > 14 ? `${id.slice(0, 10)}…` : id);

/** The canvas as the path needs it: node names and wires with their ports. */
function usePathCanvas(): PathCanvas {
  const { nodes, edges } = useEditor();
  return useMemo(
    () => ({
      names: new Map(nodes.map((n) => [n.id, n.data.name || n.data.type])),
      edges: edges.map((e) => ({ id: e.id, source: e.source, sourcePort: portOf(e.sourceHandle), target: e.target })),
    }),
    [nodes, edges],
  );
}

/** The popover of a reached node: its input as recorded, and what happened there. */
function StepPopover({ node, name }: { node: PathNode; name: string }) {
  const step = node.steps[0]!;
  const preview = inputPreview(step);
  return (
    <div className="exec-popover">
      <div className="exec-popover-head">
        <strong>
          Step {node.order}: {name}
        </strong>
        <span className="muted">{formatDuration(step.duration_ms)}</span>
      </div>
      {node.steps.length > 1 ? <p className="muted">Received the message {node.steps.length} times; the first input is shown.</p> : null}
      {node.error !== null ? <p className="exec-popover-error">{errorLine(node.error)}</p> : null}
      {node.dropped && node.error === null ? <p className="muted">The message ended here (nothing was sent on).</p> : null}
      {step.input_recorded ? (
        <>
          <div className="exec-popover-label">
            Input (msg){step.truncated ? <span className="badge warn">cut at 64 KiB</span> : null}
            {preview.cut ? <span className="muted"> · shortened here, full in the sidebar</span> : null}
          </div>
          <pre className="exec-popover-input">{preview.text}</pre>
        </>
      ) : (
        <p className="muted">Input not recorded: this execution was kept only because it failed.</p>
      )}
    </div>
  );
}

/** The canvas marks of one execution's path: reached nodes (numbered), dropped and error nodes, wires taken. */
function usePathDecorations(execution: Execution | null, canvas: PathCanvas) {
  const { nodes: canvasNodes } = useEditor();
  const path = useMemo(() => (execution ? executionPath(execution, canvas) : null), [execution, canvas]);
  const decorations = useMemo<CanvasDecorations | null>(() => {
    if (!path) return null;
    const nodes = new Map<string, NodeDecoration>();
    for (const n of canvasNodes) if (!path.nodes.has(n.id)) nodes.set(n.id, { className: "exec-off" });
    for (const p of path.nodes.values()) {
      if (p.missing) continue;
      const name = canvas.names.get(p.nodeId) ?? p.nodeId;
      const what = p.error !== null ? `, failed: ${p.error}` : p.dropped ? ", the message ended here" : "";
      nodes.set(p.nodeId, {
        className: ["exec-reached", p.error !== null ? "exec-error" : "", p.dropped ? "exec-dropped" : ""].filter(Boolean).join(" "),
        badge: String(p.order),
        badgeLabel: `step ${p.order} of the execution${what}`,
        note: p.error !== null ? errorLine(p.error) : p.dropped ? "Dropped here" : undefined,
        detail: <StepPopover node={p} name={name} />,
      });
    }
    const edges = new Map<string, EdgeDecoration>();
    for (const id of path.edges) edges.set(id, { className: "exec-taken" });
    return { nodes, edges };
  }, [path, canvasNodes, canvas.names]);
  useCanvasDecorations("executions", decorations);
  return path;
}

function ExecutionDetail({ id, onReplayed }: { id: string; onReplayed: (newId: string) => void }) {
  const trpc = useTRPC();
  const api = useEditor();
  const { canReplay, selectExecution } = useLiveTabs();
  const canvas = usePathCanvas();
  // A replay's or a debug message's execution may not be written yet (~100 ms): a 404 is asked again a few times.
  const query = useQuery({
    ...trpc.executions.get.queryOptions({ id }),
    retry: (count, err) => count < 8 && errorInfo(err).code === "NOT_FOUND",
    retryDelay: 400,
    refetchInterval: (q) => (q.state.data?.execution.status === "running" ? 2000 : false),
  });
  const execution = query.data?.execution ?? null;
  const path = usePathDecorations(execution, canvas);
  const replay = useMutation(trpc.executions.replay.mutationOptions());
  const [expanded] = useState(() => new Set<string>());

  if (query.isPending) return <p className="muted" role="status">Loading the execution…</p>;
  if (query.isError) {
    const info = errorInfo(query.error);
    return (
      <div className="exec-detail">
        <p className="error" role="alert">
          {info.code === "NOT_FOUND" ? `Execution ${id} was not recorded (sampling keeps a share of successful executions) or is no longer kept.` : info.message}
        </p>
        <div className="exec-actions">
          <button type="button" className="small secondary" onClick={() => selectExecution(null)}>
            Clear selection
          </button>
        </div>
      </div>
    );
  }
  const e = execution!;
  const name = (nodeId: string) => canvas.names.get(nodeId) ?? nodeId;
  return (
    <section className="exec-detail" aria-label="Selected execution" data-testid="execution-detail">
      <div className="exec-detail-head">
        <span className={`exec-status ${e.status}`}>{STATUS_TEXT[e.status]}</span>
        <code title={e.id}>{e.id}</code>
      </div>
      <p className="exec-summary" data-testid="execution-summary" aria-live="polite">
        {path?.summary}
      </p>
      <dl className="exec-facts">
        <dt>Started</dt>
        <dd>
          <time dateTime={e.started_at}>{clockTime(e.started_at)}</time> by {name(e.trigger_node_id)}
        </dd>
        <dt>Duration</dt>
        <dd>{formatDuration(e.duration_ms)}</dd>
        {e.replay_of ? (
          <>
            <dt>Replay of</dt>
            <dd>
              <button type="button" className="link" onClick={() => selectExecution(e.replay_of)}>
                {e.replay_of}
              </button>
            </dd>
          </>
        ) : null}
        {!e.sampled ? (
          <>
            <dt>Recorded</dt>
            <dd>only because it failed: inputs of the trigger and the failing step only</dd>
          </>
        ) : null}
      </dl>
      <div className="exec-actions">
        {canReplay ? (
          <button
            type="button"
            className="small"
            disabled={!e.replayable || replay.isPending}
            aria-describedby={!e.replayable ? "exec-not-replayable" : undefined}
            onClick={() =>
              replay.mutate(
                { id: e.id },
                {
                  onSuccess: (res) => onReplayed(res.execution_id),
                },
              )
            }
          >
            Replay
          </button>
        ) : null}
        <button type="button" className="small secondary" onClick={() => selectExecution(null)}>
          Clear selection
        </button>
      </div>
      {!e.replayable && canReplay ? (
        <p className="muted" id="exec-not-replayable">
          Its trigger message was too big to keep (over 1 MiB), so it cannot be replayed.
        </p>
      ) : null}
      {replay.isError ? (
        <p className="error" role="alert">
          {errorInfo(replay.error).message}
        </p>
      ) : null}
      <h3 className="exec-steps-title">Steps</h3>
      {e.steps_omitted > 0 ? (
        <p className="muted" data-testid="exec-steps-omitted">
          {e.steps_omitted} more {e.steps_omitted === 1 ? "step was" : "steps were"} not kept (an execution keeps its first 100 steps and every failing one).
        </p>
      ) : null}
      <ol className="exec-steps">
        {e.steps.map((step, i) => (
          <li key={i} className={step.error ? "error" : step.dropped ? "dropped" : ""}>
            <div className="exec-step-head">
              <button
                type="button"
                className="link"
                title="Show this node on the canvas"
                onClick={() => {
                  if (!api.nodes.some((n) => n.id === step.node_id)) return;
                  api.selectNode(step.node_id);
                  api.highlightNode(step.node_id);
                }}
              >
                {name(step.node_id)}
              </button>
              <span className="muted">{formatDuration(step.duration_ms)}</span>
              {step.outputs.length > 0 ? <span className="muted">sent {step.outputs.map((o) => `${o.count} on port ${o.port + 1}`).join(", ")}</span> : null}
              {step.dropped ? <span className="badge warn">dropped</span> : null}
              {step.truncated ? <span className="badge warn">cut at 64 KiB</span> : null}
            </div>
            {step.error ? <p className="exec-step-error">{errorLine(step.error)}</p> : null}
            {step.input_recorded ? (
              step.truncated ? (
                <pre className="exec-popover-input">{String(step.input)}</pre>
              ) : (
                <JsonValue value={step.input} path={`${e.id}.${i}`} expanded={expanded} label="msg" />
              )
            ) : (
              <p className="muted">Input not recorded.</p>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** Rows as a listbox: arrows move the choice (which follows focus), Home/End, Escape clears it. */
function ExecutionList({ rows, selectedId, onSelect, names }: { rows: ExecutionListItem[]; selectedId: string | null; onSelect: (id: string | null) => void; names: ReadonlyMap<string, string> }) {
  const listRef = useRef<HTMLUListElement>(null);
  const index = rows.findIndex((r) => r.id === selectedId);
  const active = index >= 0 ? rows[index]! : null;
  useEffect(() => {
    if (!active) return;
    listRef.current?.querySelector(`[data-id="${CSS.escape(active.id)}"]`)?.scrollIntoView({ block: "nearest" });
  }, [active]);
  const onKeyDown = (ev: KeyboardEvent) => {
    if (rows.length === 0) return;
    let next: number | null = null;
    if (ev.key === "ArrowDown") next = index < 0 ? 0 : Math.min(rows.length - 1, index + 1);
    else if (ev.key === "ArrowUp") next = index < 0 ? 0 : Math.max(0, index - 1);
    else if (ev.key === "Home") next = 0;
    else if (ev.key === "End") next = rows.length - 1;
    else if (ev.key === "Escape" && selectedId) {
      ev.preventDefault();
      onSelect(null);
      return;
    }
    if (next === null) return;
    ev.preventDefault();
    onSelect(rows[next]!.id);
  };
  return (
    <ul
      ref={listRef}
      className="exec-list"
      role="listbox"
      aria-label="Executions, newest first"
      tabIndex={0}
      aria-activedescendant={active ? `exec-row-${active.id}` : undefined}
      onKeyDown={onKeyDown}
    >
      {rows.map((r) => (
        <li
          key={r.id}
          id={`exec-row-${r.id}`}
          data-id={r.id}
          role="option"
          aria-selected={r.id === selectedId}
          className={`exec-row ${r.status}${r.id === selectedId ? " selected" : ""}`}
          data-testid="execution-row"
          onClick={() => onSelect(r.id)}
        >
          <span className={`exec-status ${r.status}`}>{STATUS_TEXT[r.status]}</span>
          <span className="exec-trigger" title={names.get(r.trigger_node_id) ?? r.trigger_node_id}>{names.get(r.trigger_node_id) ?? r.trigger_node_id}</span>
          <time dateTime={r.started_at} title={r.started_at}>
            {clockTime(r.started_at)}
          </time>
          <span className="exec-duration">{formatDuration(r.duration_ms)}</span>
          {r.replay_of ? (
            <span className="exec-replay-of" title={`Replay of ${r.replay_of}`}>
              ↻ replay of {shortId(r.replay_of)}
            </span>
          ) : null}
          {r.error ? <span className="exec-row-error">{r.error}</span> : null}
        </li>
      ))}
    </ul>
  );
}

/**
 * The flow's executions (SPEC §15), newest first: filter by status, load more with the cursor,
 * read again live (after an inject or a debug message of this flow, and every few seconds) or with
 * Refresh. Choosing one marks its path on the canvas (reached nodes numbered, the wires taken, the
 * error on its node, each node's input on hover or focus) and offers Replay to members.
 */
function ExecutionsTab() {
  const trpc = useTRPC();
  const { flowId } = useEditor();
  const { selectedExecutionId, selectExecution } = useLiveTabs();
  const canvas = usePathCanvas();
  const [status, setStatus] = useState<StatusFilter>("all");
  const list = useInfiniteQuery({
    ...trpc.executions.list.infiniteQueryOptions({ id: flowId, limit: PAGE, ...(status === "all" ? {} : { status }) }, { getNextPageParam: (last) => last.next_cursor ?? undefined }),
    refetchInterval: POLL_MS,
  });
  const rows = useMemo(() => list.data?.pages.flatMap((p) => p.executions) ?? [], [list.data]);
  const unrecorded = list.data?.pages[0]?.unrecorded ?? 0;

  // Live: a message of this flow ran; read the list again once things settle.
  const timers = useRef<ReturnType<typeof setTimeout>[]>([]);
  const refetchRef = useRef(list.refetch);
  useEffect(() => {
    refetchRef.current = list.refetch;
  });
  useEffect(() => () => timers.current.forEach(clearTimeout), []);
  // Throttled, not debounced: under steady traffic the list is still read (twice per LATE_MS at most).
  const scheduleReads = () => {
    if (timers.current.length > 0) return;
    const read = (last: boolean) => () => {
      if (last) timers.current = [];
      void refetchRef.current();
    };
    timers.current = [setTimeout(read(false), SETTLE_MS), setTimeout(read(true), LATE_MS)];
  };
  const known = useMemo(() => new Set(rows.map((r) => r.id)), [rows]);
  useLiveFrames((frame) => {
    // Connected again (or for the first time): runs that finished while no events came are read now
    // (a read in flight, such as a "Load more", is joined, not cancelled: the list polls as well).
    if (frame.type === "ready") {
      void refetchRef.current({ cancelRefetch: false });
      return;
    }
    let ran = false;
    if (frame.type === "debug.batch") ran = frame.events.some((e) => e.flow_id === flowId && e.data.execution_id && !known.has(e.data.execution_id));
    else if (frame.type === "event" && frame.flow_id === flowId) {
      if (frame.topic === "debug") ran = Boolean(frame.data.execution_id && !known.has(frame.data.execution_id));
      else ran = frame.topic === "inject" || frame.topic === "node.status";
    }
    if (ran) scheduleReads();
  });

  const onReplayed = (newId: string) => {
    // The replay must show in the list whatever the filter.
    setStatus("all");
    selectExecution(newId);
    scheduleReads();
  };

  return (
    <section className="executions-panel" role="region" aria-label="Executions">
      <div className="exec-toolbar">
        <label>
          Status{" "}
          <select value={status} onChange={(e) => setStatus(e.target.value as StatusFilter)}>
            <option value="all">All</option>
            <option value="success">Success</option>
            <option value="error">Error</option>
          </select>
        </label>
        <button type="button" className="small secondary" onClick={() => void list.refetch()} disabled={list.isFetching && !list.isFetchingNextPage}>
          Refresh
        </button>
      </div>
      {unrecorded > 0 ? (
        <p className="muted exec-unrecorded" data-testid="executions-unrecorded">
          {unrecorded.toLocaleString()} successful {unrecorded === 1 ? "execution was" : "executions were"} not recorded (sampling at high message rates).
        </p>
      ) : null}
      {list.isError ? (
        <p className="error" role="alert">
          {errorInfo(list.error).message}
        </p>
      ) : null}
      {list.isPending ? (
        <p className="muted" role="status">
          Loading executions…
        </p>
      ) : rows.length === 0 ? (
        <p className="muted">{status !== "all" ? `No ${status === "error" ? "failed" : "successful"} executions.` : unrecorded > 0 ? "No execution was kept." : "No executions yet. Deploy the flow and send it a message (Inject)."}</p>
      ) : (
        <ExecutionList rows={rows} selectedId={selectedExecutionId} onSelect={selectExecution} names={canvas.names} />
      )}
      {list.hasNextPage ? (
        <button type="button" className="small secondary exec-more" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
          {list.isFetchingNextPage ? "Loading…" : "Load more"}
        </button>
      ) : null}
      {selectedExecutionId ? <ExecutionDetail key={selectedExecutionId} id={selectedExecutionId} onReplayed={onReplayed} /> : null}
    </section>
  );
}

export const executionsTab: SidebarTab = { id: "executions", label: "Executions", component: ExecutionsTab };
