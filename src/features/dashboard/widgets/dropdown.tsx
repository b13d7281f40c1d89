"use client";

import { useState } from "react";
import { substitute } from "../format";
import { bool, choices, sameValue, str, type WidgetProps } from "./widget";

/**
 * ui-dropdown: one value, or several (`multiple`, sent as an array, shown as chips when `chips`);
 * `msg.options` from the flow replaces the list (kept in the widget's state as `props.options`);
 * `clearable` adds a way back to nothing.
 */
export function DropdownWidget({ props, state, interactive, send, setLocal, inputId }: WidgetProps) {
  const options = choices(Array.isArray(state.msg?.options) ? state.msg?.options : props.options);
  const multiple = bool(props, "multiple", false);
  const payload = state.msg?.payload;
  const selected = multiple ? (Array.isArray(payload) ? payload : payload === undefined || payload === null ? [] : [payload]) : payload;
  const [query, setQuery] = useState("");
  const label = substitute(str(props, "label"), state.msg) || "Select";
  const indexOf = (v: unknown) => options.findIndex((o) => sameValue(o.value, v));
  const emit = (value: unknown) => {
    setLocal(value);
    send("change", { payload: value });
  };

  if (!multiple) {
    const at = indexOf(selected);
    return (
      <div className="db-field">
        <label htmlFor={inputId}>{label}</label>
        <select id={inputId} value={at < 0 ? "" : String(at)} disabled={!interactive} onChange={(e) => emit(e.target.value === "" ? null : options[Number(e.target.value)]?.value)}>
          <option value="" disabled={!bool(props, "clearable", false)}>
            {bool(props, "clearable", false) ? "(none)" : ""}
          </option>
          {options.map((o, i) => (
            <option key={i} value={String(i)}>
              {o.label}
            </option>
          ))}
        </select>
      </div>
    );
  }
  const chosen = (selected as unknown[]).filter((v) => indexOf(v) >= 0);
  const isChosen = (v: unknown) => chosen.some((c) => sameValue(c, v));
  const filtered = options.filter((o) => !query || o.label.toLowerCase().includes(query.toLowerCase()));
  return (
    <div className="db-field db-multi">
      <span className="db-label" id={`${inputId}-label`}>
        {label}
      </span>
      {bool(props, "chips", false) && chosen.length > 0 ? (
        <ul className="db-chips" aria-label={`${label}: selected`}>
          {chosen.map((v, i) => (
            <li key={i} className="db-chip">
              {options[indexOf(v)]?.label}
              <button type="button" disabled={!interactive} aria-label={`Remove ${options[indexOf(v)]?.label}`} onClick={() => emit(chosen.filter((c) => !sameValue(c, v)))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {bool(props, "typeIsComboBox", false) ? (
        <input type="search" aria-label={`Filter ${label}`} value={query} onChange={(e) => setQuery(e.target.value)} />
      ) : null}
      <div role="group" aria-labelledby={`${inputId}-label`} className="db-multi-list" id={inputId}>
        {filtered.map((o, i) => (
          <label key={i} className="db-check">
            <input type="checkbox" disabled={!interactive} checked={isChosen(o.value)} onChange={(e) => emit(e.target.checked ? [...chosen, o.value] : chosen.filter((c) => !sameValue(c, o.value)))} />
            {o.label}
          </label>
        ))}
      </div>
      {bool(props, "clearable", false) && chosen.length > 0 ? (
        <button type="button" className="db-link" disabled={!interactive} onClick={() => emit([])}>
          Clear
        </button>
      ) : null}
    </div>
  );
}
