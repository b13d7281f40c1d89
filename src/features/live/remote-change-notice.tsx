"use client";

import type { PresenceUser } from "@/shared/realtime";
import type { EditorBridge } from "./editor-bridge";
import type { RemoteChange } from "./use-flow-live";

/**
 * Says at once when the flow was saved or deployed elsewhere, instead of waiting for a 409: a save
 * newer than the editor's revision offers Reload (the editor's own unsaved work is merged on its
 * next save instead, so it is never lost silently).
 */
export function RemoteChangeNotice({ change, editor, people, me, onDismiss }: { change: RemoteChange | null; editor: EditorBridge; people: PresenceUser[]; me: string | null; onDismiss: () => void }) {
  if (!change) return null;
  if (change.kind === "saved" && change.revision <= editor.revision) return null;
  // A change learnt of by reading again after a reconnection has no author: "elsewhere".
  const who =
    change.by === null ? null : change.by === me ? "you, from another tab or the API" : (change.byName ?? people.find((p) => p.user_id === change.by)?.name ?? "someone else");
  const where = who === null ? "elsewhere" : `by ${who}`;
  return (
    <div className="remote-change" role="alert">
      {change.kind === "saved" ? (
        <>
          <span>
            This flow was saved {where} (revision {change.revision}).{" "}
            {editor.dirty ? "Your unsaved changes will be merged with theirs when you save." : "Reload to see the changes."}
          </span>
          <button type="button" className="small" onClick={() => void Promise.resolve(editor.reload()).then(onDismiss)}>
            Reload
          </button>
        </>
      ) : (
        <span>
          Revision {change.revision} was deployed {where}.
        </span>
      )}
      <button type="button" className="small secondary" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}
