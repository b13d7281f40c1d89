"use client";

import { useState } from "react";
import type { NodeConflict, Resolutions } from "@/shared/graph-merge";
import { allChosen, describeChange, withChoice } from "./save-conflict";

const title = (c: NodeConflict) => {
  const n = c.mine ?? c.theirs ?? c.base!;
  return n.name ? `${n.name} (${n.type})` : `${n.type} ${n.id}`;
};

/**
 * The merge part of the editor's conflict dialog (beside Reload and Overwrite): when their changes
 * touch other nodes than mine, one click keeps both; only nodes changed on both sides ask which
 * version to keep.
 */
export function MergeChoices({ conflicts, theirChanges, onMerge }: { conflicts: NodeConflict[]; theirChanges: number; onMerge: (choices: Resolutions) => void }) {
  // A Map: node ids are user data, and `constructor` or `__proto__` must not find a choice nobody made.
  const [choices, setChoices] = useState<Resolutions>(() => new Map());
  const done = allChosen(conflicts, choices);
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
                    <input type="radio" name={`merge-${c.id}`} checked={choices.get(c.id) === "mine"} onChange={() => setChoices((p) => withChoice(p, c.id, "mine"))} />
                    Keep mine: you {describeChange(c.base, c.mine)}
                  </label>
                  <label className="checkbox">
                    <input type="radio" name={`merge-${c.id}`} checked={choices.get(c.id) === "theirs"} onChange={() => setChoices((p) => withChoice(p, c.id, "theirs"))} />
                    Keep theirs: they {describeChange(c.base, c.theirs)}
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
