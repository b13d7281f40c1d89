import { z } from "zod";
import { authedProcedure, router, sessionProcedure, requestMeta } from "../trpc";
import * as s from "../../services/organizations/organization.schemas";
import * as orgs from "../../services/organizations/organizations";
import * as members from "../../services/organizations/members";

const tags = ["organizations"];
const noContent = z.void();

export const organizationsRouter = router({
  list: sessionProcedure
    .meta({ permission: "account:self", rest: { method: "GET", path: "/organizations" }, summary: "My organizations, with my role in each", tags })
    .output(s.listOrganizationsOutput)
    .query(({ ctx }) => orgs.listMyOrganizations(ctx.services, ctx.principal)),

  create: sessionProcedure
    .meta({ permission: "org:create", rest: { method: "POST", path: "/organizations", status: 201 }, summary: "Create an organization; I become its owner", tags })
    .input(s.createOrganizationInput)
    .output(s.organizationOutput)
    .mutation(({ ctx, input }) => orgs.createOrganization(ctx.services, ctx.principal, input, requestMeta(ctx))),

  get: authedProcedure
    .meta({ permission: "org:read", rest: { method: "GET", path: "/organizations/{id}" }, summary: "The current organization", tags })
    .input(s.orgIdInput)
    .output(s.organizationOutput)
    .query(({ ctx, input }) => orgs.getOrganization(ctx.services, ctx.principal, input.id)),

  update: authedProcedure
    .meta({ permission: "org:update", rest: { method: "PATCH", path: "/organizations/{id}" }, summary: "Rename the organization (owner)", tags })
    .input(s.updateOrganizationInput)
    .output(s.organizationOutput)
    .mutation(({ ctx, input }) => orgs.renameOrganization(ctx.services, ctx.principal, input, requestMeta(ctx))),

  delete: authedProcedure
    .meta({ permission: "org:delete", rest: { method: "DELETE", path: "/organizations/{id}", status: 204 }, summary: "Delete the organization (owner; soft delete)", tags })
    .input(s.orgIdInput)
    .output(noContent)
    .mutation(({ ctx, input }) => orgs.deleteOrganization(ctx.services, ctx.principal, input.id, requestMeta(ctx))),

  members: authedProcedure
    .meta({ permission: "org:read", rest: { method: "GET", path: "/organizations/{id}/members" }, summary: "Members and their roles", tags })
    .input(s.orgIdInput)
    .output(s.membersOutput)
    .query(({ ctx, input }) => members.listMembers(ctx.services, ctx.principal, input.id)),

  updateMember: authedProcedure
    .meta({
      permission: "members:update",
      rest: { method: "PATCH", path: "/organizations/{id}/members/{user_id}" },
      summary: "Change a member's role",
      description: "Nobody grants a role above their own; only owners grant or revoke owner; the last owner stays (409 `LAST_OWNER`).",
      tags,
    })
    .input(s.updateMemberInput)
    .output(s.memberOutput)
    .mutation(({ ctx, input }) => members.updateMemberRole(ctx.services, ctx.principal, input, requestMeta(ctx))),

  removeMember: authedProcedure
    .meta({ permission: "members:remove", rest: { method: "DELETE", path: "/organizations/{id}/members/{user_id}", status: 204 }, summary: "Remove a member; their sessions in this organization end", tags })
    .input(s.memberInput)
    .output(noContent)
    .mutation(({ ctx, input }) => members.removeMember(ctx.services, ctx.principal, input, requestMeta(ctx))),

  invite: authedProcedure
    .meta({ permission: "members:invite", rest: { method: "POST", path: "/organizations/{id}/invitations", status: 201 }, summary: "Invite someone by email with a role (link valid 7 days)", tags })
    .input(s.createInvitationInput)
    .output(s.invitationOutput)
    .mutation(({ ctx, input }) => members.inviteMember(ctx.services, ctx.principal, input, requestMeta(ctx))),

  invitations: authedProcedure
    .meta({ permission: "members:invite", rest: { method: "GET", path: "/organizations/{id}/invitations" }, summary: "Pending invitations", tags })
    .input(s.orgIdInput)
    .output(s.invitationsOutput)
    .query(({ ctx, input }) => members.listInvitations(ctx.services, ctx.principal, input.id)),

  revokeInvitation: authedProcedure
    .meta({ permission: "members:invite", rest: { method: "DELETE", path: "/organizations/{id}/invitations/{invitation_id}", status: 204 }, summary: "Revoke a pending invitation", tags })
    .input(s.revokeInvitationInput)
    .output(noContent)
    .mutation(({ ctx, input }) => members.revokeInvitation(ctx.services, ctx.principal, input, requestMeta(ctx))),

  acceptInvitation: sessionProcedure
    .meta({ permission: "account:self", rest: { method: "POST", path: "/invitations/accept" }, summary: "Join an organization with an invitation token (my email must be the invited one)", tags })
    .input(s.acceptInvitationInput)
    .output(s.acceptInvitationOutput)
    .mutation(({ ctx, input }) => members.acceptInvitation(ctx.services, ctx.principal, input.token, requestMeta(ctx))),
});
