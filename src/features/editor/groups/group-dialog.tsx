"use client";

import { useState, type FormEvent } from "react";
import { Dialog } from "@/components/dialog";
import { subflowEnvEntrySchema, type FlowGroup, type SubflowEnvEntry } from "@/shared/subflows";
import { EnvPropertiesTable, namedEnv } from "../env-properties-table";
import { NAME_MAX_CHARS } from "@/shared/policy";
import { NODE_DESCRIPTION_MAX_CHARS } from "@/shared/flow-graph";

const hex = (v: unknown, fallback: string) => (typeof v === "string" && /^#[0-9a-fA-F]{6}$/.test(v) ? v : fallback);

/** A group's env entry as the table edits it, with the entry it came from (its other fields kept). */
type GroupEnvRow = SubflowEnvEntry & { source?: Record<string, unknown> };

/** A group's env entries the table can edit (Node-RED's `{name, type, value}`), and the others, kept as they are. */
function envOf(group: FlowGroup): { rows: GroupEnvRow[]; kept: Array<Record<string, unknown>> } {
  const rows: GroupEnvRow[] = [];
  const kept: Array<Record<string, unknown>> = [];
  for (const raw of group.env) {
    const parsed = subflowEnvEntrySchema.safeParse(raw);
    if (parsed.success) rows.push({ ...parsed.data, source: raw });
    else kept.push(raw);
  }
  return { rows, kept };
}

/** What the runtime evaluates for a group (group-env.ts): not cred, which it leaves out, nor a configuration node's. */
const GROUP_ENV_TYPES = ["str", "num", "bool", "json", "bin", "env", "jsonata"] as const;

/**
 * `Edit group`: the group's name, border and fill colours, whether the name shows, its description
 * (Node-RED's group `info`, Markdown) and its env properties (Node-RED's group environment variables: its nodes and the groups inside it read them
 * before the flow's, runtime/group-env.ts).
 */
export function GroupDialog({
  group,
  readOnly,
  withEnv = true,
  onApply,
  onClose,
}: {
  group: FlowGroup;
  readOnly: boolean;
  /** Whether its env properties are offered (a subflow definition's groups are not resolved: group-env.ts). */
  withEnv?: boolean;
  onApply: (edit: { name: string; style: FlowGroup["style"]; env: FlowGroup["env"]; description: string | undefined }) => void;
  onClose: () => void;
}) {
  const style = group.style as Record<string, string | number | boolean>;
  const [name, setName] = useState(group.name);
  const [stroke, setStroke] = useState(hex(style.stroke, "#999999"));
  const [fill, setFill] = useState(hex(style.fill, "#e3f3d3"));
  const [noFill, setNoFill] = useState(style.fill === "none");
  const [showLabel, setShowLabel] = useState(style.label !== false);
  const [description, setDescription] = useState(group.description ?? "");
  const [{ rows: initialRows, kept }] = useState(() => envOf(group));
  const [env, setEnv] = useState<GroupEnvRow[]>(initialRows);
  function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (readOnly) return onClose();
    // Edited rows keep their entry's other fields; entries the table cannot show stay as they were.
    const edited = namedEnv(env).map(({ source, ...entry }) => ({ ...(source ?? {}), ...entry }));
    onApply({ name: name.trim(), style: { ...style, stroke, fill: noFill ? "none" : fill, label: showLabel }, env: withEnv ? [...edited, ...kept] : group.env, description: description.trim() ? description : undefined });
  }
  return (
    <Dialog title="Edit group" open onClose={onClose} wide>
      <form method="post" onSubmit={onSubmit} noValidate>
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
          <div className="field">
            <label htmlFor="group-description">Description</label>
            <textarea id="group-description" rows={3} maxLength={NODE_DESCRIPTION_MAX_CHARS} value={description} onChange={(e) => setDescription(e.target.value)} aria-describedby="group-description-hint" />
            <p className="hint" id="group-description-hint">
              Notes on this group for whoever reads the flow (Markdown). Nothing that runs reads them.
            </p>
          </div>
          {withEnv ? <EnvPropertiesTable env={env} onChange={setEnv} caption="Environment variables (its nodes read them before the flow's)" valueHeading="Value" types={GROUP_ENV_TYPES} /> : null}
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
