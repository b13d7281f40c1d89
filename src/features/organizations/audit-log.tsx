"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Alert } from "@/components/alert";
import { PendingButton } from "@/components/buttons";
import { DataTable } from "@/components/data-table";
import { commonErrorMessage } from "@/features/accounts/messages";
import { formatDateTime, type DisplayPrefs } from "@/features/settings/format";
import { useTRPC } from "@/trpc/react";
import type { AuditEntry, Member } from "./types";

const PAGE_SIZE = 25;

/** The actions the server records, in the words of the filter. */
const actionLabels: Record<string, string> = {
  "user.login_succeeded": "Logged in",
  "user.login_failed": "Failed login",
  "user.logout": "Logged out",
  "user.registered": "Registered",
  "user.email_verified": "Verified email",
  "user.password_changed": "Changed password",
  "user.password_reset_requested": "Requested password reset",
  "user.password_reset": "Reset password",
  "user.mfa_enabled": "Turned on two-factor authentication",
  "user.mfa_disabled": "Turned off two-factor authentication",
  "user.mfa_failed": "Failed two-factor code",
  "user.backup_codes_regenerated": "Replaced backup codes",
  "user.backup_code_used": "Used a backup code",
  "user.session_revoked": "Revoked a session",
  "user.refresh_token_reused": "Refresh token reused (session ended)",
  "user.organization_switched": "Switched organization",
  "user.profile_updated": "Updated profile",
  "user.deleted": "Deleted account",
  "organization.created": "Created organization",
  "organization.renamed": "Renamed organization",
  "organization.deleted": "Deleted organization",
  "member.invited": "Invited a member",
  "member.invitation_revoked": "Revoked an invitation",
  "member.joined": "Joined",
  "member.role_changed": "Changed a role",
  "member.removed": "Removed a member",
  "api_key.created": "Created an API key",
  "api_key.revoked": "Revoked an API key",
  "flow.created": "Created a flow",
  "flow.deployed": "Deployed a flow",
  "flow.rolled_back": "Rolled back a flow",
  "flow.deleted": "Deleted a flow",
};

const targetLabels: Record<string, string> = {
  user: "User",
  session: "Session",
  organization: "Organization",
  invitation: "Invitation",
  api_key: "API key",
  flow: "Flow",
  deployment: "Deployment",
};

function metadataText(entry: AuditEntry): string | null {
  const m = entry.metadata;
  if (!m) return null;
  if (typeof m.from === "string" && typeof m.to === "string") return `${m.from} → ${m.to}`;
  const parts = Object.entries(m)
    .filter(([k, v]) => k !== "email" && (typeof v === "string" || typeof v === "number" || typeof v === "boolean"))
    .map(([k, v]) => `${k}: ${String(v)}`);
  return parts.length > 0 ? parts.join(", ") : null;
}

function Target({ entry, people }: { entry: AuditEntry; people: Map<string, string> }) {
  if (!entry.target_type && !entry.target_id) return <span className="muted">—</span>;
  const email = typeof entry.metadata?.email === "string" ? entry.metadata.email : null;
  const person = entry.target_type === "user" && entry.target_id ? people.get(entry.target_id) : undefined;
  return (
    <>
      <span>{entry.target_type ? (targetLabels[entry.target_type] ?? entry.target_type) : null}</span>{" "}
      {person ?? email ? <span>{person ?? email}</span> : null}
      {entry.target_id ? (
        <div className="hint">
          <code>{entry.target_id}</code>
        </div>
      ) : null}
    </>
  );
}

export function AuditLog({ organizationId, prefs }: { organizationId: string; prefs: DisplayPrefs }) {
  const trpc = useTRPC();
  const [action, setAction] = useState("");
  const log = useInfiniteQuery(
    trpc.audit.list.infiniteQueryOptions(
      { limit: PAGE_SIZE, action: action || undefined },
      { getNextPageParam: (page) => page.next_cursor ?? undefined, staleTime: 0 },
    ),
  );
  // Actors and targets by name: the members (former members stay ids).
  const members = useQuery(trpc.organizations.members.queryOptions({ id: organizationId }));
  const people = new Map<string, string>((members.data?.members ?? []).map((m: Member) => [m.user_id, m.email]));
  const entries = log.data?.pages.flatMap((p) => p.entries) ?? [];

  return (
    <section className="card" aria-labelledby="audit-heading">
      <div className="section-head">
        <h2 id="audit-heading">Events</h2>
        <div className="field inline">
          <label htmlFor="audit-action">Action</label>
          <select id="audit-action" value={action} onChange={(e) => setAction(e.target.value)}>
            <option value="">All actions</option>
            {Object.entries(actionLabels).map(([value, label]) => (
              <option key={value} value={value}>
                {label} ({value})
              </option>
            ))}
          </select>
        </div>
      </div>
      {log.error ? <Alert kind="error">{commonErrorMessage(log.error)}</Alert> : null}
      {log.isPending ? (
        <p role="status">Loading events…</p>
      ) : entries.length === 0 ? (
        <p className="muted">{action ? "No events with this action." : "No events yet."}</p>
      ) : (
        <DataTable className="compact audit stack-on-phone" columns={["Time", "Actor", "Action", "Target", "IP address"]}>
          {entries.map((e) => {
            const details = metadataText(e);
            return (
              <tr key={e.id}>
                <td data-label="Time">{formatDateTime(prefs, e.created_at)}</td>
                <td data-label="Actor">{e.actor_id ? (people.get(e.actor_id) ?? <code>{e.actor_id}</code>) : <span className="muted">System</span>}</td>
                <td data-label="Action">
                  {actionLabels[e.action] ?? e.action}
                  <div className="hint">
                    <code className="action-code">{e.action}</code>
                    {details ? ` · ${details}` : null}
                  </div>
                </td>
                <td data-label="Target">
                  <Target entry={e} people={people} />
                </td>
                <td data-label="IP address">{e.ip_address ?? <span className="muted">—</span>}</td>
              </tr>
            );
          })}
        </DataTable>
      )}
      <div className="actions spread">
        <span className="muted" role="status">
          {entries.length === 0 ? "" : log.hasNextPage ? `Showing the latest ${entries.length} events.` : `Showing all ${entries.length} ${entries.length === 1 ? "event" : "events"}.`}
        </span>
        {log.hasNextPage ? (
          <PendingButton className="secondary" pending={log.isFetchingNextPage} pendingLabel="Loading…" onClick={() => void log.fetchNextPage()}>
            Load more
          </PendingButton>
        ) : null}
      </div>
    </section>
  );
}
