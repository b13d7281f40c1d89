"use client";

import type { KeyboardEvent } from "react";
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
export function Sidebar({ tabs, active, onChoose, id, open }: { tabs: readonly SidebarTab[]; active: string; onChoose: (id: string) => void; id?: string; open?: boolean }) {
  const activeTab = tabs.find((t) => t.id === active) ?? tabs[0]!;
  const Panel = activeTab.component;
  return (
    <aside className="editor-sidebar" aria-label="Sidebar" id={id} data-open={open || undefined}>
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
