"use client";

import { useRef, type KeyboardEvent, type PointerEvent as ReactPointerEvent } from "react";
import type { SidebarTab } from "./tab";

/**
 * The tab strip's keys, as WAI-ARIA's tabs pattern has them: ← and → (↑ and ↓ too: the strip
 * wraps onto rows) choose the previous or next tab, Home and End the first or last; the chosen
 * tab takes the focus.
 */
function moveBetweenTabs(e: KeyboardEvent<HTMLDivElement>, tabs: readonly SidebarTab[], active: string, onChoose: (id: string) => void) {
  const at = tabs.findIndex((t) => t.id === active);
  const to =
    e.key === "ArrowRight" || e.key === "ArrowDown" ? (at + 1) % tabs.length
    : e.key === "ArrowLeft" || e.key === "ArrowUp" ? (at - 1 + tabs.length) % tabs.length
    : e.key === "Home" ? 0
    : e.key === "End" ? tabs.length - 1
    : -1;
  if (to < 0 || e.altKey || e.ctrlKey || e.metaKey) return;
  e.preventDefault();
  const id = tabs[to]!.id;
  onChoose(id);
  e.currentTarget.querySelector<HTMLElement>(`#tab-${CSS.escape(id)}`)?.focus();
}

/**
 * The right sidebar: the tab strip and the chosen tab's panel (only that one is mounted). On a
 * narrow screen it is a drawer over the canvas (editor.css): `id` for the toggle's
 * `aria-controls`, `open` whether it is shown.
 */
export function Sidebar({
  tabs,
  active,
  onChoose,
  id,
  open,
  width,
  onResize,
}: {
  tabs: readonly SidebarTab[];
  active: string;
  onChoose: (id: string) => void;
  id?: string;
  open?: boolean;
  /** Its width in px on a wide screen, and how it changes when its left edge is dragged or arrowed. */
  width?: number;
  onResize?: (width: number) => void;
}) {
  const activeTab = tabs.find((t) => t.id === active) ?? tabs[0]!;
  const Panel = activeTab.component;
  return (
    <aside className="editor-sidebar" aria-label="Sidebar" id={id} data-open={open || undefined}>
      {width !== undefined && onResize ? <SidebarResizer width={width} onResize={onResize} /> : null}
      <div role="tablist" aria-label="Sidebar panels" className="tabs" onKeyDown={(e) => moveBetweenTabs(e, tabs, activeTab.id, onChoose)}>
        {tabs.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={t.id === activeTab.id}
            aria-controls={`panel-${t.id}`}
            // One stop in the Tab order, the chosen tab's; the arrow keys move between them (WAI-ARIA's tabs pattern).
            tabIndex={t.id === activeTab.id ? 0 : -1}
            className="tab"
            onClick={() => onChoose(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${activeTab.id}`} aria-labelledby={`tab-${activeTab.id}`} className="tab-panel">
        {Panel ? <Panel /> : activeTab.render?.()}
      </div>
    </aside>
  );
}

/** The narrowest and widest the sidebar may be made (px); the widest also leaves the canvas half the window. */
export const SIDEBAR_MIN_WIDTH = 240;
export const SIDEBAR_MAX_WIDTH = 800;
export const SIDEBAR_DEFAULT_WIDTH = 288;
export const clampSidebarWidth = (px: number, viewport = typeof window === "undefined" ? Infinity : window.innerWidth) =>
  Math.round(Math.max(SIDEBAR_MIN_WIDTH, Math.min(px, SIDEBAR_MAX_WIDTH, Math.max(SIDEBAR_MIN_WIDTH, viewport / 2))));

/**
 * The sidebar's left edge (Node-RED's separator): drag it, or focus it and press ← / → (16 px a
 * press, Home and End to the narrowest and widest), to make the sidebar wider or narrower. A
 * WAI-ARIA window splitter: a focusable separator with its value.
 */
function SidebarResizer({ width, onResize }: { width: number; onResize: (width: number) => void }) {
  const drag = useRef<{ x: number; width: number } | null>(null);
  const onPointerDown = (e: ReactPointerEvent<HTMLDivElement>) => {
    if (e.button !== 0) return;
    e.preventDefault();
    e.currentTarget.setPointerCapture?.(e.pointerId);
    drag.current = { x: e.clientX, width };
  };
  const onPointerMove = (e: ReactPointerEvent<HTMLDivElement>) => {
    if (!drag.current) return;
    onResize(clampSidebarWidth(drag.current.width + (drag.current.x - e.clientX)));
  };
  const end = () => {
    drag.current = null;
  };
  return (
    <div
      className="sidebar-resizer"
      role="separator"
      aria-orientation="vertical"
      aria-label="Sidebar width"
      aria-valuenow={width}
      aria-valuemin={SIDEBAR_MIN_WIDTH}
      aria-valuemax={SIDEBAR_MAX_WIDTH}
      tabIndex={0}
      title="Drag, or use the arrow keys, to change the sidebar's width"
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={end}
      onPointerCancel={end}
      onKeyDown={(e) => {
        const next = e.key === "ArrowLeft" ? width + 16 : e.key === "ArrowRight" ? width - 16 : e.key === "Home" ? SIDEBAR_MIN_WIDTH : e.key === "End" ? SIDEBAR_MAX_WIDTH : null;
        if (next === null) return;
        e.preventDefault();
        onResize(clampSidebarWidth(next));
      }}
    />
  );
}
