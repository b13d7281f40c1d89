"use client";

import { useState, type FormEvent } from "react";
import { useRouter } from "next/navigation";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { FormFooter, PendingButton, SubmitButton } from "@/components/buttons";
import { ACTIONS_COLUMN, DataTable, RowError } from "@/components/data-table";
import { ConfirmButton } from "@/components/dialog";
import { Field, SelectField } from "@/components/field";
import { commonErrorMessage, fieldMessage } from "@/features/accounts/messages";
import { formatDate, type DisplayPrefs } from "@/features/settings/format";
import { errorInfo, useTRPC } from "@/trpc/react";
import type { Role } from "@/shared/permissions";
import { asRole, assignableRoles, can, canManageMember, roleDescriptions, roleLabels } from "./roles";
import type { Invitation, Member } from "./types";

interface Viewer {
  userId: string;
  role: Role;
  organizationId: string;
  organizationName: string;
  prefs: DisplayPrefs;
}

function memberName(m: Member): string {
  return [m.first_name, m.last_name].filter(Boolean).join(" ");
}

function memberErrorMessage(error: unknown, viewer: Viewer, member: Member): string {
  const info = errorInfo(error);
  switch (info.code) {
    case "LAST_OWNER":
      return `${viewer.organizationName} must keep at least one owner. Make someone else an owner first.`;
    case "FORBIDDEN":
      return `You cannot change ${member.email}: nobody can grant a role above their own, and only owners change owners.`;
    case "NOT_FOUND":
      return `${member.email} is not a member any more.`;
    default:
      return commonErrorMessage(error) ?? "Something went wrong. Please try again.";
  }
}

function MemberRow({ member, viewer }: { member: Member; viewer: Viewer }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.organizations.members.queryKey() });
  const isMe = member.user_id === viewer.userId;
  const [role, setRole] = useState<Role>(member.role);
  const update = useMutation(
    trpc.organizations.updateMember.mutationOptions({
      onSuccess: async () => {
        await invalidate();
        // My own role changed: the page's controls (rendered for my role) must follow.
        if (isMe) router.refresh();
      },
    }),
  );
  const remove = useMutation(trpc.organizations.removeMember.mutationOptions({ onSuccess: invalidate }));
  const canUpdate = canManageMember(viewer.role, member.role, "members:update");
  const canRemove = !isMe && canManageMember(viewer.role, member.role, "members:remove");
  const name = memberName(member);
  const error = update.error ?? remove.error;
  const errorId = `member-${member.user_id}-error`;

  return (
    <tr>
      <td>
        <div>
          {name || member.email}
          {isMe ? <span className="badge ok">You</span> : null}
        </div>
        {name ? <div className="hint">{member.email}</div> : null}
      </td>
      <td>
        {canUpdate ? (
          <div className="role-edit">
            <select
              aria-label={`Role for ${member.email}`}
              aria-describedby={error ? errorId : undefined}
              aria-invalid={error ? true : undefined}
              value={role}
              onChange={(e) => {
                setRole(asRole(e.target.value));
                update.reset();
              }}
            >
              {assignableRoles(viewer.role).map((r) => (
                <option key={r} value={r}>
                  {roleLabels[r]}
                </option>
              ))}
            </select>
            {role !== member.role ? (
              <PendingButton
                className="small"
                aria-label={`Save role for ${member.email}`}
                pending={update.isPending}
                pendingLabel="Saving…"
                onClick={() => update.mutate({ id: viewer.organizationId, user_id: member.user_id, role })}
              >
                Save
              </PendingButton>
            ) : null}
          </div>
        ) : (
          roleLabels[member.role]
        )}
        {error ? <RowError id={errorId}>{memberErrorMessage(error, viewer, member)}</RowError> : null}
      </td>
      <td className="nowrap">{formatDate(viewer.prefs, member.joined_at)}</td>
      <td className="row-actions">
        {canRemove ? (
          <ConfirmButton
            className="secondary small"
            aria-label={`Remove ${member.email}`}
            pending={remove.isPending}
            pendingLabel="Removing…"
            title={`Remove ${member.email} from ${viewer.organizationName}?`}
            message={<p>They lose access to the organization at once. You can invite them again later.</p>}
            confirmLabel="Remove member"
            onConfirm={() => {
              update.reset();
              remove.mutate({ id: viewer.organizationId, user_id: member.user_id });
            }}
          >
            Remove
          </ConfirmButton>
        ) : null}
      </td>
    </tr>
  );
}

function MembersSection({ viewer, initialMembers }: { viewer: Viewer; initialMembers: Member[] }) {
  const trpc = useTRPC();
  const members = useQuery({
    ...trpc.organizations.members.queryOptions({ id: viewer.organizationId }),
    initialData: { members: initialMembers },
  });
  const list = members.data?.members ?? initialMembers;
  const manages = can(viewer.role, "members:update");
  return (
    <section className="card" aria-labelledby="members-heading">
      <h2 id="members-heading">
        All members <span className="count">({list.length})</span>
      </h2>
      {manages ? null : <p className="hint">Only admins and owners can change roles or remove members.</p>}
      {members.error ? <Alert kind="error">{commonErrorMessage(members.error)}</Alert> : null}
      <DataTable columns={["Member", "Role", "Joined", ACTIONS_COLUMN]}>
        {list.map((m) => (
          // Keyed by role too, so a row's unsaved choice resets when the server's role changes.
          <MemberRow key={`${m.user_id}:${m.role}`} member={m} viewer={viewer} />
        ))}
      </DataTable>
    </section>
  );
}

function InviteSection({ viewer }: { viewer: Viewer }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const roles = assignableRoles(viewer.role);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("member");
  const invite = useMutation(
    trpc.organizations.invite.mutationOptions({
      onSuccess: () => {
        setEmail("");
        return queryClient.invalidateQueries({ queryKey: trpc.organizations.invitations.queryKey() });
      },
    }),
  );

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    invite.mutate({ id: viewer.organizationId, email, role });
  }

  const info = invite.error ? errorInfo(invite.error) : null;
  const emailError = info?.code === "EMAIL_TAKEN" ? "This person is a member already." : fieldMessage("Email", info?.fields.email);
  const alert =
    info?.code === "FORBIDDEN"
      ? `You cannot invite someone as ${roleLabels[role].toLowerCase()}: nobody grants a role above their own.`
      : invite.error && !emailError
        ? commonErrorMessage(invite.error)
        : null;
  return (
    <section className="card" aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite a member</h2>
      <p className="hint">We email them a link that is valid for 7 days. They join when they accept it, signed in with this address.</p>
      <form onSubmit={onSubmit}>
        {alert ? <Alert kind="error">{alert}</Alert> : null}
        {invite.isSuccess ? <Alert kind="ok">Invitation sent to {invite.data.invitation.email}.</Alert> : null}
        <div className="field-row">
          <Field
            id="invite-email"
            label="Email"
            type="email"
            autoComplete="off"
            required
            value={email}
            onChange={(e) => {
              setEmail(e.target.value);
              if (invite.isError) invite.reset();
            }}
            error={emailError}
          />
          <SelectField
            id="invite-role"
            label="Role"
            options={roles}
            optionLabels={roleLabels}
            value={role}
            onChange={(e) => setRole(asRole(e.target.value))}
            hint={`${roleLabels[role]}: ${roleDescriptions[role]}.`}
          />
        </div>
        <FormFooter>
          <SubmitButton pending={invite.isPending} pendingLabel="Sending…">
            Send invitation
          </SubmitButton>
        </FormFooter>
      </form>
    </section>
  );
}

function InvitationRow({ invitation, viewer }: { invitation: Invitation; viewer: Viewer }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const revoke = useMutation(
    trpc.organizations.revokeInvitation.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.organizations.invitations.queryKey() }),
    }),
  );
  return (
    <tr>
      <td>
        {invitation.email}
        {revoke.error ? <RowError>{commonErrorMessage(revoke.error)}</RowError> : null}
      </td>
      <td>{roleLabels[invitation.role]}</td>
      <td className="nowrap">{formatDate(viewer.prefs, invitation.created_at)}</td>
      <td className="nowrap">{formatDate(viewer.prefs, invitation.expires_at)}</td>
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

function InvitationsSection({ viewer, initialInvitations }: { viewer: Viewer; initialInvitations: Invitation[] }) {
  const trpc = useTRPC();
  const invitations = useQuery({
    ...trpc.organizations.invitations.queryOptions({ id: viewer.organizationId }),
    initialData: { invitations: initialInvitations },
  });
  const list = invitations.data?.invitations ?? initialInvitations;
  return (
    <section className="card" aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Pending invitations</h2>
      {invitations.error ? <Alert kind="error">{commonErrorMessage(invitations.error)}</Alert> : null}
      {list.length === 0 ? (
        <p className="muted">No pending invitations.</p>
      ) : (
        <DataTable columns={["Email", "Role", "Sent", "Expires", ACTIONS_COLUMN]}>
          {list.map((inv) => (
            <InvitationRow key={inv.id} invitation={inv} viewer={viewer} />
          ))}
        </DataTable>
      )}
    </section>
  );
}

export function MembersSettings({
  viewer,
  initialMembers,
  initialInvitations,
}: {
  viewer: Viewer;
  initialMembers: Member[];
  initialInvitations: Invitation[] | null;
}) {
  return (
    <>
      <MembersSection viewer={viewer} initialMembers={initialMembers} />
      {can(viewer.role, "members:invite") && initialInvitations ? (
        <>
          <InviteSection viewer={viewer} />
          <InvitationsSection viewer={viewer} initialInvitations={initialInvitations} />
        </>
      ) : null}
    </>
  );
}
