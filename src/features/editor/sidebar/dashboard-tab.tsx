"use client";

import { useEffect, useMemo, useRef, useState, type DragEvent, type KeyboardEvent } from "react";
import { useQuery } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { UnavailableButton } from "@/components/buttons";
import { errorInfo, useTRPC } from "@/trpc/react";
import type { ConfigNodeView } from "@/shared/config-nodes";
import { useEditor } from "../editor-api";
import { useConfigNodeList, useConfigNodeWrites } from "../config-nodes/use-config-nodes";
import { buildDashboardTree, nodeName, reorder } from "./dashboard-tree";
import type { SidebarTab } from "./tab";

/** The URL of a dashboard page (SPEC §21). */
export function dashboardHref(orgSlug: string, path: string): string {
  const clean = path.replace(/^\/+/, "");
  return `/dashboard/${encodeURIComponent(orgSlug)}${clean ? `/${clean.split("/").map(encodeURIComponent).join("/")}` : ""}`;
}

export function useOrgSlug(): string | null {
  const trpc = useTRPC();
  const { data } = useQuery(trpc.auth.profile.queryOptions());
  return data?.organization?.slug ?? null;
}

/**
 * One ordered list of the tab (a dashboard's pages, or a page's groups): drag an item onto
 * another, or focus it and press Alt+↑ / Alt+↓ (or its Move buttons) to move it one place.
 */
function OrderedList({
  items,
  label,
  readOnly,
  busy,
  onMove,
  render,
  renderChildren,
}: {
  items: ConfigNodeView[];
  label: string;
  readOnly: boolean;
  busy: boolean;
  onMove: (from: number, to: number) => void;
  render: (n: ConfigNodeView, i: number) => React.ReactNode;
  /** Shown under the item's row (a page's groups), the full width of the item. */
  renderChildren?: (n: ConfigNodeView) => React.ReactNode;
}) {
  const [dragging, setDragging] = useState<number | null>(null);
  const [over, setOver] = useState<number | null>(null);
  // One item has nowhere to go: no grip, no arrows, no "Alt+Up" in its name.
  const movable = !readOnly && items.length > 1;
  const canMove = movable && !busy;
  // The keyboard's place through a move: React moves the item's element, which drops the focus
  // onto the page, and the writes and the list's refetch render several times before the move is
  // done. Until then the row or button that started it gets the focus back when it has lost it.
  const list = useRef<HTMLOListElement>(null);
  const focusAfterMove = useRef<{ id: string; part: "row" | "up" | "down" } | null>(null);
  useEffect(() => {
    const want = focusAfterMove.current;
    if (!want || !list.current) return;
    const item = Array.from(list.current.children).find((el) => el.getAttribute("data-config-node-id") === want.id);
    const target = item?.querySelector<HTMLElement>(want.part === "row" ? ":scope > .dashboard-tab-row" : `:scope > .dashboard-tab-row [data-move="${want.part}"]`);
    if (target && document.activeElement !== target && (document.activeElement === document.body || !document.activeElement)) target.focus();
    if (!busy) focusAfterMove.current = null;
  });
  const moveBy = (i: number, by: -1 | 1, part: "row" | "up" | "down") => {
    focusAfterMove.current = { id: items[i]!.id, part };
    onMove(i, i + by);
  };
  const key = (e: KeyboardEvent, i: number) => {
    if (!canMove || !e.altKey || (e.key !== "ArrowUp" && e.key !== "ArrowDown")) return;
    // A group's row sits inside its page's row: the keys move the innermost item only.
    e.stopPropagation();
    if (e.key === "ArrowUp" && i > 0) {
      e.preventDefault();
      moveBy(i, -1, "row");
    } else if (e.key === "ArrowDown" && i < items.length - 1) {
      e.preventDefault();
      moveBy(i, 1, "row");
    }
  };
  return (
    <ol className="dashboard-tab-list" aria-label={label} ref={list}>
      {items.map((n, i) => (
        <li
          key={n.id}
          className={`dashboard-tab-item${over === i && dragging !== null && dragging !== i ? " drop-target" : ""}`}
          data-config-node-id={n.id}
          draggable={canMove}
          onDragStart={(e: DragEvent) => {
            e.stopPropagation();
            e.dataTransfer.effectAllowed = "move";
            e.dataTransfer.setData("text/plain", n.id);
            setDragging(i);
          }}
          onDragOver={(e: DragEvent) => {
            if (dragging === null) return;
            e.preventDefault();
            e.stopPropagation();
            setOver(i);
          }}
          onDragLeave={() => setOver((o) => (o === i ? null : o))}
          onDrop={(e: DragEvent) => {
            if (dragging === null) return;
            e.preventDefault();
            e.stopPropagation();
            onMove(dragging, i);
            setDragging(null);
            setOver(null);
          }}
          onDragEnd={() => {
            setDragging(null);
            setOver(null);
          }}
        >
          <div className="dashboard-tab-row" role="group" tabIndex={0} onKeyDown={(e) => key(e, i)} aria-label={`${nodeName(n)}, ${i + 1} of ${items.length}${movable ? ". Alt+Up or Alt+Down moves it" : ""}`}>
            {movable ? <span className="dashboard-tab-grip" aria-hidden="true">⋮⋮</span> : null}
            {render(n, i)}
            {!movable ? null : (
              <span className="dashboard-tab-moves">
                {/* Unavailable (first, last, or a move under way) rather than gone or disabled: the focus stays on them. */}
                <UnavailableButton className="secondary small" data-move="up" unavailable={busy || i === 0} aria-label={`Move ${nodeName(n)} up`} onClick={() => moveBy(i, -1, "up")}>
                  ↑
                </UnavailableButton>
                <UnavailableButton className="secondary small" data-move="down" unavailable={busy || i === items.length - 1} aria-label={`Move ${nodeName(n)} down`} onClick={() => moveBy(i, 1, "down")}>
                  ↓
                </UnavailableButton>
              </span>
            )}
          </div>
          {renderChildren?.(n)}
        </li>
      ))}
    </ol>
  );
}

/**
 * The Dashboard tab (Dashboard 2.0's sidebar): every ui-base with its pages and each page's groups
 * in order, each page with a link to open it; reordering writes the configuration nodes' `order`
 * through the configuration-node API (deployed flows show it after their next deploy, as any
 * change to a configuration node).
 */
function DashboardTab() {
  const { readOnly } = useEditor();
  const { nodes, error } = useConfigNodeList();
  const writes = useConfigNodeWrites();
  const slug = useOrgSlug();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ text: string; error?: boolean } | null>(null);
  const tree = useMemo(() => buildDashboardTree(nodes ?? []), [nodes]);

  async function move(list: ConfigNodeView[], from: number, to: number) {
    const changes = reorder(list, from, to);
    if (changes.length === 0) return;
    setBusy(true);
    setOutcome(null);
    try {
      for (const c of changes) await writes.update({ id: c.node.id, config: { ...c.node.config, order: c.order }, revision: c.node.revision });
      setOutcome({ text: `Moved “${nodeName(list[from]!)}”. Deploy the flows that use it to show the new order.` });
    } catch (err) {
      setOutcome({ text: `Not moved: ${errorInfo(err).message}`, error: true });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="dashboard-tab" aria-label="Dashboard">
      {error ? <Alert kind="error">{errorInfo(error).message}</Alert> : null}
      {nodes === null && !error ? <p role="status">Loading…</p> : null}
      {nodes !== null && tree.length === 0 ? (
        <p className="hint">No dashboards yet. Add a widget from the palette&apos;s Dashboard category: its form creates the ui-base, ui-page and ui-group it needs.</p>
      ) : null}
      {outcome ? <Alert kind={outcome.error ? "error" : "ok"}>{outcome.text}</Alert> : null}
      {tree.map((base) => (
        <section key={base.node?.id ?? "unassigned"} className="dashboard-tab-base" aria-label={base.node ? nodeName(base.node) : "Unassigned"}>
          <h3>{base.node ? nodeName(base.node) : "Unassigned"}</h3>
          {base.pages.length === 0 ? <p className="hint">No pages.</p> : null}
          <OrderedList
            items={base.pages.map((p) => p.node).filter((p) => p.id !== "")}
            label={`Pages of ${base.node ? nodeName(base.node) : "no dashboard"}`}
            readOnly={readOnly || base.node === null}
            busy={busy}
            onMove={(from, to) => void move(base.pages.map((p) => p.node).filter((p) => p.id !== ""), from, to)}
            render={(pageNode) => {
              const page = base.pages.find((p) => p.node.id === pageNode.id)!;
              return (
                <div className="dashboard-tab-line">
                  <span className="dashboard-tab-name">{nodeName(pageNode)}</span>
                  <code className="muted">{page.path}</code>
                  {slug ? (
                    <a href={dashboardHref(slug, page.path)} target="_blank" rel="noopener" aria-label={`Open dashboard page ${nodeName(pageNode)}`}>
                      Open
                    </a>
                  ) : null}
                </div>
              );
            }}
            renderChildren={(pageNode) => {
              const page = base.pages.find((p) => p.node.id === pageNode.id)!;
              return page.groups.length > 0 ? (
                <OrderedList
                  items={page.groups}
                  label={`Groups of ${nodeName(pageNode)}`}
                  readOnly={readOnly}
                  busy={busy}
                  onMove={(from, to) => void move(page.groups, from, to)}
                  render={(g) => <span className="dashboard-tab-name">{nodeName(g)}</span>}
                />
              ) : null;
            }}
          />
          {base.pages
            .filter((p) => p.node.id === "")
            .map((p) => (
              <div key="no-page">
                <p className="hint">Groups without a page:</p>
                <ul>
                  {p.groups.map((g) => (
                    <li key={g.id}>{nodeName(g)}</li>
                  ))}
                </ul>
              </div>
            ))}
        </section>
      ))}
    </section>
  );
}

export const dashboardTab: SidebarTab = { id: "dashboard", label: "Dashboard", component: DashboardTab };
