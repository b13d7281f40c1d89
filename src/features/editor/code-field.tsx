"use client";

import CodeMirror from "@uiw/react-codemirror";
import { javascript } from "@codemirror/lang-javascript";
import { sql } from "@codemirror/lang-sql";
import { EditorView } from "@codemirror/view";
import { useMemo } from "react";

/**
 * A code editor (CodeMirror 6): JavaScript for the function node's code, SQL for the sqlite node's
 * statement. The editable element carries the field's label, so it is found and announced like any
 * other field.
 */
export function CodeField({
  id,
  label,
  value,
  onChange,
  error,
  language = "javascript",
}: {
  id: string;
  label: string;
  value: string;
  onChange: (v: string) => void;
  error?: string;
  language?: "javascript" | "sql";
}) {
  const extensions = useMemo(
    () => [
      language === "sql" ? sql() : javascript(),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ "aria-labelledby": `${id}-label`, "aria-multiline": "true", ...(error ? { "aria-describedby": `${id}-error`, "aria-invalid": "true" } : {}) }),
    ],
    [id, error, language],
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
