"use client";

import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { FormFooter, SubmitButton } from "@/components/buttons";
import { Card } from "@/components/card";
import { Field } from "@/components/field";
import { commonErrorMessage, fieldMessage } from "@/features/accounts/messages";
import { errorInfo, useInvalidate, useTRPC } from "@/trpc/react";
import { scopesForRole, type ApiKeyScope, type Role } from "@/shared/permissions";
import { can } from "../roles";
import { KindFieldset, ScopesFieldset, type KeyKind } from "./key-choices";
import { NewSecret } from "./new-secret";

/** The end of the chosen day in the browser's time zone, as the API's ISO 8601 instant. */
function endOfDay(date: string): string {
  return new Date(`${date}T23:59:59`).toISOString();
}

const HEADING_ID = "create-key-heading";
const TITLE = "Create an API key";

/** The form for a new key, then its secret (once) in place of the form. */
export function CreateKeySection({ role }: { role: Role }) {
  const trpc = useTRPC();
  const invalidate = useInvalidate();
  const deviceAllowed = can(role, "api_keys:manage_all");
  const [name, setName] = useState("");
  const [kind, setKind] = useState<KeyKind>("user");
  const available = scopesForRole(role, kind);
  const [scopes, setScopes] = useState<ReadonlySet<ApiKeyScope>>(() => new Set(scopesForRole(role, "user")));
  const [expires, setExpires] = useState("");
  const [noScopes, setNoScopes] = useState(false);
  const create = useMutation(
    trpc.apiKeys.create.mutationOptions({
      onSuccess: () => {
        setName("");
        setExpires("");
        return invalidate(trpc.apiKeys.list.queryKey());
      },
    }),
  );

  function chooseKind(next: KeyKind) {
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

  if (create.isSuccess) {
    return (
      <Card headingId={HEADING_ID} title={TITLE}>
        <NewSecret name={create.data.api_key.name} secret={create.data.secret} onDone={() => create.reset()} />
      </Card>
    );
  }

  const info = create.error ? errorInfo(create.error) : null;
  const nameError = fieldMessage("Name", info?.fields.name);
  const expiresError = fieldMessage("Expires on", info?.fields.expires_at);
  const scopesError = noScopes ? "Choose at least one scope." : info?.fields.scopes ? `${info.fields.scopes}.` : undefined;
  const alert = create.error && !nameError && !expiresError && !scopesError ? commonErrorMessage(create.error) : null;
  return (
    <Card headingId={HEADING_ID} title={TITLE}>
      <p className="hint">
        A key acts as you, limited to the scopes you choose and never beyond your current role. Send it in the{" "}
        <code>X-API-Key</code> header.
      </p>
      <form method="post" onSubmit={onSubmit} className="key-form">
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
        {deviceAllowed ? <KindFieldset kind={kind} onChange={chooseKind} /> : null}
        <ScopesFieldset available={available} chosen={scopes} onToggle={toggle} error={scopesError} />
        <FormFooter>
          <SubmitButton pending={create.isPending} pendingLabel="Creating…">
            Create key
          </SubmitButton>
        </FormFooter>
      </form>
    </Card>
  );
}
