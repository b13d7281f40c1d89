"use client";

import { useState, type FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { FormFooter, SubmitButton } from "@/components/buttons";
import { ACTIONS_COLUMN, DataTable, RowError } from "@/components/data-table";
import { ConfirmButton } from "@/components/dialog";
import { SecretPanel, SecretValue } from "@/components/secret-panel";
import { Choice, Field } from "@/components/field";
import { commonErrorMessage, fieldMessage } from "@/features/accounts/messages";
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
  return (
    <SecretPanel
      className="new-secret"
      title={<>Key “{name}” created</>}
      notice={
        <>
          <strong>Copy this secret now.</strong> It is shown only once: we keep only a hash of it. If you lose it, revoke
          the key and create a new one.
        </>
      }
      copyText={secret}
      copyWhat="the secret"
      doneLabel="I have stored the secret"
      onDone={onDone}
    >
      <SecretValue label="Secret" value={secret} />
    </SecretPanel>
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
              <Choice
                id="key-kind-user"
                type="radio"
                name="key-kind"
                checked={kind === "user"}
                onChange={() => chooseKind("user")}
                label="User key"
                hint="Calls the REST API as you."
              />
              <Choice
                id="key-kind-device"
                type="radio"
                name="key-kind"
                checked={kind === "device"}
                onChange={() => chooseKind("device")}
                label="Device key"
                hint="Connects a device over the WebSocket."
              />
            </div>
          </fieldset>
        ) : null}
        <fieldset aria-describedby={scopesError ? "key-scopes-error" : undefined}>
          <legend>Scopes</legend>
          <ul className="scopes">
            {available.map((scope) => (
              <Choice
                key={scope}
                as="li"
                id={`scope-${scope.replace(":", "-")}`}
                type="checkbox"
                checked={scopes.has(scope)}
                onChange={(e) => toggle(scope, e.target.checked)}
                label={<code>{scope}</code>}
                hint={sentenceCase(scopeDescription(scope))}
              />
            ))}
          </ul>
          {scopesError ? (
            <p id="key-scopes-error" className="error">
              {scopesError}
            </p>
          ) : null}
        </fieldset>
        <FormFooter>
          <SubmitButton pending={create.isPending} pendingLabel="Creating…">
            Create key
          </SubmitButton>
        </FormFooter>
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
        {revoke.error ? <RowError>{commonErrorMessage(revoke.error)}</RowError> : null}
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
        <ConfirmButton
          className="secondary small"
          aria-label={`Revoke key ${apiKey.name}`}
          pending={revoke.isPending}
          pendingLabel="Revoking…"
          title={`Revoke the key “${apiKey.name}”?`}
          message={<p>Anything using it stops working at once. This cannot be undone.</p>}
          confirmLabel="Revoke key"
          onConfirm={() => revoke.mutate({ id: apiKey.id })}
        >
          Revoke
        </ConfirmButton>
      </td>
    </tr>
  );
}

const KEY_COLUMNS = ["Name", "Prefix", "Kind", "Scopes", "Created", "Last used", "Expires", ACTIONS_COLUMN] as const;

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
        <DataTable className="compact" columns={KEY_COLUMNS}>
          {list.map((k) => (
            <KeyRow key={k.id} apiKey={k} prefs={prefs} now={now} />
          ))}
        </DataTable>
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
