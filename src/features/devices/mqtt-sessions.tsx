"use client";

import { useEffect, useRef, useState } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { Card } from "@/components/card";
import { ACTIONS_COLUMN, DataTable, RowError } from "@/components/data-table";
import { ConfirmButton } from "@/components/dialog";
import { commonErrorMessage } from "@/features/accounts/messages";
import { formatDateTime, type DisplayPrefs } from "@/features/settings/format";
import { formatBytes } from "@/shared/file-paths";
import { useInvalidate, useTRPC } from "@/trpc/react";
import type { RouterOutputs } from "@/trpc/types";

export type MqttSessions = RouterOutputs["devices"]["mqttSessions"];
type Session = MqttSessions["sessions"][number];

const COLUMNS = ["Client id", "State", "Subscriptions", "Queued", "Ends", ACTIONS_COLUMN] as const;
/** Sessions come and go with their clients, and queues grow while they are away: read again this often. */
const REFRESH_MS = 5_000;

/**
 * The built-in broker's persistent sessions (SPEC §20): what each keeps while its client is away,
 * against the organization's bound on queued bytes; admins end an abandoned one, which gives its
 * queue's room back to the others.
 */
export function MqttSessionsCard({ initial, canWrite, prefs }: { initial: MqttSessions | null; canWrite: boolean; prefs: DisplayPrefs }) {
  const trpc = useTRPC();
  // Null when the page could not read them (the broker's store down): read here, and again.
  const query = useQuery({ ...trpc.devices.mqttSessions.queryOptions(), ...(initial ? { initialData: initial } : {}), refetchInterval: REFRESH_MS });
  const data = query.data ?? initial;
  // The row of an ended session goes, with its focused button: the focus and the news go here.
  const [ended, setEnded] = useState<string | null>(null);
  const status = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (ended) status.current?.focus();
  }, [ended]);
  return (
    <Card headingId="mqtt-sessions-heading" title="MQTT sessions">
      <p ref={status} role="status" tabIndex={-1} className={ended ? "alert ok" : "visually-hidden"}>
        {ended ? `Ended the session of ${ended}.` : ""}
      </p>
      {query.error ? <Alert kind="error">{commonErrorMessage(query.error)}</Alert> : null}
      {data ? <SessionsTable data={data} canWrite={canWrite} prefs={prefs} onEnded={setEnded} /> : query.error ? null : <p className="muted">Loading…</p>}
    </Card>
  );
}

function SessionsTable({ data, canWrite, prefs, onEnded }: { data: MqttSessions; canWrite: boolean; prefs: DisplayPrefs; onEnded: (clientId: string) => void }) {
  return (
    <>
      <p className="hint">
        The built-in broker keeps a session for a client that connects with clean session off (MQTT 5: a session expiry): its subscriptions, and the QoS 1 and 2 messages
        published while it is away, until it returns. Queued for all sessions: <strong>{formatBytes(data.queued_bytes)}</strong> of {formatBytes(data.limits.queued_bytes)}
        {" "}(at most {data.limits.queued_messages_per_session.toLocaleString("en")} messages each); past that, newer messages are dropped for sessions that are away.
      </p>
      {data.sessions.length === 0 ? (
        <p className="muted">No persistent sessions.</p>
      ) : (
        <DataTable className="compact devices-table stack-on-phone" columns={COLUMNS}>
          {data.sessions.map((s) => (
            <SessionRow key={s.id} session={s} canWrite={canWrite} prefs={prefs} onEnded={onEnded} />
          ))}
        </DataTable>
      )}
    </>
  );
}

function SessionRow({ session, canWrite, prefs, onEnded }: { session: Session; canWrite: boolean; prefs: DisplayPrefs; onEnded: (clientId: string) => void }) {
  const trpc = useTRPC();
  const invalidate = useInvalidate();
  const end = useMutation(
    trpc.devices.endMqttSession.mutationOptions({
      onSuccess: () => {
        onEnded(session.client_id);
        return invalidate(trpc.devices.mqttSessions.queryKey());
      },
      // Ended meanwhile (404) or not: the list as it is now.
      onError: () => invalidate(trpc.devices.mqttSessions.queryKey()),
    }),
  );
  return (
    <tr data-session-id={session.id}>
      <td>
        <code>{session.client_id}</code>
      </td>
      <td data-label="State">
        <span className={`online-dot ${session.connected ? "online" : "offline"}`} aria-hidden="true" /> {session.connected ? "Connected" : "Away"}
      </td>
      <td data-label="Subscriptions">
        {session.subscriptions.length === 0 ? (
          <span className="muted">None</span>
        ) : (
          <ul className="node-types">
            {session.subscriptions.map((sub) => (
              <li key={sub.topic}>
                <code>{sub.topic}</code> <span className="muted">QoS {sub.qos}</span>
              </li>
            ))}
          </ul>
        )}
      </td>
      <td data-label="Queued">
        {session.queued_messages.toLocaleString("en")} {session.queued_messages === 1 ? "message" : "messages"}
        <div className="muted">{formatBytes(session.queued_bytes)}</div>
      </td>
      <td data-label="Ends">{session.connected ? <span className="muted">Not while connected</span> : session.expires_at ? formatDateTime(prefs, session.expires_at) : <span className="muted">No expiry</span>}</td>
      <td className="row-actions">
        {canWrite ? (
          <>
            <ConfirmButton
              className="secondary small"
              aria-label={`End session ${session.client_id}`}
              pending={end.isPending}
              pendingLabel="Ending…"
              title={`End the session of “${session.client_id}”?`}
              message={
                <p>
                  Its subscriptions and {session.queued_messages.toLocaleString("en")} queued {session.queued_messages === 1 ? "message" : "messages"} are dropped.
                  {session.connected ? " The client is disconnected now, and starts" : " The client starts"} a new session when it connects again.
                </p>
              }
              confirmLabel="End session"
              onConfirm={() => end.mutate({ id: session.id })}
            >
              End session
            </ConfirmButton>
            {end.error ? <RowError>{commonErrorMessage(end.error)}</RowError> : null}
          </>
        ) : null}
      </td>
    </tr>
  );
}
