"use client";

import { useState, type FormEvent } from "react";
import { substitute } from "../format";
import { bool, str, type WidgetProps } from "./widget";

interface FormField {
  key: string;
  label: string;
  type: string;
  required: boolean;
  rows: number;
}

function fields(raw: unknown): FormField[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((f): FormField[] => {
    if (!f || typeof f !== "object") return [];
    const r = f as Record<string, unknown>;
    const key = typeof r.key === "string" && r.key ? r.key : typeof r.label === "string" ? r.label : "";
    if (!key) return [];
    return [{ key, label: typeof r.label === "string" && r.label ? r.label : key, type: typeof r.type === "string" ? r.type : "text", required: r.required === true, rows: typeof r.rows === "number" ? r.rows : 3 }];
  });
}

type Values = Record<string, string | boolean>;

function initial(list: FormField[], from: unknown): Values {
  const src = from && typeof from === "object" ? (from as Record<string, unknown>) : {};
  return Object.fromEntries(list.map((f) => {
    const v = src[f.key];
    if (f.type === "checkbox" || f.type === "switch") return [f.key, v === true];
    return [f.key, v === undefined || v === null ? "" : String(v)];
  }));
}

/**
 * ui-form: the node's `options` as fields (text, multiline, password, email, number, checkbox,
 * switch, date, time); submit sends `{ payload: { key: value } }` once required fields are
 * filled, `resetOnSubmit` clears it; cancel (`cancel` label) clears. A message's `payload`
 * object fills the form (Dashboard 2.0's `formValue` updates through `msg.payload`).
 */
export function FormWidget({ widget, props, state, interactive, send, inputId }: WidgetProps) {
  const list = fields(props.options);
  const [values, setValues] = useState<Values>(() => initial(list, state.msg?.payload ?? props.formValue));
  const [seen, setSeen] = useState(state.msg);
  if (state.msg !== seen) {
    setSeen(state.msg);
    if (state.msg?.payload && typeof state.msg.payload === "object") setValues(initial(list, state.msg.payload));
  }
  const clear = () => setValues(initial(list, props.formValue));
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const payload: Record<string, unknown> = {};
    for (const f of list) {
      const v = values[f.key];
      payload[f.key] = f.type === "number" && typeof v === "string" && v !== "" ? Number(v) : v;
    }
    send("submit", { payload });
    if (bool(props, "resetOnSubmit", true)) clear();
  };
  const split = bool(props, "splitLayout", false);
  const label = substitute(str(props, "label"), state.msg);
  return (
    <form method="post" className={`db-form${split ? " split" : ""}`} onSubmit={onSubmit} aria-label={label || "Form"} id={inputId}>
      {label ? <h3 className="db-form-title">{label}</h3> : null}
      <div className="db-form-fields">
        {list.map((f) => {
          const id = `${widget.id}-${f.key}`;
          const v = values[f.key];
          if (f.type === "checkbox" || f.type === "switch") {
            return (
              <label key={f.key} className="db-check">
                <input id={id} type="checkbox" role={f.type === "switch" ? "switch" : undefined} checked={v === true} disabled={!interactive} onChange={(e) => setValues({ ...values, [f.key]: e.target.checked })} />
                {f.label}
              </label>
            );
          }
          return (
            <div key={f.key} className="db-field">
              <label htmlFor={id}>
                {f.label}
                {f.required ? <span aria-hidden="true"> *</span> : null}
              </label>
              {f.type === "multiline" ? (
                <textarea id={id} rows={f.rows} required={f.required} disabled={!interactive} value={String(v ?? "")} onChange={(e) => setValues({ ...values, [f.key]: e.target.value })} />
              ) : (
                <input
                  id={id}
                  type={["password", "email", "number", "date", "time"].includes(f.type) ? f.type : "text"}
                  required={f.required}
                  disabled={!interactive}
                  value={String(v ?? "")}
                  onChange={(e) => setValues({ ...values, [f.key]: e.target.value })}
                />
              )}
            </div>
          );
        })}
      </div>
      <div className="db-form-actions">
        <button type="submit" className="db-button" disabled={!interactive}>
          {str(props, "submit", "Submit")}
        </button>
        {str(props, "cancel", "Clear") ? (
          <button type="button" className="db-button secondary" disabled={!interactive} onClick={clear}>
            {str(props, "cancel", "Clear")}
          </button>
        ) : null}
      </div>
    </form>
  );
}
