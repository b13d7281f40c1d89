"use client";

import { useContext, useState, type FormEvent } from "react";
import { createPortal } from "react-dom";
import { useQuery } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { ConfirmButton, Dialog } from "@/components/dialog";
import { SubmitButton } from "@/components/buttons";
import { errorInfo, useTRPC } from "@/trpc/react";
import type { ConfigNodeView } from "@/shared/config-nodes";
import { SchemaForm, type JsonSchema } from "../schema-form";
import { HelpDisclosure } from "../node-help";
import { configNodeLabel, credentialsInput, credentialsOf, splitFieldErrors, type ConfigTypeInfo, type CredentialDraft } from "./config-node-model";
import { ConfigCatalogContext } from "./config-ref-slot";
import { ConfigNodeUsers } from "./config-node-users";
import { CredentialField } from "./credential-field";
import { useConfigNodeWrites } from "./use-config-nodes";
import { NAME_MAX_CHARS } from "@/shared/policy";

type Errors = ReturnType<typeof splitFieldErrors>;
const noErrors: Errors = { config: {}, credentials: {}, other: [] };

const keepAll = (names: string[]): Record<string, CredentialDraft> => Object.fromEntries(names.map((n) => [n, { mode: "keep" } as const]));

/**
 * A configuration node's own form (SPEC §19, Node-RED's pencil): Name, the fields of its type's
 * JSON Schema (the catalog's, as a node's), and its declared credentials, write-only. Adds
 * (`configNodes.create`) or updates with the revision it was opened at (`configNodes.update`): a
 * stale one shows the 409 with "Load the latest" and "Save over it". Delete of one in use shows
 * the 409 and who uses it. Its type's help (what Node-RED shows in the sidebar beside the dialog,
 * with our differences) is behind a disclosure, as in a node's dialog. Drawn in a portal, so it
 * may open from a node's dialog (and from another configuration node's) without nesting forms;
 * its submit and Escape stop at it.
 */
export function ConfigNodeDialog({
  type,
  node: initial,
  readOnly,
  onSaved,
  onDeleted,
  onClose,
}: {
  type: string;
  /** The node to edit; null adds one of `type`. */
  node: ConfigNodeView | null;
  readOnly: boolean;
  onSaved: (node: ConfigNodeView) => void;
  onDeleted?: (id: string) => void;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const writes = useConfigNodeWrites();
  const entry = useContext(ConfigCatalogContext).get(type) as (ConfigTypeInfo & { name?: string; description?: string }) | undefined;
  const declared = credentialsOf(entry);
  const schemaQuery = useQuery({ ...trpc.nodes.schema.queryOptions({ type }), staleTime: Infinity });
  const [base, setBase] = useState(initial);
  const [name, setName] = useState(initial?.name ?? "");
  // A node being added starts from the type's defaults once the schema has them.
  const [config, setConfig] = useState<Record<string, unknown> | null>(initial?.config ?? null);
  const [drafts, setDrafts] = useState(() => keepAll(declared.map(([n]) => n)));
  const [errors, setErrors] = useState<Errors>(noErrors);
  const [conflict, setConflict] = useState(false);
  const [inUse, setInUse] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const formConfig = config ?? (schemaQuery.data?.defaults as Record<string, unknown> | undefined) ?? null;
  /** Node-RED keeps a PEM's file name beside it: `certdata` → `certname`, when the type has that property. */
  const fileNameKey = (credential: string) => {
    const key = credential.endsWith("data") ? `${credential.slice(0, -4)}name` : null;
    return key && (schemaQuery.data?.schema as JsonSchema | undefined)?.properties?.[key] ? key : null;
  };
  /** The file-name properties are shown on their credential, not as fields of their own. */
  const withoutFileNames = (schema: JsonSchema): JsonSchema => {
    const hidden = new Set(declared.map(([k]) => fileNameKey(k)).filter((k): k is string => k !== null));
    return hidden.size === 0 ? schema : { ...schema, properties: Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([k]) => !hidden.has(k))) };
  };
  const title = initial ? `Edit ${type} configuration node` : `Add new ${type} configuration node`;

  function fail(err: unknown) {
    const info = errorInfo(err);
    if (info.code === "REVISION_CONFLICT") return setConflict(true);
    const split = splitFieldErrors(info.fields);
    const placed = split.name || Object.keys(split.config).length + Object.keys(split.credentials).length > 0;
    setErrors(placed ? split : { ...split, other: [info.message] });
  }

  async function write(revision: number | undefined) {
    setBusy(true);
    setErrors(noErrors);
    try {
      const credentials = credentialsInput(drafts);
      const saved = base
        ? await writes.update({ id: base.id, name: name.trim(), config: formConfig ?? {}, revision, ...(credentials ? { credentials } : {}) })
        : await writes.create({ type, name: name.trim(), config: formConfig ?? {}, ...(credentials ? { credentials } : {}) });
      onSaved(saved);
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  }

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    // Opened from a node's dialog: the portal keeps the forms apart in the DOM, not in React's tree.
    e.stopPropagation();
    if (readOnly) return onClose();
    void write(base?.revision);
  }

  /** After a 409: the latest as stored, dropping this dialog's edits. */
  async function loadLatest() {
    if (!base) return;
    const latest = await writes.get(base.id);
    setBase(latest);
    setName(latest.name);
    setConfig(latest.config);
    setDrafts(keepAll(declared.map(([n]) => n)));
    setConflict(false);
    setErrors(noErrors);
  }

  /** After a 409: this dialog's values over the latest revision. */
  async function saveOver() {
    if (!base) return;
    const latest = await writes.get(base.id);
    setBase(latest);
    setConflict(false);
    await write(latest.revision);
  }

  async function remove() {
    if (!base) return;
    setBusy(true);
    try {
      await writes.remove(base.id);
      onDeleted?.(base.id);
    } catch (err) {
      const info = errorInfo(err);
      if (info.code === "CONFIG_NODE_IN_USE") {
        setInUse(info.message);
        setBase(await writes.get(base.id).catch(() => base));
      } else setErrors({ ...noErrors, other: [info.message] });
    } finally {
      setBusy(false);
    }
  }

  const fieldErrorCount = (errors.name ? 1 : 0) + Object.keys(errors.config).length + Object.keys(errors.credentials).length;
  const dialog = (
    <Dialog title={title} open onClose={onClose} wide className="config-node-dialog">
      <form method="post" onSubmit={onSubmit} noValidate>
        {entry?.description ? <p className="hint">{entry.description}</p> : null}
        {conflict ? (
          <Alert kind="error">
            <p>Someone changed this configuration node since you opened it. Load the latest (your changes here are dropped), or save yours over it.</p>
            <div className="actions compact">
              <button type="button" className="secondary small" onClick={() => void loadLatest()}>
                Load the latest
              </button>
              <button type="button" className="small" onClick={() => void saveOver()}>
                Save over it
              </button>
            </div>
          </Alert>
        ) : null}
        {inUse && base ? (
          <Alert kind="error">
            <p>Not deleted: {inUse}</p>
            <ConfigNodeUsers usedBy={base.used_by} />
          </Alert>
        ) : null}
        {errors.other.map((m) => (
          <Alert key={m} kind="error">
            {m}
          </Alert>
        ))}
        {fieldErrorCount > 0 ? <Alert kind="error">The server refused {fieldErrorCount === 1 ? "a value" : `${fieldErrorCount} values`}: see the marked fields.</Alert> : null}
        <fieldset disabled={readOnly} className="plain">
          <div className="field">
            <label htmlFor="config-node-name">Name</label>
            <input
              id="config-node-name"
              type="text"
              maxLength={NAME_MAX_CHARS}
              value={name}
              onChange={(e) => setName(e.target.value)}
              placeholder={base ? configNodeLabel({ ...base, name: "" }) : type}
              aria-invalid={errors.name ? true : undefined}
              aria-describedby={errors.name ? "config-node-name-error" : undefined}
              autoFocus
            />
            {errors.name ? (
              <p id="config-node-name-error" className="error">
                Name {errors.name}
              </p>
            ) : null}
          </div>
          {declared.length > 0 ? (
            <fieldset className="credentials">
              <legend>Credentials</legend>
              <p className="hint">Write-only: stored encrypted, never shown again. Leave a field as it is to keep its value.</p>
              {declared.map(([key, declaration]) => (
                <CredentialField
                  key={key}
                  id={`config-node-credential-${key}`}
                  name={key}
                  declaration={declaration}
                  set={base?.credentials[key]?.set ?? false}
                  draft={drafts[key] ?? { mode: "keep" }}
                  onChange={(d) => setDrafts((all) => ({ ...all, [key]: d }))}
                  error={errors.credentials[key]}
                  readOnly={readOnly}
                  fileName={fileNameKey(key) ? String(formConfig?.[fileNameKey(key)!] ?? "") : ""}
                  onFileName={fileNameKey(key) ? (file) => setConfig({ ...(formConfig ?? {}), [fileNameKey(key)!]: file }) : undefined}
                />
              ))}
            </fieldset>
          ) : null}
          {schemaQuery.data && formConfig ? (
            <SchemaForm hints={schemaQuery.data.form} schema={withoutFileNames(schemaQuery.data.schema as JsonSchema)} value={formConfig} onChange={setConfig} errors={errors.config} />
          ) : schemaQuery.error ? (
            <Alert kind="error">{errorInfo(schemaQuery.error).message}</Alert>
          ) : (
            <p role="status">Loading the form…</p>
          )}
        </fieldset>
        {base ? (
          <section className="config-node-usage" aria-labelledby="config-node-usage-heading">
            <h3 id="config-node-usage-heading">Used by</h3>
            <ConfigNodeUsers usedBy={base.used_by} />
            <p className="hint">
              Id <code>{base.id}</code> · revision {base.revision}. Running flows keep the revision they were deployed with until its users are deployed.
            </p>
          </section>
        ) : null}
        <HelpDisclosure name={entry?.name ?? type} help={schemaQuery.data?.help ?? ""} />
        <div className="actions">
          {base && !readOnly ? (
            <ConfirmButton
              className="danger secondary"
              title={`Delete ${type} configuration node`}
              message={<p>Delete “{configNodeLabel(base)}”? Nodes cannot use it any more; a configuration node still in use is not deleted.</p>}
              confirmLabel="Delete"
              onConfirm={() => void remove()}
              pending={busy}
              pendingLabel="Deleting…"
            >
              Delete
            </ConfirmButton>
          ) : null}
          <span className="spacer" />
          <button type="button" className="secondary" onClick={onClose}>
            {readOnly ? "Close" : "Cancel"}
          </button>
          {!readOnly ? (
            <SubmitButton pending={busy} pendingLabel="Saving…" disabled={!formConfig}>
              {base ? "Update" : "Add"}
            </SubmitButton>
          ) : null}
        </div>
      </form>
    </Dialog>
  );
  return createPortal(dialog, document.body);
}
