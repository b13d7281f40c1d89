"use client";

import { useEffect, useRef } from "react";
import { bindingFor, type EditorCommandId, type EditorCommands } from "./key-bindings";

/** One window listener runs the shortcut table (key-bindings.ts) against the editor's commands. */
export function useEditorKeyboard({ commands, readOnly, paused }: { commands: EditorCommands; readOnly: boolean; paused: boolean }) {
  // The latest commands without re-subscribing on every render.
  const latest = useRef(commands);
  useEffect(() => {
    latest.current = commands;
  });
  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      const active = document.activeElement;
      const binding = bindingFor(e, active, { readOnly, paused });
      if (!binding) return;
      if (!binding.keepDefault) e.preventDefault();
      latest.current[binding.command as EditorCommandId](active);
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [readOnly, paused]);
}
