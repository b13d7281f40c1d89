"use client";

import { useState, type FormEvent } from "react";
import { Dialog } from "@/components/dialog";
import { subflowEnvEntrySchema, type FlowGroup, type SubflowEnvEntry } from "@/shared/subflows";
import { EnvPropertiesTable, namedEnv } from "../env-properties-table";
import { NAME_MAX_CHARS } from "@/shared/policy";

const hex = (v: unknown, fallback: string) => (typeof v === "string" && /^#[0-9a-fA-F]{6}$/.test(v) ? v : fallback);

/** A group's env entries as the table edits them (Node-RED's `{name, type, value}`; others left out). */
function envOf(group: FlowGroup): SubflowEnvEntry[] {
  return group.env.flatMap((raw) => {
    const parsed = subflowEnvEntrySchema.safeParse(raw);
    return parsed.success ? [parsed.data] : [];
  });
}

/**
 * `Edit group`: the group's name, border and fill colours, whether the name shows, and its env
 * properties (Node-RED's group environment variables: its nodes and the groups inside it read them
 * before the flow's, runtime/group-env.ts).
 */
export function GroupDialog({ group, readOnly, onApply, onClose }: { group: FlowGroup; readOnly: boolean; onApply: (edit: { name: string; style: FlowGroup["style"]; env: FlowGroup["env"] }) => void; onClose: () => void }) {
  const style = group.style as Record<string, string | number | boolean>;
  const [name, setName] = useState(group.name);
  const [stroke, setStroke] = useState(hex(style.stroke, "#999999"));
  const [fill, setFill] = useState(hex(style.fill, "#e3f3d3"));
  const [noFill, setNoFill] = useState(style.fill === "none");
  const [showLabel, setShowLabel] = useState(style.label !== false);
  const [env, setEnv] = useState<SubflowEnvEntry[]>(() => envOf(group));
  function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (readOnly) return onClose();
    onApply({ name: name.trim(), style: { ...style, stroke, fill: noFill ? "none" : fill, label: showLabel }, env: namedEnv(env) });
  }
  return (
    <Dialog title="Edit group" open onClose={onClose} wide>
      <form onSubmit={onSubmit} noValidate>
        <fieldset disabled={readOnly} className="plain">
          <div className="field">
            <label htmlFor="group-name">Name</label>
            <input id="group-name" type="text" maxLength={NAME_MAX_CHARS} value={name} onChange={(e) => setName(e.target.value)} autoFocus />
          </div>
          <div className="field">
            <label htmlFor="group-stroke">Border colour</label>
            <input id="group-stroke" type="color" value={stroke} onChange={(e) => setStroke(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="group-fill">Fill colour</label>
            <input id="group-fill" type="color" value={fill} disabled={noFill} onChange={(e) => setFill(e.target.value)} />
          </div>
          <div className="checkbox">
            <input id="group-nofill" type="checkbox" checked={noFill} onChange={(e) => setNoFill(e.target.checked)} />
            <label htmlFor="group-nofill">No fill</label>
          </div>
          <div className="checkbox">
            <input id="group-label" type="checkbox" checked={showLabel} onChange={(e) => setShowLabel(e.target.checked)} />
            <label htmlFor="group-label">Show the name</label>
          </div>
          <EnvPropertiesTable env={env} onChange={setEnv} caption="Environment variables (its nodes read them before the flow's)" valueHeading="Value" />
        </fieldset>
        <div className="actions">
          <button type="button" className="secondary" onClick={onClose}>
            Cancel
          </button>
          {!readOnly ? <button type="submit">Done</button> : null}
        </div>
      </form>
    </Dialog>
  );
}
