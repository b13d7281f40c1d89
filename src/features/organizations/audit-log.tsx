"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Alert } from "@/components/alert";
import { PendingButton } from "@/components/buttons";
import { DataTable } from "@/components/data-table";
import { commonErrorMessage } from "@/features/accounts/messages";
import { formatDateTime, type DisplayPrefs } from "@/features/settings/format";
import { AUDIT_ACTION_LABELS, AUDIT_TARGET_LABELS, auditActionLabel } from "@/shared/audit-actions";
import { useTRPC } from "@/trpc/react";
import type { AuditEntry, Member } from "./types";

const PAGE_SIZE = 25;

function metadataText(entry: AuditEntry): string | null {
  const m = entry.metadata;
  if (!m) return null;
  if (typeof m.from === "string" && typeof m.to === "string") return `${m.from} → ${m.to}`;
  const parts = Object.entries(m)
    .filter(([k, v]) => k !== "email" && k !== "name" && (typeof v === "string" || typeof v === "number" || typeof v === "boolean"))
    .map(([k, v]) => `${k}: ${String(v)}`);
  return parts.length > 0 ? parts.join(", ") : null;
}

function Target({ entry, people }: { entry: AuditEntry; people: Map<string, string> }) {
  if (!entry.target_type && !entry.target_id) return <span className="muted">—</span>;
  const email = typeof entry.metadata?.email === "string" ? entry.metadata.email : null;
  // What the target was called when this happened (a flow, a key, a configuration node…), gone or renamed since.
  const name = typeof entry.metadata?.name === "string" && entry.metadata.name !== "" ? entry.metadata.name : null;
  const person = entry.target_type === "user" && entry.target_id ? people.get(entry.target_id) : undefined;
  return (
    <>
      <span>{entry.target_type ? (AUDIT_TARGET_LABELS[entry.target_type] ?? entry.target_type) : null}</span>{" "}
      {person ?? email ?? name ? <span>{person ?? email ?? `“${name}”`}</span> : null}
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
            {Object.entries(AUDIT_ACTION_LABELS).map(([value, label]) => (
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
                  {auditActionLabel(e.action)}
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
