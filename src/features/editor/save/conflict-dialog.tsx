"use client";

import { Dialog } from "@/components/dialog";
import { MergeChoices } from "@/features/live/merge-dialog";
import type { FlowSave } from "./use-flow-save";

/** The dialog a 409 opens: Merge (when a plan could be made), Reload, Overwrite. */
export function ConflictDialog({ conflict }: { conflict: FlowSave["conflict"] }) {
  return (
    <Dialog title="This flow changed since you opened it" open={conflict.open} onClose={conflict.close}>
      <p>Someone saved a newer revision. Reload it (your unsaved changes are discarded), or overwrite it with what you see here.</p>
      {conflict.plan ? (
        <MergeChoices conflicts={conflict.plan.merge.conflicts} theirChanges={conflict.plan.theirChanges} onMerge={(choices) => void conflict.resolveMerge(choices)} />
      ) : null}
      <div className="actions">
        <button type="button" className="secondary" onClick={conflict.close}>
          Cancel
        </button>
        <button type="button" className="secondary" onClick={() => void conflict.reload()}>
          Reload
        </button>
        <button type="button" className="danger" onClick={() => void conflict.overwrite()}>
          Overwrite
        </button>
      </div>
    </Dialog>
  );
}
