"use client";

import { useEffect, useRef, useState } from "react";
import type { ConfigNodeView } from "@/shared/config-nodes";
import { configNodeLabel } from "./config-node-model";
import { ConfigNodeDialog } from "./config-node-dialog";
import type { ConfigRefFieldProps } from "./config-ref-slot";
import { useConfigNodeList } from "./use-config-nodes";

/**
 * A property that names a configuration node (SPEC §19; Node-RED's config select with its pencil):
 * the organization's nodes of the type by name ("None" when optional), an Edit button (the pencil)
 * opening the chosen one's form, and "Add new <type>…" opening an empty one that is chosen once
 * added. Buttons, not a select option, open the dialogs, so moving through the options with the
 * arrow keys never opens one. Inside a read-only form the fieldset disables all three.
 */
export function ConfigNodePicker({ id, label, description, type, value, required, error, onChange }: ConfigRefFieldProps) {
  const { nodes, error: loadError } = useConfigNodeList(type);
  const [dialog, setDialog] = useState<{ node: ConfigNodeView | null } | null>(null);
  const selectRef = useRef<HTMLSelectElement>(null);
  const current = nodes?.find((n) => n.id === value) ?? null;
  const missing = value !== "" && nodes !== null && current === null;
  const describedBy = [description ? `${id}-hint` : null, error ? `${id}-error` : null, missing ? `${id}-missing` : null].filter(Boolean).join(" ") || undefined;

  // Focus goes back to the select once the dialog is gone from the DOM: while the modal is still
  // there the rest of the page is inert and cannot take focus. A save closes the dialog from a
  // mutation's callback, whose render may come after the next animation frame, so the focus waits
  // for the commit (this effect), not for a frame.
  const refocus = useRef(false);
  useEffect(() => {
    if (dialog !== null || !refocus.current) return;
    refocus.current = false;
    selectRef.current?.focus();
  }, [dialog]);

  function close() {
    refocus.current = true;
    setDialog(null);
  }

  return (
    <div className="field config-picker" data-config-type={type}>
      <label htmlFor={id}>{label}</label>
      <div className="config-picker-row">
        <select ref={selectRef} id={id} value={value} onChange={(e) => onChange(e.target.value)} aria-invalid={error || missing ? true : undefined} aria-describedby={describedBy}>
          {required ? (
            value === "" ? (
              <option value="" disabled>
                Choose a {type}…
              </option>
            ) : null
          ) : (
            <option value="">None</option>
          )}
          {(nodes ?? []).map((n) => (
            <option key={n.id} value={n.id}>
              {configNodeLabel(n)}
            </option>
          ))}
          {value !== "" && current === null ? <option value={value}>{nodes === null ? value : `${value} (not found)`}</option> : null}
        </select>
        <button type="button" className="secondary small config-picker-edit" aria-label={current ? `Edit ${type} ${configNodeLabel(current)}` : `Edit ${type}`} title="Edit" disabled={!current} onClick={() => current && setDialog({ node: current })}>
          <span aria-hidden="true">✎</span>
        </button>
        <button type="button" className="secondary small" onClick={() => setDialog({ node: null })}>
          Add new {type}…
        </button>
      </div>
      {description ? (
        <p id={`${id}-hint`} className="hint">
          {description}
        </p>
      ) : null}
      {missing ? (
        <p id={`${id}-missing`} className="error">
          {label}: no {type} with id {value} in this organization. Choose another or add one.
        </p>
      ) : null}
      {loadError ? <p className="error">The {type} configuration nodes could not be loaded.</p> : null}
      {error ? (
        <p id={`${id}-error`} className="error">
          {error}
        </p>
      ) : null}
      {dialog ? (
        <ConfigNodeDialog
          key={dialog.node?.id ?? "new"}
          type={type}
          node={dialog.node}
          readOnly={false}
          onClose={close}
          onSaved={(saved) => {
            onChange(saved.id);
            close();
          }}
          onDeleted={(deleted) => {
            if (deleted === value) onChange("");
            close();
          }}
        />
      ) : null}
    </div>
  );
}
