"use client";

import { memo, useEffect, useMemo, useRef, useState, type PointerEvent as ReactPointerEvent } from "react";
import { isSubflowInstanceType } from "@/shared/subflows";
import { SUBFLOW_ICON, UNKNOWN_ICON, categoryColors, categoryLabels, type CatalogEntry } from "./model";
import { NodeIcon } from "./node-icon";
import { paletteGroups, searchChoice } from "./palette-model";

/**
 * The node palette: types grouped by category, with search. Click or Enter adds the type in the
 * middle of the view (Enter in the search box adds the first match); dragging (pointer events, so mouse, pen and touch alike) drops it where the
 * pointer is released on the canvas. Read-only editors get the list without the actions.
 */
export const Palette = memo(function Palette({
  catalog,
  readOnly,
  onAdd,
  onDrop,
  inSubflow,
  id,
  open,
}: {
  catalog: CatalogEntry[];
  readOnly: boolean;
  /** On a narrow screen the palette is a drawer over the canvas (editor.css): its id for the toggle's `aria-controls`, and whether it is shown. */
  id?: string;
  open?: boolean;
  /** Editing a subflow definition: its port nodes are offered, the definition's own instance is not. */
  inSubflow?: { type: string };
  onAdd: (type: string) => void;
  onDrop: (type: string, clientX: number, clientY: number) => void;
}) {
  const [search, setSearch] = useState("");
  const [ghost, setGhost] = useState<{ type: string; x: number; y: number } | null>(null);
  const dragged = useRef(false);
  const groups = useMemo(() => paletteGroups(catalog, search, inSubflow), [catalog, search, inSubflow]);
  // One Tab stop for the whole list (the entry last focused, else the first): ↑ and ↓ move between
  // entries, Home and End to the first and last, ↓ from the search box to the first, ↑ from the first back to it.
  const types = useMemo(() => groups.flatMap((g) => g.items.map((c) => c.type)), [groups]);
  const [current, setCurrent] = useState<string | null>(null);
  const tabStop = current !== null && types.includes(current) ? current : (types[0] ?? null);
  const listRef = useRef<HTMLDivElement>(null);
  const focusType = (type: string | undefined) => {
    if (type === undefined) return;
    setCurrent(type);
    listRef.current?.querySelector<HTMLElement>(`.palette-item[data-type="${CSS.escape(type)}"]`)?.focus();
  };
  function onListKey(e: React.KeyboardEvent<HTMLDivElement>) {
    const at = types.indexOf((e.target as HTMLElement).dataset.type ?? "");
    if (at < 0 || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "ArrowDown") focusType(types[Math.min(at + 1, types.length - 1)]);
    else if (e.key === "ArrowUp") {
      if (at === 0) document.getElementById("palette-search")?.focus();
      else focusType(types[at - 1]);
    } else if (e.key === "Home") focusType(types[0]);
    else if (e.key === "End") focusType(types.at(-1));
    else return;
    e.preventDefault();
  }

  function onPointerDown(e: ReactPointerEvent<HTMLButtonElement>, type: string) {
    if (readOnly || e.button !== 0) return;
    const start = { x: e.clientX, y: e.clientY };
    dragged.current = false;
    const target = e.currentTarget;
    target.setPointerCapture?.(e.pointerId);
    const move = (ev: PointerEvent) => {
      if (!dragged.current && Math.hypot(ev.clientX - start.x, ev.clientY - start.y) < 6) return;
      dragged.current = true;
      setGhost({ type, x: ev.clientX, y: ev.clientY });
    };
    const up = (ev: PointerEvent) => {
      target.removeEventListener("pointermove", move);
      target.removeEventListener("pointerup", up);
      target.removeEventListener("pointercancel", cancel);
      setGhost(null);
      if (dragged.current) onDrop(type, ev.clientX, ev.clientY);
    };
    const cancel = () => {
      target.removeEventListener("pointermove", move);
      target.removeEventListener("pointerup", up);
      target.removeEventListener("pointercancel", cancel);
      setGhost(null);
      dragged.current = false;
    };
    target.addEventListener("pointermove", move);
    target.addEventListener("pointerup", up);
    target.addEventListener("pointercancel", cancel);
  }

  return (
    <section className="palette" aria-label="Palette" id={id} data-open={open || undefined}>
      <div className="field">
        <label htmlFor="palette-search">Search nodes</label>
        <input
          id="palette-search"
          type="search"
          value={search}
          aria-describedby="palette-search-hint"
          onChange={(e) => setSearch(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "ArrowDown") {
              e.preventDefault();
              focusType(types[0]);
              return;
            }
            // Enter adds the match (the only one, or the first as listed), like Enter on its button.
            if (e.key !== "Enter" || readOnly) return;
            const choice = searchChoice(groups, search);
            if (!choice) return;
            e.preventDefault();
            onAdd(choice.type);
          }}
        />
        <span id="palette-search-hint" className="visually-hidden">
          {readOnly ? "" : "Enter adds the first match to the canvas. "}Down arrow moves into the list, where the arrow keys move between node types.
        </span>
      </div>
      {groups.length === 0 ? <p className="hint">No node type matches.</p> : null}
      <div ref={listRef} onKeyDown={onListKey}>
      {groups.map((g) => (
        <div key={g.cat} className="palette-group">
          <h3>{categoryLabels[g.cat] ?? g.cat.charAt(0).toUpperCase() + g.cat.slice(1)}</h3>
          <ul>
            {g.items.map((c) => (
              <li key={c.type}>
                <button
                  type="button"
                  className="palette-item"
                  style={{ ["--cat" as string]: c.color ?? categoryColors[c.category] }}
                  aria-disabled={readOnly || undefined}
                  aria-describedby={`palette-desc-${c.type}`}
                  data-type={c.type}
                  tabIndex={c.type === tabStop ? 0 : -1}
                  onFocus={() => setCurrent(c.type)}
                  onPointerDown={(e) => onPointerDown(e, c.type)}
                  onClick={() => {
                    if (readOnly) return;
                    if (dragged.current) {
                      dragged.current = false;
                      return;
                    }
                    onAdd(c.type);
                  }}
                >
                  <span className="icon" aria-hidden="true">
                    {isSubflowInstanceType(c.type) ? SUBFLOW_ICON : <NodeIcon svg={c.icon} fallback={UNKNOWN_ICON} />}
                  </span>
                  {isSubflowInstanceType(c.type) ? c.name : c.type}
                </button>
                <span id={`palette-desc-${c.type}`} className="visually-hidden">
                  {c.description}
                </span>
              </li>
            ))}
          </ul>
        </div>
      ))}
      </div>
      {ghost ? (
        <div className="palette-ghost" style={{ left: ghost.x, top: ghost.y }} aria-hidden="true">
          {ghost.type}
        </div>
      ) : null}
    </section>
  );
});

/** The quick-add search that opens where a wire was dropped on empty canvas. */
export function QuickAdd({ catalog, x, y, onChoose, onClose }: { catalog: CatalogEntry[]; x: number; y: number; onChoose: (type: string) => void; onClose: () => void }) {
  const [q, setQ] = useState("");
  const [active, setActive] = useState(0);
  const box = useRef<HTMLDivElement>(null);
  // Closes on a press outside (not on blur: the drop that opened it may still move focus).
  useEffect(() => {
    const outside = (e: PointerEvent) => {
      if (!box.current?.contains(e.target as Node)) onClose();
    };
    const t = setTimeout(() => document.addEventListener("pointerdown", outside, true), 0);
    return () => {
      clearTimeout(t);
      document.removeEventListener("pointerdown", outside, true);
    };
  }, [onClose]);
  const list = catalog.filter((c) => c.inputs > 0 && (!q.trim() || c.type.includes(q.trim().toLowerCase()) || c.name.toLowerCase().includes(q.trim().toLowerCase())));
  return (
    <div ref={box} className="quick-add" style={{ left: x, top: y }} role="dialog" aria-label="Add a node here">
      <label htmlFor="quick-add-search">Add node</label>
      <input
        id="quick-add-search"
        type="search"
        autoFocus
        value={q}
        role="combobox"
        aria-expanded="true"
        aria-controls="quick-add-list"
        aria-activedescendant={list[active] ? `quick-add-${list[active].type}` : undefined}
        onChange={(e) => {
          setQ(e.target.value);
          setActive(0);
        }}
        onKeyDown={(e) => {
          if (e.key === "Escape") onClose();
          else if (e.key === "ArrowDown") setActive((a) => Math.min(a + 1, list.length - 1));
          else if (e.key === "ArrowUp") setActive((a) => Math.max(a - 1, 0));
          else if (e.key === "Enter" && list[active]) {
            e.preventDefault();
            onChoose(list[active].type);
          }
        }}
      />
      <ul id="quick-add-list" role="listbox" aria-label="Node types">
        {list.map((c, i) => (
          <li key={c.type} id={`quick-add-${c.type}`} role="option" aria-selected={i === active} tabIndex={-1} onMouseDown={(e) => e.preventDefault()} onClick={() => onChoose(c.type)}>
            {c.type}
          </li>
        ))}
      </ul>
    </div>
  );
}
