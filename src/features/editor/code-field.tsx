"use client";

import CodeMirror from "@uiw/react-codemirror";
import { javascript } from "@codemirror/lang-javascript";
import { EditorView } from "@codemirror/view";
import { useMemo } from "react";

/**
 * A JavaScript editor (CodeMirror 6) for the function node's code. The editable element carries
 * the field's label, so it is found and announced like any other field.
 */
export function CodeField({ id, label, value, onChange, error }: { id: string; label: string; value: string; onChange: (v: string) => void; error?: string }) {
  const extensions = useMemo(
    () => [
      javascript(),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ "aria-labelledby": `${id}-label`, "aria-multiline": "true", ...(error ? { "aria-describedby": `${id}-error`, "aria-invalid": "true" } : {}) }),
    ],
    [id, error],
  );
  return (
    <div className="field code-field">
      <span className="label" id={`${id}-label`}>
        {label}
      </span>
      <CodeMirror
        id={id}
        value={value}
        height="auto"
        minHeight="120px"
        maxHeight="360px"
        extensions={extensions}
        onChange={onChange}
        basicSetup={{ foldGutter: false, highlightActiveLine: false }}
      />
      {error ? (
        <p id={`${id}-error`} className="error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
