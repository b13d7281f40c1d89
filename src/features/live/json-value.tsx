"use client";

import { useState } from "react";

/** A Buffer as it travels in JSON ({type: "Buffer", data: [bytes]}): shown as its bytes, as Node-RED's sidebar does. */
export function bufferBytes(value: unknown): number[] | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const v = value as { type?: unknown; data?: unknown };
  if (v.type !== "Buffer" || !Array.isArray(v.data) || Object.keys(value).length !== 2) return null;
  return v.data.every((b) => typeof b === "number") ? (v.data as number[]) : null;
}

function preview(value: unknown): string {
  if (Array.isArray(value)) return `array[${value.length}]`;
  const bytes = bufferBytes(value);
  if (bytes) return `buffer[${bytes.length}] ${bytes.slice(0, 16).map((b) => b.toString(16).padStart(2, "0")).join(" ")}${bytes.length > 16 ? " …" : ""}`;
  const keys = Object.keys(value as object);
  const head = keys.slice(0, 3).join(", ");
  return `{ ${head}${keys.length > 3 ? ", …" : ""} }`;
}

function Primitive({ value }: { value: unknown }) {
  if (typeof value === "string") return <span className="json-string">&quot;{value}&quot;</span>;
  if (value === null || value === undefined) return <span className="json-null">{String(value)}</span>;
  return <span className={`json-${typeof value}`}>{String(value)}</span>;
}

/**
 * A message value as expandable JSON. Children are rendered only when opened, so a list of 1,000
 * large payloads costs 1,000 one-line previews. `expanded` remembers what was opened across
 * re-mounts (the list is virtualized).
 */
export function JsonValue({ value, path, expanded, label }: { value: unknown; path: string; expanded: Set<string>; label?: string }) {
  const [open, setOpen] = useState(() => expanded.has(path));
  const isContainer = value !== null && typeof value === "object";
  if (!isContainer) {
    return (
      <div className="json-line">
        {label !== undefined && <span className="json-key">{label}: </span>}
        <Primitive value={value} />
      </div>
    );
  }
  const bytes = bufferBytes(value);
  const entries = bytes ? bytes.map((v, i) => [String(i), v] as const) : Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value as Record<string, unknown>);
  return (
    <div className="json-node">
      <button
        type="button"
        className="json-toggle"
        aria-expanded={open}
        onClick={(e) => {
          e.stopPropagation();
          if (open) expanded.delete(path);
          else expanded.add(path);
          setOpen(!open);
        }}
      >
        <span className="caret" aria-hidden="true">
          {open ? "▾" : "▸"}
        </span>
        {label !== undefined && <span className="json-key">{label}: </span>}
        <span className="json-preview">{preview(value)}</span>
      </button>
      {open && (
        <div className="json-children">
          {entries.length === 0 ? <div className="json-line muted">(empty)</div> : entries.map(([k, v]) => <JsonValue key={k} value={v} path={`${path}.${k}`} expanded={expanded} label={k} />)}
        </div>
      )}
    </div>
  );
}
