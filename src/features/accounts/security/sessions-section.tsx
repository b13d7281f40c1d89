"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { FormFooter, PendingButton } from "@/components/buttons";
import { ACTIONS_COLUMN, DataTable } from "@/components/data-table";
import { useTRPC } from "@/trpc/react";
import { commonErrorMessage } from "../messages";
import type { Profile, SessionInfo } from "../types";
import { useInvalidateAccount } from "./use-account-queries";
import { describeUserAgent } from "./user-agent";

/** The part of a session id a person can tell apart: the first characters after "ses_". */
export function shortSessionId(id: string): string {
  return id.replace(/^ses_/, "").slice(0, 8);
}

function dateFormatter(profile: Profile): Intl.DateTimeFormat {
  const options: Intl.DateTimeFormatOptions = { dateStyle: "medium", timeStyle: "short", timeZone: profile.user.timezone };
  try {
    return new Intl.DateTimeFormat(profile.user.locale, options);
  } catch {
    return new Intl.DateTimeFormat("en", { ...options, timeZone: "UTC" });
  }
}

function SessionRow({ session, format, onRevoke, revoking }: { session: SessionInfo; format: Intl.DateTimeFormat; onRevoke: () => void; revoking: boolean }) {
  const short = shortSessionId(session.id);
  return (
    <tr>
      <td data-label="Device">
        <span title={session.user_agent}>{describeUserAgent(session.user_agent)}</span>
        {session.current ? <span className="badge ok">This device</span> : null}
        <div className="hint">
          <code>{short}</code>
        </div>
      </td>
      <td data-label="IP address">{session.ip_address}</td>
      <td data-label="Signed in">{format.format(new Date(session.created_at))}</td>
      <td data-label="Last active">{format.format(new Date(session.last_accessed_at))}</td>
      <td className="row-actions">
        {session.current ? null : (
          <PendingButton className="secondary small" aria-label={`Revoke session ${short}`} pending={revoking} pendingLabel="Revoking…" onClick={onRevoke}>
            Revoke
          </PendingButton>
        )}
      </td>
    </tr>
  );
}

export function SessionsSection({ profile }: { profile: Profile }) {
  const trpc = useTRPC();
  const invalidate = useInvalidateAccount();
  const sessions = useQuery(trpc.auth.sessions.queryOptions());
  const revoke = useMutation(trpc.auth.revokeSession.mutationOptions({ onSettled: () => invalidate.sessions() }));
  const revokeOthers = useMutation(trpc.auth.revokeOtherSessions.mutationOptions({ onSettled: () => invalidate.sessions() }));

  const list = sessions.data?.sessions ?? [];
  // The current session first, then the most recently active.
  const sorted = [...list].sort((a, b) => Number(b.current) - Number(a.current) || b.last_accessed_at.localeCompare(a.last_accessed_at));
  const others = list.filter((s) => !s.current).length;
  const format = dateFormatter(profile);
  const error = revoke.error ?? revokeOthers.error;
  return (
    <section className="card" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Active sessions</h2>
      <p className="hint">Devices where your account is logged in. Revoke any you do not recognise, then change your password.</p>
      {error ? <Alert kind="error">{commonErrorMessage(error)}</Alert> : null}
      {revokeOthers.isSuccess && others === 0 ? <Alert kind="ok">Your other sessions were logged out.</Alert> : null}
      {sessions.isPending ? (
        <p role="status">Loading sessions…</p>
      ) : sessions.error ? (
        <Alert kind="error">{commonErrorMessage(sessions.error)}</Alert>
      ) : (
        <DataTable className="stack-on-phone" columns={["Device", "IP address", "Signed in", "Last active", ACTIONS_COLUMN]}>
          {sorted.map((s) => (
            <SessionRow
              key={s.id}
              session={s}
              format={format}
              revoking={revoke.isPending && revoke.variables?.id === s.id}
              onRevoke={() => revoke.mutate({ id: s.id })}
            />
          ))}
        </DataTable>
      )}
      <FormFooter>
        <PendingButton className="secondary" disabled={others === 0} pending={revokeOthers.isPending} pendingLabel="Logging out…" onClick={() => revokeOthers.mutate()}>
          Log out all other sessions
        </PendingButton>
      </FormFooter>
    </section>
  );
}
