"use client";

import type { CredentialDeclaration, CredentialDraft } from "./config-node-model";

/**
 * One write-only credential (SPEC §19): the browser never has its value, only whether one is set.
 * Set: "set", with Replace (an empty field for the new value) and Clear (removed on save).
 * Not set: the field for a value. A PEM is a textarea with a file loader (read in the browser);
 * a password a password field. What is typed is sent once, on save, and dropped with the dialog.
 */
export function CredentialField({
  id,
  name,
  declaration,
  set,
  draft,
  onChange,
  error,
  readOnly,
  fileName,
  onFileName,
}: {
  id: string;
  name: string;
  declaration: CredentialDeclaration;
  /** Whether the stored node holds a value (false for a node being added). */
  set: boolean;
  draft: CredentialDraft;
  onChange: (draft: CredentialDraft) => void;
  error?: string;
  /** A viewer: the state only, no way to change it. */
  readOnly: boolean;
  /** The file a PEM was loaded from, when the type keeps its name. */
  fileName?: string;
  /** A PEM was loaded from a file (its name is kept beside it, as Node-RED's `certname`), or cleared (""). */
  onFileName?: (fileName: string) => void;
}) {
  const { title } = declaration;
  const statusId = `${id}-status`;
  const describedBy = [statusId, declaration.description ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ");
  const status = draft.mode === "clear" ? "set, cleared on save" : draft.mode === "replace" && set ? "set, replaced on save" : set ? "set" : "not set";
  const editing = !readOnly && (draft.mode === "replace" || (!set && draft.mode === "keep"));
  const value = draft.mode === "replace" ? draft.value : "";
  const write = (v: string) => onChange({ mode: "replace", value: v });
  // "Private key" reads "new private key" in a sentence; "CA certificate" keeps its capitals.
  const inSentence = /^[A-Z][a-z]/.test(title) ? title.charAt(0).toLowerCase() + title.slice(1) : title;
  const inputLabel = set ? `New ${inSentence}` : title;

  return (
    <div className="field credential-field" data-credential={name}>
      <div className="credential-head">
        {editing && !set ? (
          <label htmlFor={id} className="credential-title">
            {title}
          </label>
        ) : (
          <span className="credential-title">{title}</span>
        )}
        <span id={statusId} className={`badge ${set && draft.mode !== "clear" ? "ok" : "warn"}`} data-testid="credential-state">
          {status}
        </span>
        {fileName && draft.mode !== "clear" ? <span className="muted credential-file-name">from {fileName}</span> : null}
      </div>
      {editing ? (
        <>
          {set ? <label htmlFor={id}>{inputLabel}</label> : null}
          {declaration.type === "pem" ? (
            <>
              <textarea
                id={id}
                rows={5}
                className="credential-pem"
                spellCheck={false}
                autoComplete="off"
                placeholder={"-----BEGIN …-----\n…\n-----END …-----"}
                value={value}
                onChange={(e) => write(e.target.value)}
                aria-invalid={error ? true : undefined}
                aria-describedby={describedBy}
                autoFocus={set}
              />
              <label className="credential-file">
                <span>Load {inSentence} from a file</span>
                <input
                  type="file"
                  accept=".pem,.crt,.cer,.key,.ca,text/plain"
                  onChange={(e) => {
                    const file = e.target.files?.[0];
                    if (file)
                      void file.text().then((text) => {
                        write(text);
                        onFileName?.(file.name);
                      });
                    e.target.value = "";
                  }}
                />
              </label>
            </>
          ) : (
            <input
              id={id}
              type={declaration.type === "password" ? "password" : "text"}
              autoComplete={declaration.type === "password" ? "new-password" : "off"}
              spellCheck={false}
              value={value}
              onChange={(e) => write(e.target.value)}
              aria-invalid={error ? true : undefined}
              aria-describedby={describedBy}
              // Replace was just pressed: the new value's field takes the focus it had.
              autoFocus={set}
            />
          )}
        </>
      ) : null}
      <div className="actions compact">
        {readOnly ? null : set && draft.mode === "keep" ? (
          <>
            <button type="button" className="secondary small" onClick={() => write("")} aria-label={`Replace ${title}`}>
              Replace
            </button>
            <button type="button" className="secondary small" onClick={() => {
                onChange({ mode: "clear" });
                onFileName?.("");
              }} aria-label={`Clear ${title}`}>
              Clear
            </button>
          </>
        ) : set ? (
          <button type="button" className="secondary small" onClick={() => onChange({ mode: "keep" })} aria-label={`Keep the current ${title}`}>
            Keep current
          </button>
        ) : null}
      </div>
      {declaration.description ? (
        <p id={`${id}-hint`} className="hint">
          {declaration.description}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="error">
          {title} {error}
        </p>
      ) : null}
    </div>
  );
}
