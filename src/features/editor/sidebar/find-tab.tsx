"use client";

import { useDeferredValue, useMemo } from "react";
import { useEditor } from "../editor-api";
import { nodeMatches } from "../model";
import { useSidebarShell } from "./sidebar-context";
import type { SidebarTab } from "./tab";
import { nodeLabel } from "@/shared/node-labels";

/** Find nodes by name, type or any configured value (Ctrl/Cmd+F); the matches are also marked on the canvas. */
function FindTab() {
  const { nodes: current, selectNode } = useEditor();
  const { findQuery: q, setFindQuery: setQ, findInputRef } = useSidebarShell();
  const nodes = useDeferredValue(current);
  const found = useMemo(() => (q.trim() ? nodes.filter((n) => nodeMatches(n, q)) : []), [nodes, q]);
  return (
    <div className="find-panel">
      <div className="field">
        <label htmlFor="find-nodes">Find nodes</label>
        <input ref={findInputRef} id="find-nodes" type="search" value={q} onChange={(e) => setQ(e.target.value)} aria-describedby="find-hint" />
        <p id="find-hint" className="hint">
          By name, type or any configured value (Ctrl/Cmd+F).
        </p>
      </div>
      {q.trim() ? (
        <p role="status" className="hint">
          {found.length} node{found.length === 1 ? "" : "s"} found
        </p>
      ) : null}
      <ul className="find-results">
        {found.slice(0, 200).map((n) => (
          <li key={n.id}>
            <button type="button" className="link" onClick={() => selectNode(n.id)}>
              {nodeLabel(n.data)}
            </button>{" "}
            <span className="muted">{n.data.type}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

export const findTab: SidebarTab = { id: "find", label: "Find", component: FindTab };
