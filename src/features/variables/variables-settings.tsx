"use client";

import { useState, type FormEvent } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { FormFooter, PendingButton, SubmitButton } from "@/components/buttons";
import { Card } from "@/components/card";
import { ACTIONS_COLUMN, DataTable } from "@/components/data-table";
import { ConfirmButton } from "@/components/dialog";
import { Field, SelectField } from "@/components/field";
import { commonErrorMessage, fieldMessage } from "@/features/accounts/messages";
import { formatDateTime, type DisplayPrefs } from "@/features/settings/format";
import { NameCell } from "@/features/organizations/name-cell";
import { can } from "@/features/organizations/roles";
import type { Variable } from "@/features/organizations/types";
import { errorInfo, useInvalidate, useTRPC } from "@/trpc/react";
import type { Role } from "@/shared/permissions";
import { flowLabels } from "./flow-labels";

export interface FlowChoice {
  id: string;
  name: string;
}

const ORGANIZATION = "";

const HOSTS_HINT = "Optional: host names the secret may be sent to, separated by commas or spaces (api.example.com, *.example.com for any host under it, or an IPv4 address). Requests to other hosts, and redirects to them, fail without it. Empty: any host.";

/** The allowed-hosts field's text as the API takes it: a list, or null for no restriction. */
function parseHosts(text: string): string[] | null {
  const hosts = text.split(/[\s,]+/).filter(Boolean);
  return hosts.length > 0 ? hosts : null;
}

/** The API's message about allowed_hosts or one of its entries ("allowed_hosts.1"), if any. */
function hostsError(fields: Record<string, string> | undefined): string | undefined {
  const key = Object.keys(fields ?? {}).find((k) => k === "allowed_hosts" || k.startsWith("allowed_hosts."));
  if (!key) return undefined;
  const entry = key.split(".")[1];
  return fieldMessage(entry === undefined ? "Allowed hosts" : `Allowed host ${Number(entry) + 1}`, fields![key]);
}

/** Where a variable applies: the organization, or one flow (which overrides the organization's). */
function scopeLabel(flowId: string | null, flows: FlowChoice[]): string {
  if (!flowId) return "Organization";
  return `Flow: ${flowLabels(flows).get(flowId) ?? flowId}`;
}

/** The settings page: what ${NAME} means here, a form to add one (admins), and the list. */
export function VariablesSettings({ role, prefs, initialVariables, flows }: { role: Role; prefs: DisplayPrefs; initialVariables: Variable[]; flows: FlowChoice[] }) {
  const writable = can(role, "variables:write");
  return (
    <>
      <p className="hint">
        Nodes use a variable as <code>{"${NAME}"}</code> in their properties, and function code as <code>env.get(&quot;NAME&quot;)</code>. A
        secret is stored encrypted, is never shown again, and is handed only to credential properties (an HTTP request&apos;s URL, headers
        and authentication). A secret with allowed hosts is sent only to those hosts: a request (or a redirect) to any other
        fails. A changed value reaches running flows within 2 seconds, without a redeploy.
      </p>
      <p className="hint">
        On a device, flows run in the device&apos;s own Node-RED, which hands a secret to any node that asks for it (function code
        included). So a device is sent only the secrets its flows name, sealed to its key, and never a secret with allowed hosts: a
        deployment that uses one is refused for the device, which goes on with the deployment it ran (a secret given allowed hosts later
        is taken off the device: its flows that use it stop there, and say why). A changed value reaches the devices whose flows name it
        at once, or when they next connect: their Node-RED restarts its flows with it, as a full deploy does.
      </p>
      <p className="hint">
        What redaction can and cannot do: wherever the runtime reports (debug messages, statuses, errors, executions), a secret&apos;s
        value is replaced by <code>***</code>, also as JSON writes it and in an HTTP request&apos;s own error texts. It cannot recognise a
        value a flow has transformed (reversed, encoded, split): anyone who may edit flows can make a flow send a secret wherever its
        HTTP requests may go, unless the secret lists its allowed hosts. Give secrets only to organizations whose members you trust with them, and prefer keys with narrow rights.
      </p>
      {writable ? <AddVariableSection flows={flows} /> : null}
      <VariablesSection writable={writable} prefs={prefs} initialVariables={initialVariables} flows={flows} />
    </>
  );
}

function AddVariableSection({ flows }: { flows: FlowChoice[] }) {
  const trpc = useTRPC();
  const invalidate = useInvalidate();
  const [name, setName] = useState("");
  const [value, setValue] = useState("");
  const [secret, setSecret] = useState(false);
  const [hosts, setHosts] = useState("");
  const [scope, setScope] = useState(ORGANIZATION);
  const [added, setAdded] = useState<string | null>(null);
  const create = useMutation(
    trpc.variables.create.mutationOptions({
      onSuccess: (data) => {
        setAdded(data.variable.name);
        setName("");
        setValue("");
        setSecret(false);
        setHosts("");
        return invalidate(trpc.variables.list.queryKey());
      },
    }),
  );
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setAdded(null);
    create.mutate({ name, value, secret, flow_id: scope === ORGANIZATION ? null : scope, ...(secret ? { allowed_hosts: parseHosts(hosts) } : {}) });
  }
  const info = create.error ? errorInfo(create.error) : null;
  const nameError = fieldMessage("Name", info?.fields.name) ?? (info?.code === "VARIABLE_EXISTS" ? info.message : undefined);
  const valueError = fieldMessage("Value", info?.fields.value);
  const scopeError = fieldMessage("Scope", info?.fields.flow_id) ?? (info?.code === "NOT_FOUND" ? "That flow no longer exists." : undefined);
  const allowedHostsError = hostsError(info?.fields);
  const alert = create.error && !nameError && !valueError && !scopeError && !allowedHostsError ? commonErrorMessage(create.error) : null;
  return (
    <Card headingId="add-variable-heading" title="Add a variable">
      <form method="post" onSubmit={onSubmit} className="key-form">
        {alert ? <Alert kind="error">{alert}</Alert> : null}
        <div className="field-row">
          <Field
            id="variable-name"
            label="Name"
            hint="Upper-case letters, digits and _, e.g. API_URL."
            required
            maxLength={64}
            autoComplete="off"
            value={name}
            onChange={(e) => setName(e.target.value.toUpperCase())}
            error={nameError}
          />
          <SelectField
            id="variable-scope"
            label="Scope"
            hint="A flow's variable overrides the organization's of the same name."
            options={[ORGANIZATION, ...flows.map((f) => f.id)]}
            optionLabels={Object.fromEntries([[ORGANIZATION, "Organization"], ...flows.map((f) => [f.id, scopeLabel(f.id, flows)])])}
            value={scope}
            onChange={(e) => setScope(e.target.value)}
            error={scopeError}
          />
        </div>
        <Field
          id="variable-value"
          label="Value"
          type={secret ? "password" : "text"}
          autoComplete="off"
          hint={secret ? "Write-only: it is never shown again." : undefined}
          value={value}
          onChange={(e) => setValue(e.target.value)}
          error={valueError}
        />
        <div className="checkbox">
          <input id="variable-secret" type="checkbox" checked={secret} onChange={(e) => setSecret(e.target.checked)} />
          <label htmlFor="variable-secret">Secret</label>
        </div>
        {secret ? (
          <Field
            id="variable-allowed-hosts"
            label="Allowed hosts"
            hint={HOSTS_HINT}
            autoComplete="off"
            spellCheck={false}
            placeholder="api.example.com"
            value={hosts}
            onChange={(e) => setHosts(e.target.value)}
            error={allowedHostsError}
          />
        ) : null}
        <FormFooter status={added ? `Added ${added}.` : ""}>
          <SubmitButton pending={create.isPending} pendingLabel="Adding…">
            Add variable
          </SubmitButton>
        </FormFooter>
      </form>
    </Card>
  );
}

const COLUMNS = ["Name", "Scope", "Value", "Updated", ACTIONS_COLUMN] as const;

function VariablesSection({ writable, prefs, initialVariables, flows }: { writable: boolean; prefs: DisplayPrefs; initialVariables: Variable[]; flows: FlowChoice[] }) {
  const trpc = useTRPC();
  const query = useQuery({ ...trpc.variables.list.queryOptions(), initialData: { variables: initialVariables, next_cursor: null } });
  const list = query.data?.variables ?? initialVariables;
  return (
    <Card headingId="variables-heading" title="Variables">
      {query.error ? <Alert kind="error">{commonErrorMessage(query.error)}</Alert> : null}
      {!writable ? <p className="hint">Admins and owners add and change variables; you can see them.</p> : null}
      {list.length === 0 ? (
        <p className="muted">No variables yet.</p>
      ) : (
        <DataTable className="compact stack-on-phone" columns={COLUMNS}>
          {list.map((v) => (
            <VariableRow key={`${v.flow_id ?? ""}/${v.name}`} variable={v} writable={writable} prefs={prefs} flows={flows} />
          ))}
        </DataTable>
      )}
    </Card>
  );
}

function VariableRow({ variable, writable, prefs, flows }: { variable: Variable; writable: boolean; prefs: DisplayPrefs; flows: FlowChoice[] }) {
  const trpc = useTRPC();
  const invalidate = useInvalidate();
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState("");
  const [secret, setSecret] = useState(variable.secret);
  const [hosts, setHosts] = useState("");
  const refresh = () => invalidate(trpc.variables.list.queryKey());
  const update = useMutation(
    trpc.variables.update.mutationOptions({
      onSuccess: () => {
        setEditing(false);
        return refresh();
      },
    }),
  );
  const remove = useMutation(trpc.variables.delete.mutationOptions({ onSuccess: refresh }));
  const scope = scopeLabel(variable.flow_id, flows);
  const fieldId = `value-${variable.flow_id ?? "org"}-${variable.name}`;

  function startEdit() {
    // A secret's value is write-only: the field starts empty, a plain one with its value.
    setValue(variable.secret ? "" : (variable.value ?? ""));
    setSecret(variable.secret);
    setHosts((variable.allowed_hosts ?? []).join(", "));
    update.reset();
    setEditing(true);
  }
  function onSave(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    update.mutate({ name: variable.name, value, secret, flow_id: variable.flow_id, ...(secret ? { allowed_hosts: parseHosts(hosts) } : {}) });
  }
  const info = update.error ? errorInfo(update.error) : null;
  const allowedHostsError = hostsError(info?.fields);
  return (
    <tr>
      <NameCell error={remove.error}>
        <code>{variable.name}</code>
        {variable.secret ? <span className="badge">Secret</span> : null}
      </NameCell>
      <td data-label="Scope">{scope}</td>
      <td data-label="Value">
        {editing ? (
          <form method="post" onSubmit={onSave} className="inline-edit">
            <Field
              id={fieldId}
              label={`New value for ${variable.name}`}
              type={secret ? "password" : "text"}
              autoComplete="off"
              value={value}
              onChange={(e) => setValue(e.target.value)}
              error={fieldMessage("Value", info?.fields.value) ?? (update.error && !info?.fields.value && !allowedHostsError ? (commonErrorMessage(update.error) ?? undefined) : undefined)}
            />
            <div className="checkbox">
              <input id={`${fieldId}-secret`} type="checkbox" checked={secret} onChange={(e) => setSecret(e.target.checked)} />
              <label htmlFor={`${fieldId}-secret`}>Secret</label>
            </div>
            {secret ? (
              <Field
                id={`${fieldId}-hosts`}
                label={`Allowed hosts for ${variable.name}`}
                hint={HOSTS_HINT}
                autoComplete="off"
                spellCheck={false}
                value={hosts}
                onChange={(e) => setHosts(e.target.value)}
                error={allowedHostsError}
              />
            ) : null}
            <FormFooter>
              <SubmitButton className="small" pending={update.isPending} pendingLabel="Saving…">
                Save
              </SubmitButton>
              <button type="button" className="secondary small" onClick={() => setEditing(false)}>
                Cancel
              </button>
            </FormFooter>
          </form>
        ) : variable.secret ? (
          <>
            <span className="muted">Hidden</span>
            {variable.allowed_hosts ? (
              <span className="hint allowed-hosts">
                {" "}
                Only to{" "}
                {variable.allowed_hosts.map((h, i) => (
                  <span key={h}>
                    {i > 0 ? ", " : null}
                    <code>{h}</code>
                  </span>
                ))}
              </span>
            ) : null}
          </>
        ) : (
          <code className="value">{variable.value}</code>
        )}
      </td>
      <td data-label="Updated">{formatDateTime(prefs, variable.updated_at)}</td>
      <td className="row-actions">
        {writable && !editing ? (
          <>
            <PendingButton className="secondary small" aria-label={`Edit ${variable.name} (${scope})`} pending={false} pendingLabel="" onClick={startEdit}>
              Edit
            </PendingButton>
            <ConfirmButton
              className="secondary small"
              aria-label={`Delete ${variable.name} (${scope})`}
              pending={remove.isPending}
              pendingLabel="Deleting…"
              title={`Delete the variable “${variable.name}”?`}
              message={<p>Nodes that use {"${" + variable.name + "}"} get an empty value from now on (or the organization&apos;s, for a flow&apos;s variable).</p>}
              confirmLabel="Delete variable"
              onConfirm={() => remove.mutate({ name: variable.name, flow_id: variable.flow_id })}
            >
              Delete
            </ConfirmButton>
          </>
        ) : null}
      </td>
    </tr>
  );
}
