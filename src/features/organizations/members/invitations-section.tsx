"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { PendingButton } from "@/components/buttons";
import { Card } from "@/components/card";
import { ACTIONS_COLUMN, DataTable } from "@/components/data-table";
import { commonErrorMessage } from "@/features/accounts/messages";
import { formatDate } from "@/features/settings/format";
import { useInvalidate, useTRPC } from "@/trpc/react";
import { roleLabels } from "../roles";
import type { Invitation } from "../types";
import { NameCell } from "../name-cell";
import type { Viewer } from "./viewer";

function InvitationRow({ invitation, viewer }: { invitation: Invitation; viewer: Viewer }) {
  const trpc = useTRPC();
  const invalidate = useInvalidate();
  const revoke = useMutation(trpc.organizations.revokeInvitation.mutationOptions({ onSuccess: () => invalidate(trpc.organizations.invitations.queryKey()) }));
  return (
    <tr>
      <NameCell error={revoke.error}>{invitation.email}</NameCell>
      <td data-label="Role">{roleLabels[invitation.role]}</td>
      <td className="nowrap" data-label="Sent">{formatDate(viewer.prefs, invitation.created_at)}</td>
      <td className="nowrap" data-label="Expires">{formatDate(viewer.prefs, invitation.expires_at)}</td>
      <td className="row-actions">
        <PendingButton
          className="secondary small"
          aria-label={`Revoke invitation for ${invitation.email}`}
          pending={revoke.isPending}
          pendingLabel="Revoking…"
          onClick={() => revoke.mutate({ id: viewer.organizationId, invitation_id: invitation.id })}
        >
          Revoke
        </PendingButton>
      </td>
    </tr>
  );
}

/** Invitations not yet accepted, revoked or expired, each with its Revoke button. */
export function InvitationsSection({ viewer, initialInvitations }: { viewer: Viewer; initialInvitations: Invitation[] }) {
  const trpc = useTRPC();
  const invitations = useQuery({
    ...trpc.organizations.invitations.queryOptions({ id: viewer.organizationId }),
    initialData: { invitations: initialInvitations },
  });
  const list = invitations.data?.invitations ?? initialInvitations;
  return (
    <Card headingId="invitations-heading" title="Pending invitations">
      {invitations.error ? <Alert kind="error">{commonErrorMessage(invitations.error)}</Alert> : null}
      {list.length === 0 ? (
        <p className="muted">No pending invitations.</p>
      ) : (
        <DataTable className="stack-on-phone" columns={["Email", "Role", "Sent", "Expires", ACTIONS_COLUMN]}>
          {list.map((inv) => (
            <InvitationRow key={inv.id} invitation={inv} viewer={viewer} />
          ))}
        </DataTable>
      )}
    </Card>
  );
}
