"use client";

import { can } from "./roles";
import type { Invitation, Member } from "./types";
import { InvitationsSection } from "./members/invitations-section";
import { InviteSection } from "./members/invite-section";
import { MembersSection } from "./members/members-section";
import type { Viewer } from "./members/viewer";

/** The members page: the members, then (for those who may invite) the invite form and pending invitations. */
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
