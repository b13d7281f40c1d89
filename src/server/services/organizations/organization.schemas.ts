import { z } from "zod";
import { roles } from "../../permissions";
import { emailSchema, slugSchema } from "../accounts/account.schemas";

export const roleSchema = z.enum(roles);
const idOf = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[\\w-]{10,64}$`), `must be an id starting with ${prefix}_`);
export const orgIdSchema = idOf("org");
export const userIdSchema = idOf("usr");

export const organizationView = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  plan: z.string(),
  created_at: z.string(),
});
export const myOrganizationView = organizationView.extend({ role: roleSchema, current: z.boolean() });

export const listOrganizationsOutput = z.object({ organizations: z.array(myOrganizationView) });
export const createOrganizationInput = z.object({
  name: z.string().trim().min(1, "is required").max(100, "must be at most 100 characters"),
  slug: slugSchema.optional(),
});
export const organizationOutput = z.object({ organization: organizationView });
export const orgIdInput = z.object({ id: orgIdSchema });
export const updateOrganizationInput = z.object({
  id: orgIdSchema,
  name: z.string().trim().min(1, "is required").max(100, "must be at most 100 characters"),
});

export const memberView = z.object({
  user_id: z.string(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  role: roleSchema,
  joined_at: z.string(),
});
export const membersOutput = z.object({ members: z.array(memberView) });
export const memberInput = z.object({ id: orgIdSchema, user_id: userIdSchema });
export const updateMemberInput = memberInput.extend({ role: roleSchema });
export const memberOutput = z.object({ member: memberView });

export const invitationView = z.object({
  id: z.string(),
  email: z.string(),
  role: roleSchema,
  invited_by: z.string(),
  expires_at: z.string(),
  created_at: z.string(),
});
export const createInvitationInput = z.object({ id: orgIdSchema, email: emailSchema, role: roleSchema });
export const invitationOutput = z.object({ invitation: invitationView });
export const invitationsOutput = z.object({ invitations: z.array(invitationView) });
export const revokeInvitationInput = z.object({ id: orgIdSchema, invitation_id: idOf("inv") });
export const acceptInvitationInput = z.object({ token: z.string().min(16, "is not a valid token").max(256, "is not a valid token") });
export const acceptInvitationOutput = z.object({ organization: organizationView, role: roleSchema });
export const switchOrganizationInput = z.object({ organization_id: orgIdSchema });
