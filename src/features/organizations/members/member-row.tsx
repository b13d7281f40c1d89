"use client";

import { useState } from "react";
import { useRouter } from "next/navigation";
import { useMutation } from "@tanstack/react-query";
import { PendingButton } from "@/components/buttons";
import { RowError } from "@/components/data-table";
import { ConfirmButton } from "@/components/dialog";
import { commonErrorMessage } from "@/features/accounts/messages";
import { formatDate } from "@/features/settings/format";
import { errorInfo, useInvalidate, useTRPC } from "@/trpc/react";
import type { Role } from "@/shared/permissions";
import { asRole, assignableRoles, canManageMember, roleLabels } from "../roles";
import type { Member } from "../types";
import type { Viewer } from "./viewer";

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

/** The role select of a member the viewer may manage, with Save once the choice differs. */
function RoleEditor({
  member,
  viewer,
  role,
  onChoose,
  onSave,
  saving,
  errorId,
}: {
  member: Member;
  viewer: Viewer;
  role: Role;
  onChoose: (role: Role) => void;
  onSave: () => void;
  saving: boolean;
  errorId?: string;
}) {
  return (
    <div className="role-edit">
      <select
        aria-label={`Role for ${member.email}`}
        aria-describedby={errorId}
        aria-invalid={errorId ? true : undefined}
        value={role}
        onChange={(e) => onChoose(asRole(e.target.value))}
      >
        {assignableRoles(viewer.role).map((r) => (
          <option key={r} value={r}>
            {roleLabels[r]}
          </option>
        ))}
      </select>
      {role !== member.role ? (
        <PendingButton className="small" aria-label={`Save role for ${member.email}`} pending={saving} pendingLabel="Saving…" onClick={onSave}>
          Save
        </PendingButton>
      ) : null}
    </div>
  );
}

/** One member: name and email, role (editable within the viewer's reach), joined, and Remove. */
export function MemberRow({ member, viewer }: { member: Member; viewer: Viewer }) {
  const trpc = useTRPC();
  const router = useRouter();
  const invalidate = useInvalidate();
  const isMe = member.user_id === viewer.userId;
  const [role, setRole] = useState<Role>(member.role);
  const update = useMutation(
    trpc.organizations.updateMember.mutationOptions({
      onSuccess: async () => {
        await invalidate(trpc.organizations.members.queryKey());
        // My own role changed: the page's controls (rendered for my role) must follow.
        if (isMe) router.refresh();
      },
    }),
  );
  const remove = useMutation(trpc.organizations.removeMember.mutationOptions({ onSuccess: () => invalidate(trpc.organizations.members.queryKey()) }));
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
          <RoleEditor
            member={member}
            viewer={viewer}
            role={role}
            onChoose={(next) => {
              setRole(next);
              update.reset();
            }}
            onSave={() => update.mutate({ id: viewer.organizationId, user_id: member.user_id, role })}
            saving={update.isPending}
            errorId={error ? errorId : undefined}
          />
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
