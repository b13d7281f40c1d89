"use client";

import { useCallback, useState } from "react";
import { Alert } from "@/components/alert";

export interface Notice {
  kind: "error" | "ok" | "info";
  text: string;
}
/** Show one notice over the canvas (the last one wins); null clears it. */
export type Notify = (notice: Notice | null) => void;

/** The notice shown over the canvas (saved, pasted, refused…). */
export function useNotice() {
  const [notice, setNotice] = useState<Notice | null>(null);
  const notify = useCallback<Notify>((n) => setNotice(n), []);
  return { notice, notify };
}

export function EditorNotice({ notice, onDismiss }: { notice: Notice | null; onDismiss: () => void }) {
  if (!notice) return null;
  return (
    <div className="editor-notice">
      <Alert kind={notice.kind}>
        {notice.text}{" "}
        <button type="button" className="link" onClick={onDismiss}>
          Dismiss
        </button>
      </Alert>
    </div>
  );
}
