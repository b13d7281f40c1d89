"use client";

import type { SidebarTab } from "./tab";

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
      <div role="tablist" aria-label="Sidebar panels" className="tabs">
        {tabs.map((t) => (
          <button key={t.id} type="button" role="tab" id={`tab-${t.id}`} aria-selected={t.id === activeTab.id} aria-controls={`panel-${t.id}`} className="tab" onClick={() => onChoose(t.id)}>
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
