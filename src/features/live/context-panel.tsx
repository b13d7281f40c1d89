"use client";

import { useState, type FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { errorInfo, useTRPC } from "@/trpc/react";
import { JsonValue } from "./json-value";

/** How often the open tab reads the context again (it also has a Refresh button). */
const REFRESH_MS = 2000;

type Scope = { kind: "flow"; flowId: string } | { kind: "global" };

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function EntryEditor({ initialKey, initialValue, fixedKey, onSave, onCancel }: { initialKey: string; initialValue: string; fixedKey: boolean; onSave(key: string, value: unknown): Promise<void>; onCancel(): void }) {
  const [key, setKey] = useState(initialKey);
  const [text, setText] = useState(initialValue);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = parseJson(text);
    if (!key.trim()) return setError("A key is required.");
    if (!parsed.ok) return setError("The value must be JSON (a string needs quotes).");
    setBusy(true);
    setError(null);
    try {
      await onSave(key, parsed.value);
    } catch (err) {
      setError(errorInfo(err).message);
    } finally {
      setBusy(false);
    }
  }
  return (
    <form method="post" className="context-editor" onSubmit={submit}>
      {!fixedKey && (
        <label>
          Key
          <input value={key} onChange={(e) => setKey(e.target.value)} maxLength={256} aria-label="Key" />
        </label>
      )}
      <label>
        Value (JSON)
        <textarea value={text} onChange={(e) => setText(e.target.value)} rows={3} aria-label="Value (JSON)" spellCheck={false} />
      </label>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="context-editor-actions">
        <button type="submit" className="small" disabled={busy}>
          Save
        </button>
        <button type="button" className="small secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function ScopeSection({ title, scope, canEdit }: { title: string; scope: Scope; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const query = useQuery(
    scope.kind === "flow"
      ? { ...trpc.context.flow.queryOptions({ id: scope.flowId }), refetchInterval: REFRESH_MS }
      : { ...trpc.context.global.queryOptions(), refetchInterval: REFRESH_MS },
  );
  const setFlow = useMutation(trpc.context.setFlow.mutationOptions());
  const setGlobal = useMutation(trpc.context.setGlobal.mutationOptions());
  const delFlow = useMutation(trpc.context.deleteFlow.mutationOptions());
  const delGlobal = useMutation(trpc.context.deleteGlobal.mutationOptions());
  const [editing, setEditing] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [expanded] = useState(() => new Set<string>());

  const refresh = () => queryClient.invalidateQueries({ queryKey: scope.kind === "flow" ? trpc.context.flow.queryKey() : trpc.context.global.queryKey() });
  async function save(key: string, value: unknown) {
    if (scope.kind === "flow") await setFlow.mutateAsync({ id: scope.flowId, key, value });
    else await setGlobal.mutateAsync({ key, value });
    setEditing(null);
    setAdding(false);
    await refresh();
  }
  async function remove(key: string) {
    setError(null);
    try {
      if (scope.kind === "flow") await delFlow.mutateAsync({ id: scope.flowId, key });
      else await delGlobal.mutateAsync({ key });
      await refresh();
    } catch (err) {
      setError(errorInfo(err).message);
    }
  }

  const entries = Object.entries(query.data?.context ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return (
    <section className="context-scope" aria-label={title}>
      <header className="context-scope-head">
        <h3>{title}</h3>
        {canEdit && !adding && (
          <button type="button" className="small secondary" onClick={() => setAdding(true)}>
            Add
          </button>
        )}
      </header>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {adding && <EntryEditor initialKey="" initialValue="" fixedKey={false} onSave={save} onCancel={() => setAdding(false)} />}
      {query.isPending ? (
        <p className="muted">Loading…</p>
      ) : query.isError ? (
        <p className="error" role="alert">
          {errorInfo(query.error).message}
        </p>
      ) : entries.length === 0 ? (
        <p className="muted">Empty.</p>
      ) : (
        <ul className="context-list">
          {entries.map(([key, value]) => (
            <li key={key} data-testid="context-entry" data-key={key}>
              {editing === key ? (
                <EntryEditor initialKey={key} initialValue={JSON.stringify(value, null, 2)} fixedKey onSave={save} onCancel={() => setEditing(null)} />
              ) : (
                <>
                  <JsonValue value={value} path={`${title}/${key}`} expanded={expanded} label={key} />
                  {canEdit && (
                    <span className="context-actions">
                      <button type="button" className="small secondary" onClick={() => setEditing(key)} aria-label={`Edit ${key}`}>
                        Edit
                      </button>
                      <button type="button" className="small secondary" onClick={() => void remove(key)} aria-label={`Delete ${key}`}>
                        Delete
                      </button>
                    </span>
                  )}
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * The `Context` tab (SPEC §13): this flow's context and the organization's global context, read
 * every two seconds while the tab is open and on Refresh; members and above set and delete keys.
 */
export function ContextPanel({ flowId, canEdit }: { flowId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return (
    <div className="context-panel" role="region" aria-label="Context">
      <div className="context-toolbar">
        <button
          type="button"
          className="small secondary"
          onClick={() => {
            void queryClient.invalidateQueries({ queryKey: trpc.context.flow.queryKey() });
            void queryClient.invalidateQueries({ queryKey: trpc.context.global.queryKey() });
          }}
        >
          Refresh
        </button>
      </div>
      <ScopeSection title="This flow" scope={{ kind: "flow", flowId }} canEdit={canEdit} />
      <ScopeSection title="Global" scope={{ kind: "global" }} canEdit={canEdit} />
    </div>
  );
}
