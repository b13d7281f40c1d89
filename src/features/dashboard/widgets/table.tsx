"use client";

import { useMemo, useState } from "react";
import { show, substitute } from "../format";
import { cellValue, TableCell, type TableColumn } from "./table-cell";
import { bool, num, str, type WidgetProps } from "./widget";

const ALIGN: Record<string, "left" | "center" | "right"> = { start: "left", left: "left", center: "center", end: "right", right: "right" };
const alignOf = (c: TableColumn) => (c.align ? ALIGN[c.align] : undefined);

function rowsOf(payload: unknown): Record<string, unknown>[] {
  if (Array.isArray(payload)) return payload.filter((r): r is Record<string, unknown> => !!r && typeof r === "object" && !Array.isArray(r));
  if (payload && typeof payload === "object") return [payload as Record<string, unknown>];
  return [];
}

/**
 * ui-table: an array of objects as rows; columns from the node (`columns`, `autocols` off) or from
 * the rows' keys; `maxrows` pages the rows; `showSearch` filters; `selectionType: "click"` makes a
 * row a button that sends it.
 */
export function TableWidget({ props, state, interactive, send }: WidgetProps) {
  const rows = rowsOf(state.msg?.payload);
  const [query, setQuery] = useState("");
  const [page, setPage] = useState(0);
  const columns: TableColumn[] = useMemo(() => {
    if (!bool(props, "autocols", true) && Array.isArray(props.columns) && props.columns.length > 0) {
      // As Dashboard 2.0: its columns' `title` (or `label`), a blank title stays blank.
      return (props.columns as Record<string, unknown>[]).map((c) => ({
        key: String(c.key ?? ""),
        keyType: c.keyType === "str" ? "str" : "key",
        title: String(c.label || c.title || ""),
        type: typeof c.type === "string" ? c.type : "text",
        align: typeof c.align === "string" ? c.align : undefined,
        width: typeof c.width === "string" || typeof c.width === "number" ? String(c.width) : undefined,
      }));
    }
    const keys = new Set<string>();
    for (const r of rows.slice(0, 50)) for (const k of Object.keys(r)) keys.add(k);
    return [...keys].map((k) => ({ key: k, keyType: "key", title: k, type: "text" }));
  }, [props, rows]);
  const filtered = query ? rows.filter((r) => columns.some((c) => show(cellValue(r, c)).toLowerCase().includes(query.toLowerCase()))) : rows;
  const maxrows = num(props, "maxrows", 0);
  const pages = maxrows > 0 ? Math.max(1, Math.ceil(filtered.length / maxrows)) : 1;
  const current = Math.min(page, pages - 1);
  const visible = maxrows > 0 ? filtered.slice(current * maxrows, (current + 1) * maxrows) : filtered;
  const label = substitute(str(props, "label"), state.msg);
  const clickable = str(props, "selectionType") === "click" && interactive;
  return (
    <div className="db-table">
      {bool(props, "showSearch", false) ? <input type="search" aria-label={`Search ${label || "table"}`} placeholder="Search" value={query} onChange={(e) => setQuery(e.target.value)} /> : null}
      <div className="db-table-scroll">
        <table>
          {label ? <caption>{label}</caption> : null}
          <thead>
            <tr>
              {columns.map((c, i) => (
                <th key={`${i}:${c.key}`} scope="col" style={{ textAlign: alignOf(c), width: c.width ? (/^\d+$/.test(c.width) ? `${c.width}px` : c.width) : undefined }}>
                  {c.title}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {visible.length === 0 ? (
              <tr>
                <td colSpan={Math.max(1, columns.length)} className="db-muted">
                  No data
                </td>
              </tr>
            ) : (
              visible.map((r, i) => {
                const index = (maxrows > 0 ? current * maxrows : 0) + i;
                return (
                  <tr
                    key={i}
                    className={clickable ? "clickable" : undefined}
                    tabIndex={clickable ? 0 : undefined}
                    onClick={clickable ? () => send("click", { payload: r }) : undefined}
                    onKeyDown={clickable ? (e) => (e.key === "Enter" || e.key === " ") && send("click", { payload: r }) : undefined}
                  >
                    {columns.map((c, ci) => (
                      <td key={`${ci}:${c.key}`} data-column-key={c.key} style={{ textAlign: alignOf(c) }}>
                        <TableCell column={c} row={r} index={index} interactive={interactive} onButton={() => send("button_click", { payload: r, column: c.key })} />
                      </td>
                    ))}
                  </tr>
                );
              })
            )}
          </tbody>
        </table>
      </div>
      {pages > 1 ? (
        <nav className="db-table-pages" aria-label="Table pages">
          <button type="button" className="db-link" disabled={current === 0} onClick={() => setPage(current - 1)}>
            Previous
          </button>
          <span>
            {current + 1} / {pages}
          </span>
          <button type="button" className="db-link" disabled={current >= pages - 1} onClick={() => setPage(current + 1)}>
            Next
          </button>
        </nav>
      ) : null}
    </div>
  );
}
