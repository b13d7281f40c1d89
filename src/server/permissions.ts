/** Ordered roles: each includes everything the ones below it may do. */
export const roles = ["viewer", "member", "admin", "owner"] as const;
export type Role = (typeof roles)[number];

export function isRole(value: string): value is Role {
  return (roles as readonly string[]).includes(value);
}

export function roleRank(role: Role): number {
  return roles.indexOf(role);
}

export function atLeast(role: Role, minimum: Role): boolean {
  return roleRank(role) >= roleRank(minimum);
}
