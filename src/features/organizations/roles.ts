import { atLeast, isRole, mayGrant, mayManage, permissions, roles, type Permission, type Role } from "@/shared/permissions";

/** Whether a role holds a permission of the one table (the UI hides what the server would refuse). */
export function can(role: Role, permission: Permission): boolean {
  return atLeast(role, permissions[permission].minRole);
}

/** A role string from the server as a Role; anything unknown counts as the least one. */
export function asRole(value: string): Role {
  return isRole(value) ? value : "viewer";
}

/** The roles someone may grant: none above their own (so only owners grant owner). */
export function assignableRoles(actor: Role): Role[] {
  return roles.filter((r) => mayGrant(actor, r));
}

/** Whether `actor` may change or remove a member whose role is `target`: admin+, and never someone above them. */
export function canManageMember(actor: Role, target: Role, permission: "members:update" | "members:remove"): boolean {
  return can(actor, permission) && mayManage(actor, target);
}

export const roleLabels: Record<Role, string> = { viewer: "Viewer", member: "Member", admin: "Admin", owner: "Owner" };

export const roleDescriptions: Record<Role, string> = {
  viewer: "reads flows, nodes, members and events",
  member: "also creates, edits and deploys flows, and has their own API keys",
  admin: "also invites and removes members, sets roles up to admin, and reads the audit log",
  owner: "also renames or deletes the organization and grants owner",
};
