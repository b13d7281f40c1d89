"use client";

import { useClipboard } from "@/components/use-clipboard";
import { useState, type FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { Field } from "@/components/field";
import { commonErrorMessage, fieldMessage } from "@/features/auth/messages";
import { formatDate, formatDateTime, type DisplayPrefs } from "@/features/settings/format";
import { errorInfo, useTRPC } from "@/trpc/react";
import { permissions, scopesForRole, type ApiKeyScope, type PermissionRule, type Role } from "@/shared/permissions";
import { can } from "./roles";
import type { ApiKey } from "./types";

type Kind = "user" | "device";

/** What a scope lets a key do, from the permission table. */
function scopeDescription(scope: ApiKeyScope): string {
  if (scope === "device:connect") return "connect a device over the WebSocket device channel";
  const rules = (Object.values(permissions) as PermissionRule[]).filter((r) => r.scope === scope);
  return rules.map((r) => r.description).join("; ");
}

function sentenceCase(text: string): string {
  return text ? `${text[0]!.toUpperCase()}${text.slice(1)}.` : text;
}

/** The end of the chosen day in the browser's time zone, as the API's ISO 8601 instant. */
function endOfDay(date: string): string {
  return new Date(`${date}T23:59:59`).toISOString();
}

function NewSecret({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
  const clipboard = useClipboard();
  return (
    <div className="new-secret" role="group" aria-labelledby="new-secret-heading">
      <h3 id="new-secret-heading">Key “{name}” created</h3>
      <Alert kind="info">
        <strong>Copy this secret now.</strong> It is shown only once: we keep only a hash of it. If you lose it, revoke the
        key and create a new one.
      </Alert>
      <dl className="secret">
        <dt id="api-key-secret-label">Secret</dt>
        <dd aria-labelledby="api-key-secret-label">
          <code>{secret}</code>
        </dd>
      </dl>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          onClick={() => clipboard.copy(secret)}
        >
          Copy
        </button>
        <button type="button" onClick={onDone}>
          I have stored the secret
        </button>
        <span role="status" className="saved">
          {clipboard.message("the secret")}
        </span>
      </div>
    </div>
  );
}

function CreateKeySection({ role }: { role: Role }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const deviceAllowed = can(role, "api_keys:manage_all");
  const [name, setName] = useState("");
  const [kind, setKind] = useState<Kind>("user");
  const available = scopesForRole(role, kind);
  const [scopes, setScopes] = useState<ReadonlySet<ApiKeyScope>>(() => new Set(scopesForRole(role, "user")));
  const [expires, setExpires] = useState("");
  const [noScopes, setNoScopes] = useState(false);
  const create = useMutation(
    trpc.apiKeys.create.mutationOptions({
      onSuccess: () => {
        setName("");
        setExpires("");
        return queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() });
      },
    }),
  );

  function chooseKind(next: Kind) {
    setKind(next);
    setScopes(new Set(scopesForRole(role, next)));
    setNoScopes(false);
  }

  function toggle(scope: ApiKeyScope, on: boolean) {
    setScopes((s) => {
      const next = new Set(s);
      if (on) next.add(scope);
      else next.delete(scope);
      return next;
    });
    setNoScopes(false);
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const chosen = available.filter((s) => scopes.has(s));
    if (chosen.length === 0) {
      setNoScopes(true);
      return;
    }
    create.mutate({ name, kind, scopes: chosen, expires_at: expires ? endOfDay(expires) : undefined });
  }

  const info = create.error ? errorInfo(create.error) : null;
  const nameError = fieldMessage("Name", info?.fields.name);
  const expiresError = fieldMessage("Expires on", info?.fields.expires_at);
  const scopesError = noScopes ? "Choose at least one scope." : info?.fields.scopes ? `${info.fields.scopes}.` : undefined;
  const alert = create.error && !nameError && !expiresError && !scopesError ? commonErrorMessage(create.error) : null;

  if (create.isSuccess) {
    return (
      <section className="card" aria-labelledby="create-key-heading">
        <h2 id="create-key-heading">Create an API key</h2>
        <NewSecret name={create.data.api_key.name} secret={create.data.secret} onDone={() => create.reset()} />
      </section>
    );
  }

  return (
    <section className="card" aria-labelledby="create-key-heading">
      <h2 id="create-key-heading">Create an API key</h2>
      <p className="hint">
        A key acts as you, limited to the scopes you choose and never beyond your current role. Send it in the{" "}
        <code>X-API-Key</code> header.
      </p>
      <form onSubmit={onSubmit} className="key-form">
        {alert ? <Alert kind="error">{alert}</Alert> : null}
        <div className="field-row">
          <Field
            id="key-name"
            label="Name"
            hint="What uses it, e.g. “CI deploys”."
            required
            maxLength={100}
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={nameError}
          />
          <Field
            id="key-expires"
            label="Expires on"
            type="date"
            hint="Optional. Empty: the key does not expire."
            value={expires}
            onChange={(e) => setExpires(e.target.value)}
            error={expiresError}
          />
        </div>
        {deviceAllowed ? (
          <fieldset>
            <legend>Kind</legend>
            <div className="choices">
              <div className="choice">
                <input
                  id="key-kind-user"
                  type="radio"
                  name="key-kind"
                  checked={kind === "user"}
                  onChange={() => chooseKind("user")}
                  aria-describedby="key-kind-user-hint"
                />
                <div>
                  <label htmlFor="key-kind-user">User key</label>
                  <p id="key-kind-user-hint" className="hint">
                    Calls the REST API as you.
                  </p>
                </div>
              </div>
              <div className="choice">
                <input
                  id="key-kind-device"
                  type="radio"
                  name="key-kind"
                  checked={kind === "device"}
                  onChange={() => chooseKind("device")}
                  aria-describedby="key-kind-device-hint"
                />
                <div>
                  <label htmlFor="key-kind-device">Device key</label>
                  <p id="key-kind-device-hint" className="hint">
                    Connects a device over the WebSocket.
                  </p>
                </div>
              </div>
            </div>
          </fieldset>
        ) : null}
        <fieldset aria-describedby={scopesError ? "key-scopes-error" : undefined}>
          <legend>Scopes</legend>
          <ul className="scopes">
            {available.map((scope) => {
              const id = `scope-${scope.replace(":", "-")}`;
              return (
                <li key={scope} className="choice">
                  <input
                    id={id}
                    type="checkbox"
                    checked={scopes.has(scope)}
                    onChange={(e) => toggle(scope, e.target.checked)}
                    aria-describedby={`${id}-hint`}
                  />
                  <div>
                    <label htmlFor={id}>
                      <code>{scope}</code>
                    </label>
                    <p id={`${id}-hint`} className="hint">
                      {sentenceCase(scopeDescription(scope))}
                    </p>
                  </div>
                </li>
              );
            })}
          </ul>
          {scopesError ? (
            <p id="key-scopes-error" className="error">
              {scopesError}
            </p>
          ) : null}
        </fieldset>
        <div className="actions">
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? "Creating…" : "Create key"}
          </button>
        </div>
      </form>
    </section>
  );
}

function KeyRow({ apiKey, prefs, now }: { apiKey: ApiKey; prefs: DisplayPrefs; now: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const revoke = useMutation(
    trpc.apiKeys.revoke.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() }) }),
  );
  const expired = apiKey.expires_at !== null && Date.parse(apiKey.expires_at) <= now;
  return (
    <tr>
      <td>
        {apiKey.name}
        {revoke.error ? (
          <p role="alert" className="error">
            {commonErrorMessage(revoke.error)}
          </p>
        ) : null}
      </td>
      <td>
        <code>{apiKey.prefix}…</code>
      </td>
      <td>{apiKey.kind === "device" ? "Device" : "User"}</td>
      <td>
        <ul className="tags">
          {apiKey.scopes.map((s) => (
            <li key={s} className="tag">
              {s}
            </li>
          ))}
        </ul>
      </td>
      <td>{formatDate(prefs, apiKey.created_at)}</td>
      <td>{apiKey.last_used_at ? formatDateTime(prefs, apiKey.last_used_at) : <span className="muted">Never</span>}</td>
      <td>
        {apiKey.expires_at ? formatDate(prefs, apiKey.expires_at) : <span className="muted">Never</span>}
        {expired ? <span className="badge warn">Expired</span> : null}
      </td>
      <td className="row-actions">
        <button
          type="button"
          className="secondary small"
          aria-label={`Revoke key ${apiKey.name}`}
          disabled={revoke.isPending}
          onClick={() => {
            if (!window.confirm(`Revoke the key “${apiKey.name}”? Anything using it stops working at once.`)) return;
            revoke.mutate({ id: apiKey.id });
          }}
        >
          {revoke.isPending ? "Revoking…" : "Revoke"}
        </button>
      </td>
    </tr>
  );
}

function KeysSection({ role, prefs, initialKeys }: { role: Role; prefs: DisplayPrefs; initialKeys: ApiKey[] }) {
  const trpc = useTRPC();
  const keys = useQuery({ ...trpc.apiKeys.list.queryOptions(), initialData: { api_keys: initialKeys } });
  const list = keys.data?.api_keys ?? initialKeys;
  // When the page opened: "Expired" badges do not flip while someone looks at them.
  const [now] = useState(Date.now);
  return (
    <section className="card" aria-labelledby="keys-heading">
      <h2 id="keys-heading">Active keys</h2>
      <p className="hint">{can(role, "api_keys:manage_all") ? "Every key of the organization." : "The keys you created."}</p>
      {keys.error ? <Alert kind="error">{commonErrorMessage(keys.error)}</Alert> : null}
      {list.length === 0 ? (
        <p className="muted">No API keys yet.</p>
      ) : (
        <div className="table-scroll">
          <table className="compact">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Kind</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((k) => (
                <KeyRow key={k.id} apiKey={k} prefs={prefs} now={now} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function ApiKeysSettings({ role, prefs, initialKeys }: { role: Role; prefs: DisplayPrefs; initialKeys: ApiKey[] }) {
  return (
    <>
      <CreateKeySection role={role} />
      <KeysSection role={role} prefs={prefs} initialKeys={initialKeys} />
    </>
  );
}
