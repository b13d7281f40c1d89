"use client";

import { useQuery } from "@tanstack/react-query";
import { Alert } from "@/components/alert";
import { Card } from "@/components/card";
import { ACTIONS_COLUMN, DataTable } from "@/components/data-table";
import { commonErrorMessage } from "@/features/accounts/messages";
import { useTRPC } from "@/trpc/react";
import { can } from "../roles";
import type { Member } from "../types";
import { MemberRow } from "./member-row";
import type { Viewer } from "./viewer";

/** Every member of the organization, each row with the controls the viewer's role allows. */
export function MembersSection({ viewer, initialMembers }: { viewer: Viewer; initialMembers: Member[] }) {
  const trpc = useTRPC();
  const members = useQuery({
    ...trpc.organizations.members.queryOptions({ id: viewer.organizationId }),
    initialData: { members: initialMembers },
  });
  const list = members.data?.members ?? initialMembers;
  const manages = can(viewer.role, "members:update");
  return (
    <Card
      headingId="members-heading"
      title={
        <>
          All members <span className="count">({list.length})</span>
        </>
      }
    >
      {manages ? null : <p className="hint">Only admins and owners can change roles or remove members.</p>}
      {members.error ? <Alert kind="error">{commonErrorMessage(members.error)}</Alert> : null}
      <DataTable columns={["Member", "Role", "Joined", ACTIONS_COLUMN]}>
        {list.map((m) => (
          // Keyed by role too, so a row's unsaved choice resets when the server's role changes.
          <MemberRow key={`${m.user_id}:${m.role}`} member={m} viewer={viewer} />
        ))}
      </DataTable>
    </Card>
  );
}
