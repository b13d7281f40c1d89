"use client";

import { useEffect, useRef, useState } from "react";
import type { FlowNode } from "@/shared/flow-graph";
import type { NodeConflict, Resolution } from "@/shared/graph-merge";
import { stableJson } from "@/shared/graph-compare";

/** In words: what one side did to the node, against the version both started from. */
function describe(base: FlowNode | null, side: FlowNode | null): string {
  if (!side) return "deleted it";
  if (!base) return `added it as a ${side.type} node`;
  const parts: string[] = [];
  if (side.type !== base.type) parts.push(`type → ${side.type}`);
  if (side.name !== base.name) parts.push(`name → “${side.name || "(none)"}”`);
  if (side.disabled !== base.disabled) parts.push(side.disabled ? "disabled it" : "enabled it");
  const keys = new Set([...Object.keys(base.config), ...Object.keys(side.config)]);
  const changed = [...keys].filter((k) => stableJson(base.config[k]) !== stableJson(side.config[k]));
  if (changed.length > 0) parts.push(`changed ${changed.join(", ")}`);
  return parts.length ? parts.join("; ") : "moved it";
}

const title = (c: NodeConflict) => {
  const n = c.mine ?? c.theirs ?? c.base!;
  return n.name ? `${n.name} (${n.type})` : `${n.type} ${n.id}`;
};

/**
 * After a 409 whose changes overlap: one choice per node that both sides changed. Everything else
 * was merged already; this only asks about real overlaps.
 */
export function MergeDialog({ conflicts, merged, onResolve, onCancel }: { conflicts: NodeConflict[]; merged: number; onResolve: (choices: Record<string, Resolution>) => void; onCancel: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [choices, setChoices] = useState<Record<string, Resolution>>({});
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  const done = conflicts.every((c) => choices[c.id]);
  return (
    <dialog
      ref={ref}
      className="modal merge-dialog"
      aria-labelledby="merge-title"
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id="merge-title">Someone else changed the same nodes</h2>
      <p>
        The flow was saved elsewhere while you edited it.{" "}
        {merged > 0 ? `${merged} of their changes that do not touch your nodes were merged with yours. ` : ""}
        For each node below, choose which version to keep.
      </p>
      <ul className="merge-conflicts">
        {conflicts.map((c) => (
          <li key={c.id}>
            <fieldset>
              <legend>{title(c)}</legend>
              <label className="checkbox">
                <input type="radio" name={`merge-${c.id}`} checked={choices[c.id] === "mine"} onChange={() => setChoices((p) => ({ ...p, [c.id]: "mine" }))} />
                Keep mine: you {describe(c.base, c.mine)}
              </label>
              <label className="checkbox">
                <input type="radio" name={`merge-${c.id}`} checked={choices[c.id] === "theirs"} onChange={() => setChoices((p) => ({ ...p, [c.id]: "theirs" }))} />
                Keep theirs: they {describe(c.base, c.theirs)}
              </label>
            </fieldset>
          </li>
        ))}
      </ul>
      <div className="actions">
        <button type="button" disabled={!done} onClick={() => onResolve(choices)}>
          Merge and save
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
