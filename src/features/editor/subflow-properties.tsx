"use client";

import { useState, type FormEvent } from "react";
import { Alert } from "@/components/alert";
import { Dialog } from "@/components/dialog";
import { errorInfo } from "@/trpc/react";
import { SUBFLOW_ENV_TYPES, type SubflowEnvEntry } from "@/shared/subflows";
import { NAME_MAX_CHARS } from "@/shared/policy";

export interface SubflowProperties {
  name: string;
  category: string;
  color: string;
  env: SubflowEnvEntry[];
}

/**
 * `Subflow properties`: the definition's name, palette category, colour and env properties (each
 * instance may override a property's value; the value here is the default). `onSave` writes them
 * (PUT /subflows/{id}); a refused value is shown in the dialog.
 */
export function SubflowPropertiesDialog({ initial, readOnly, onSave, onClose }: { initial: SubflowProperties; readOnly: boolean; onSave: (p: SubflowProperties) => Promise<void>; onClose: () => void }) {
  const [p, setP] = useState<SubflowProperties>(initial);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const setEnv = (i: number, patch: Partial<SubflowEnvEntry>) => setP((cur) => ({ ...cur, env: cur.env.map((e, j) => (j === i ? { ...e, ...patch } : e)) }));
  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (readOnly) return onClose();
    setBusy(true);
    setError(null);
    try {
      await onSave({ ...p, env: p.env.filter((x) => x.name.trim() !== "").map((x) => ({ ...x, name: x.name.trim() })) });
    } catch (err) {
      const info = errorInfo(err);
      setError(Object.entries(info.fields).map(([k, v]) => `${k}: ${v}`)[0] ?? info.message);
      setBusy(false);
    }
  }
  return (
    <Dialog title="Subflow properties" open onClose={onClose} wide>
      <form onSubmit={onSubmit} noValidate>
        {error ? <Alert kind="error">{error}</Alert> : null}
        <fieldset disabled={readOnly} className="plain">
          <div className="field">
            <label htmlFor="sf-name">Name</label>
            <input id="sf-name" type="text" required maxLength={NAME_MAX_CHARS} value={p.name} onChange={(e) => setP({ ...p, name: e.target.value })} autoFocus />
          </div>
          <div className="field">
            <label htmlFor="sf-category">Palette category</label>
            <input id="sf-category" type="text" maxLength={64} value={p.category} onChange={(e) => setP({ ...p, category: e.target.value })} />
          </div>
          <div className="field">
            <label htmlFor="sf-color">Colour</label>
            <input id="sf-color" type="color" value={p.color} onChange={(e) => setP({ ...p, color: e.target.value.toUpperCase() })} />
          </div>
          <table className="subflow-env-table">
            <caption>Properties (environment variables; instances may override the value)</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Default value</th>
                <th scope="col">
                  <span className="visually-hidden">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {p.env.map((entry, i) => (
                <tr key={i}>
                  <td>
                    <input aria-label={`Property ${i + 1} name`} type="text" maxLength={100} value={entry.name} onChange={(e) => setEnv(i, { name: e.target.value })} />
                  </td>
                  <td>
                    <select aria-label={`Property ${i + 1} type`} value={entry.type} onChange={(e) => setEnv(i, { type: e.target.value })}>
                      {/* A configuration node property imported from Node-RED has its configuration node's type: offered as it is. */}
                      {[...SUBFLOW_ENV_TYPES.filter((t) => t !== "conf-type"), ...(SUBFLOW_ENV_TYPES.includes(entry.type as (typeof SUBFLOW_ENV_TYPES)[number]) ? [] : [entry.type])].map((t) => (
                        <option key={t} value={t}>
                          {t}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td>
                    <input aria-label={`Property ${i + 1} value`} type="text" value={entry.value} onChange={(e) => setEnv(i, { value: e.target.value })} />
                  </td>
                  <td>
                    <button type="button" className="secondary small" onClick={() => setP((cur) => ({ ...cur, env: cur.env.filter((_, j) => j !== i) }))}>
                      Remove<span className="visually-hidden"> property {i + 1}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <button type="button" className="secondary small" onClick={() => setP((cur) => ({ ...cur, env: [...cur.env, { name: "", type: "str", value: "" }] }))}>
            Add property
          </button>
        </fieldset>
        <div className="actions">
          <button type="button" className="secondary" onClick={onClose}>
            Cancel
          </button>
          {!readOnly ? (
            <button type="submit" disabled={busy}>
              Done
            </button>
          ) : null}
        </div>
      </form>
    </Dialog>
  );
}
