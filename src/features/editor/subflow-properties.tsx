"use client";

import { useState, type FormEvent } from "react";
import { Alert } from "@/components/alert";
import { Dialog } from "@/components/dialog";
import { errorInfo } from "@/trpc/react";
import type { SubflowEnvEntry } from "@/shared/subflows";
import { EnvPropertiesTable, namedEnv } from "./env-properties-table";
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
  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (readOnly) return onClose();
    setBusy(true);
    setError(null);
    try {
      await onSave({ ...p, env: namedEnv(p.env) });
    } catch (err) {
      const info = errorInfo(err);
      setError(Object.entries(info.fields).map(([k, v]) => `${k}: ${v}`)[0] ?? info.message);
      setBusy(false);
    }
  }
  return (
    <Dialog title="Subflow properties" open onClose={onClose} wide>
      <form method="post" onSubmit={onSubmit} noValidate>
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
          <EnvPropertiesTable env={p.env} onChange={(env) => setP((cur) => ({ ...cur, env }))} caption="Properties (environment variables; instances may override the value)" valueHeading="Default value" />
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
