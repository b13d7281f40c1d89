"use client";

import { useState } from "react";
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
 * The merge part of the editor's conflict dialog (beside Reload and Overwrite): when their changes
 * touch other nodes than mine, one click keeps both; only nodes changed on both sides ask which
 * version to keep.
 */
export function MergeChoices({ conflicts, theirChanges, onMerge }: { conflicts: NodeConflict[]; theirChanges: number; onMerge: (choices: Record<string, Resolution>) => void }) {
  const [choices, setChoices] = useState<Record<string, Resolution>>({});
  const done = conflicts.every((c) => choices[c.id]);
  return (
    <div className="merge-choices">
      {conflicts.length === 0 ? (
        <p>
          Their changes ({theirChanges} {theirChanges === 1 ? "node" : "nodes"}) do not touch the nodes you changed: <strong>Merge</strong> keeps both and
          saves.
        </p>
      ) : (
        <>
          <p>
            {theirChanges > 0 ? `${theirChanges} of their node changes merge with yours as they are. ` : ""}
            These nodes changed on both sides: choose which version to keep, then <strong>Merge</strong>.
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
        </>
      )}
      <button type="button" disabled={!done} onClick={() => onMerge(choices)}>
        Merge
      </button>
    </div>
  );
}
