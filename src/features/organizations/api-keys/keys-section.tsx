"use client";

import { useState } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { Card } from "@/components/card";
import { ACTIONS_COLUMN, DataTable } from "@/components/data-table";
import { ConfirmButton } from "@/components/dialog";
import { commonErrorMessage } from "@/features/accounts/messages";
import { formatDate, formatDateTime, type DisplayPrefs } from "@/features/settings/format";
import { useInvalidate, useTRPC } from "@/trpc/react";
import type { Role } from "@/shared/permissions";
import { can } from "../roles";
import { NameCell } from "../name-cell";
import type { ApiKey } from "../types";

function KeyRow({ apiKey, prefs, now }: { apiKey: ApiKey; prefs: DisplayPrefs; now: number }) {
  const trpc = useTRPC();
  const invalidate = useInvalidate();
  const revoke = useMutation(trpc.apiKeys.revoke.mutationOptions({ onSuccess: () => invalidate(trpc.apiKeys.list.queryKey()) }));
  const expired = apiKey.expires_at !== null && Date.parse(apiKey.expires_at) <= now;
  const never = <span className="muted">Never</span>;
  return (
    <tr>
      <NameCell error={revoke.error}>{apiKey.name}</NameCell>
      <td data-label="Prefix">
        <code>{apiKey.prefix}…</code>
      </td>
      <td data-label="Kind">{apiKey.kind === "device" ? "Device" : "User"}</td>
      <td data-label="Scopes">
        <ul className="tags">
          {apiKey.scopes.map((s) => (
            <li key={s} className="tag">
              {s}
            </li>
          ))}
        </ul>
      </td>
      <td data-label="Created">{formatDate(prefs, apiKey.created_at)}</td>
      <td data-label="Last used">{apiKey.last_used_at ? formatDateTime(prefs, apiKey.last_used_at) : never}</td>
      <td data-label="Expires">
        {apiKey.expires_at ? formatDate(prefs, apiKey.expires_at) : never}
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

/** The keys the viewer may see (admins: all of the organization's), each with its Revoke button. */
export function KeysSection({ role, prefs, initialKeys }: { role: Role; prefs: DisplayPrefs; initialKeys: ApiKey[] }) {
  const trpc = useTRPC();
  const keys = useQuery({ ...trpc.apiKeys.list.queryOptions(), initialData: { api_keys: initialKeys } });
  const list = keys.data?.api_keys ?? initialKeys;
  // When the page opened: "Expired" badges do not flip while someone looks at them.
  const [now] = useState(Date.now);
  return (
    <Card headingId="keys-heading" title="Active keys">
      <p className="hint">{can(role, "api_keys:manage_all") ? "Every key of the organization." : "The keys you created."}</p>
      {keys.error ? <Alert kind="error">{commonErrorMessage(keys.error)}</Alert> : null}
      {list.length === 0 ? (
        <p className="muted">No API keys yet.</p>
      ) : (
        <DataTable className="compact stack-on-phone" columns={KEY_COLUMNS}>
          {list.map((k) => (
            <KeyRow key={k.id} apiKey={k} prefs={prefs} now={now} />
          ))}
        </DataTable>
      )}
    </Card>
  );
}
