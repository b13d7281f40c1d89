"use client";

import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import { filterMessages, forgetRowSizes, type DebugMessage } from "./debug-store";
import { JsonValue } from "./json-value";
import type { DebugFeed } from "./use-debug-feed";

export interface DebugNodeInfo {
  id: string;
  type: string;
  name: string;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** HH:MM:SS.mmm in local time, by hand: toLocaleTimeString builds a formatter per call, too slow per row. */
function clock(ts: string) {
  const d = new Date(ts);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

const DebugRow = memo(function DebugRow({
  message,
  label,
  onSelect,
  onShowExecution,
  expanded,
  highlighted,
  otherFlow,
  origin,
}: {
  message: DebugMessage;
  label: string;
  onSelect: (id: string) => void;
  onShowExecution?: (executionId: string) => void;
  expanded: Set<string>;
  highlighted: boolean;
  otherFlow: boolean;
  /** The flow it ran in, when the page is not that flow's (a subflow's page). */
  origin: string | null;
}) {
  return (
    <div className={`debug-row${highlighted ? " selected" : ""}${message.level === "error" ? " error" : ""}`} onClick={() => onSelect(message.ownerId ?? message.nodeId)} data-testid="debug-message">
      <div className="debug-meta">
        <time dateTime={message.ts} title={message.ts}>
          {clock(message.ts)}
        </time>
        <button
          type="button"
          className="link debug-node"
          title="Show this node on the canvas"
          onClick={(e) => {
            e.stopPropagation();
            onSelect(message.ownerId ?? message.nodeId);
          }}
        >
          {label}
        </button>
        {otherFlow && <span className="badge">other flow</span>}
        {origin !== null && <span className="muted">in {origin}</span>}
        {message.topic !== null && <span className="debug-topic">topic: {message.topic}</span>}
        {message.executionId && onShowExecution && !otherFlow ? (
          <button
            type="button"
            className="link debug-execution"
            title="Open this message's execution in the Executions tab"
            onClick={(e) => {
              e.stopPropagation();
              onShowExecution(message.executionId!);
            }}
          >
            Show execution
          </button>
        ) : null}
        <span className="debug-format">
          {message.level === "error" ? "error" : `${message.property === "msg" || message.property === "" ? "msg" : `msg.${message.property}`} : ${message.format}`}
        </span>
      </div>
      {message.level === "error" ? <div className="debug-error-text">{String(message.msg)}</div> : <JsonValue value={message.msg} path={String(message.seq)} expanded={expanded} />}
    </div>
  );
});

/**
 * The `Debug` region: this flow's (or every flow's) debug messages, newest last, in a virtualized
 * list of at most 1,000; filter by node and text, Pause (arrivals wait, counted), Clear. Following
 * the newest message stops while the person scrolls up and resumes at the bottom. A message of this
 * flow that names its execution links to it (`onShowExecution`). In a subflow's editor, "this
 * subflow" is the messages of its debug nodes from every instance, in whichever flow.
 */
export function DebugPanel({
  feed,
  nodes,
  onSelectNode,
  onShowExecution,
  flowNames,
  actions,
}: {
  feed: DebugFeed;
  nodes: DebugNodeInfo[];
  onSelectNode: (nodeId: string) => void;
  onShowExecution?: (executionId: string) => void;
  /** Names of the flows a subflow's messages come from (its page says which one each ran in). */
  flowNames?: ReadonlyMap<string, string>;
  /** Controls of the page's own placed under the toolbar (the flow's "All on / All off" for its debug nodes). */
  actions?: React.ReactNode;
}) {
  const { store, scope, setScope, target } = feed;
  const own = target.kind === "flow" ? "flow" : "subflow";
  const snapshot = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
  const [nodeFilter, setNodeFilter] = useState<string>("");
  const [text, setText] = useState("");
  const [selected, setSelected] = useState<string | null>(null);
  const expanded = useRef(new Set<string>()).current;
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);

  const all = useMemo(() => (snapshot.version >= 0 ? store.messages() : []), [store, snapshot]);
  const shown = useMemo(() => filterMessages(all, { nodeId: nodeFilter || null, text, ownOnly: scope === "flow" }), [all, nodeFilter, text, scope]);
  const names = useMemo(() => new Map(nodes.map((n) => [n.id, n.name || n.type])), [nodes]);
  const filterNodes = useMemo(() => {
    const ids = new Set(nodes.filter((n) => n.type === "debug").map((n) => n.id));
    for (const m of all) if (m.ownerId !== null) ids.add(m.ownerId);
    return [...ids].map((id) => ({ id, label: names.get(id) ?? id }));
  }, [nodes, all, names]);

  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 52,
    overscan: 6,
    getItemKey: (i) => shown[i]!.seq,
  });

  // Following the newest: one direct scroll per update (scrollToIndex would re-measure in a loop).
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [shown]);

  // Heights measured for rows that left the list are never needed again; past twice the list's
  // size (so not on every update) they are forgotten, which keeps the Debug tab's memory flat.
  useEffect(() => {
    if (virtualizer.itemSizeCache.size > 2 * store.capacity) forgetRowSizes(virtualizer.itemSizeCache, all[0]?.seq ?? null);
  }, [virtualizer, all, store]);

  const select = (nodeId: string) => {
    setSelected(nodeId);
    onSelectNode(nodeId);
  };

  return (
    <section className="debug-panel" role="region" aria-label="Debug">
      <div className="debug-toolbar">
        <select aria-label="Filter by node" value={nodeFilter} onChange={(e) => setNodeFilter(e.target.value)}>
          <option value="">All nodes</option>
          {filterNodes.map((n) => (
            <option key={n.id} value={n.id}>
              {n.label}
            </option>
          ))}
        </select>
        <input type="search" aria-label="Filter messages" placeholder="Filter messages" value={text} onChange={(e) => setText(e.target.value)} />
        <select aria-label="Which flows" value={scope} onChange={(e) => setScope(e.target.value === "all" ? "all" : "flow")}>
          <option value="flow">This {own}</option>
          <option value="all">All flows</option>
        </select>
        <button type="button" className="small secondary" aria-pressed={snapshot.paused} onClick={() => (snapshot.paused ? store.resume() : store.pause())}>
          {snapshot.paused ? "Resume" : "Pause"}
        </button>
        <button type="button" className="small secondary" onClick={() => store.clear()}>
          Clear
        </button>
      </div>
      {actions}
      <div className="debug-counts" aria-live="polite">
        {snapshot.paused && (
          <span className="badge warn" data-testid="debug-new-count">
            {snapshot.newWhilePaused.toLocaleString()} new
            {snapshot.lostWhilePaused > 0 ? ` (${snapshot.lostWhilePaused.toLocaleString()} too many to keep)` : ""}
          </span>
        )}
        {snapshot.droppedByServer > 0 && (
          <span className="badge warn" data-testid="debug-dropped">
            {snapshot.droppedByServer.toLocaleString()} dropped: messages came faster than this connection could take
          </span>
        )}
        {snapshot.evicted > 0 && <span className="muted">Showing the last {store.capacity.toLocaleString()}</span>}
      </div>
      <div
        className="debug-list"
        ref={scroller}
        onScroll={(e) => {
          const el = e.currentTarget;
          atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
        }}
      >
        {shown.length === 0 ? (
          <p className="muted debug-empty">{all.length === 0 ? (own === "flow" ? "No debug messages yet. Deploy the flow and press Inject on an inject node." : "No debug messages yet. This subflow's debug nodes report here from every flow that uses it, once deployed.") : "No message matches the filter."}</p>
        ) : (
          <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
            {virtualizer.getVirtualItems().map((item) => {
              const m = shown[item.index]!;
              return (
                <div key={item.key} data-index={item.index} ref={virtualizer.measureElement} style={{ position: "absolute", top: 0, left: 0, right: 0, transform: `translateY(${item.start}px)` }}>
                  <DebugRow message={m} label={m.name || names.get(m.ownerId ?? m.nodeId) || m.nodeId} onSelect={select} onShowExecution={onShowExecution} expanded={expanded} highlighted={selected !== null && selected === m.ownerId}
                    otherFlow={m.ownerId === null}
                    origin={own === "subflow" && m.ownerId !== null && m.flowId !== null ? (flowNames?.get(m.flowId) ?? m.flowId) : null}
                  />
                </div>
              );
            })}
          </div>
        )}
      </div>
    </section>
  );
}
