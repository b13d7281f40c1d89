"use client";

import DOMPurify from "dompurify";
import { useMemo, useSyncExternalStore } from "react";
import { vuetifyColor } from "../colors";
import { show } from "../format";

/** A column as Dashboard 2.0's ui-table has it (`title`, or `label` as its earlier versions wrote it). */
export interface TableColumn {
  key: string;
  /** "key": the row's property at `key` (a dotted path); "str": `key` is the cell's text. */
  keyType: "key" | "str";
  title: string;
  type: string;
  align?: string;
  width?: string;
}

/** The cell's value: the row's property at the column's dotted key, as Dashboard 2.0's UITableCell reads it. */
export function cellValue(row: Record<string, unknown>, column: Pick<TableColumn, "key" | "keyType">): unknown {
  if (column.keyType === "str") return column.key;
  if (column.key in row) return row[column.key];
  let value: unknown = row;
  for (const part of column.key.split(".")) value = value !== null && typeof value === "object" ? ((value as Record<string, unknown>)[part] ?? null) : null;
  return value;
}

/** Dashboard 2.0's date columns (its date.helper): epoch seconds or milliseconds, or a date's text, in the viewer's locale. */
export function formatCellDate(value: unknown, format: string): string {
  if (value === null || value === undefined || value === "") return "";
  if (typeof value !== "number" && typeof value !== "string") return show(value);
  const n = typeof value === "string" && /^-?\d{10,}$/.test(value.trim()) ? Number(value.trim()) : value;
  const date = typeof n === "number" ? new Date(n < 1e11 ? n * 1000 : n) : new Date(n);
  if (Number.isNaN(date.getTime())) return typeof value === "string" ? value : "";
  return format === "date" ? date.toLocaleDateString() : format === "time" ? date.toLocaleTimeString() : date.toLocaleString();
}

/** A URL a cell may link to or show: the page's own, http(s) or mail; nothing that runs script. */
export function safeUrl(value: unknown, image = false): string | null {
  if (typeof value !== "string" || value.trim() === "") return null;
  const v = value.trim();
  if (/^(https?:|mailto:)/i.test(v) && !(image && /^mailto:/i.test(v))) return v;
  if (image && /^data:image\/(png|jpeg|gif|webp);/i.test(v)) return v;
  return /^[a-z][a-z0-9+.-]*:/i.test(v) || v.startsWith("//") ? null : v;
}

const numbers = (value: unknown): number[] => (Array.isArray(value) ? value.map(Number).filter(Number.isFinite) : []);

/** Dashboard 2.0's v-sparkline, as an SVG: a line through the values, or a bar each. */
function Sparkline({ values, bars }: { values: number[]; bars: boolean }) {
  if (values.length === 0) return null;
  const min = Math.min(0, ...values);
  const max = Math.max(...values);
  const span = max - min || 1;
  const w = 100;
  const h = 30;
  const y = (v: number) => h - ((v - min) / span) * (h - 4) - 2;
  const label = `${values.length} values, ${Math.min(...values)} to ${max}`;
  if (bars) {
    const step = w / values.length;
    return (
      <svg className="db-sparkline" viewBox={`0 0 ${w} ${h}`} preserveAspectRatio="none" role="img" aria-label={label}>
        {values.map((v, i) => (
          <rect key={i} x={i * step + step * 0.15} width={step * 0.7} y={y(v)} height={Math.max(0, h - 2 - y(v))} />
        ))}
      </svg>
    );
  }
  const points = values.map((v, i) => `${values.length === 1 ? w / 2 : (i / (values.length - 1)) * w},${y(v)}`).join(" ");
  return (
    <svg className="db-sparkline" viewBox={`0 0 ${w} ${h}`} preserveAspectRatio="none" role="img" aria-label={label}>
      <polyline points={points} fill="none" vectorEffect="non-scaling-stroke" />
    </svg>
  );
}

const noSubscription = () => () => {};

/** A cell of a `html` column: the value's HTML without script, event handlers or styles (as a message's HTML is everywhere here). */
function HtmlCell({ value }: { value: unknown }) {
  const inBrowser = useSyncExternalStore(noSubscription, () => true, () => false);
  const html = useMemo(
    () => (inBrowser && DOMPurify.isSupported ? DOMPurify.sanitize(show(value), { USE_PROFILES: { html: true }, FORBID_TAGS: ["style", "form", "input", "button", "iframe", "object", "embed"], FORBID_ATTR: ["style"] }) : ""),
    [inBrowser, value],
  );
  return <pre className="db-table-html" dangerouslySetInnerHTML={{ __html: html }} />;
}

/**
 * One cell of a ui-table as Dashboard 2.0's UITableCell draws its column types: text, row (the
 * row's number), html, link, color, tickcross, progress (0–100), sparkline-trend / sparkline-bar
 * (an array of numbers), button (sends the row), image, datetime / date / time.
 */
export function TableCell({ column, row, index, interactive, onButton }: { column: TableColumn; row: Record<string, unknown>; index: number; interactive: boolean; onButton: () => void }) {
  const value = cellValue(row, column);
  switch (column.type) {
    case "row":
      return <>{index + 1}</>;
    case "html":
      return <HtmlCell value={value} />;
    case "link": {
      const href = safeUrl(value);
      return href ? (
        <a href={href} target="_blank" rel="noopener noreferrer">
          {show(value)}
        </a>
      ) : (
        <>{show(value)}</>
      );
    }
    case "color":
      return <i className="db-table-color" style={{ backgroundColor: vuetifyColor(typeof value === "string" ? value : undefined, "transparent") }} role="img" aria-label={show(value)} />;
    case "tickcross":
      return value ? (
        <i className="db-table-bool mdi mdi-check-bold yes" role="img" aria-label="yes" />
      ) : (
        <i className="db-table-bool mdi mdi-close-thick no" role="img" aria-label="no" />
      );
    case "progress": {
      const n = Math.min(100, Math.max(0, Number(value) || 0));
      return (
        <div className="db-table-progress" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={n} aria-label={column.title || column.key}>
          <div style={{ width: `${n}%` }} />
        </div>
      );
    }
    case "sparkline-trend":
    case "sparkline-bar":
      return <Sparkline values={numbers(value)} bars={column.type === "sparkline-bar"} />;
    case "button":
      return (
        <button
          type="button"
          className="db-table-button"
          disabled={!interactive}
          onClick={(e) => {
            // The row's own click (selection "click") is not a button's.
            e.stopPropagation();
            onButton();
          }}
          onKeyDown={(e) => e.stopPropagation()}
        >
          {show(value)}
        </button>
      );
    case "image": {
      const src = safeUrl(value, true);
      return src ? <img className="db-table-image" src={src} alt="" /> : null;
    }
    case "datetime":
    case "date":
    case "time":
      return <>{formatCellDate(value, column.type)}</>;
    default:
      return <>{show(value)}</>;
  }
}
