import type { AuthDeps } from "./auth-deps";
import { sha256 } from "../ids";
import { isRole } from "../permissions";
import type { MemberAccess } from "./access-cache";

/** The user's email and current role in the organization, in one query; null when either is gone. */
export async function currentMembership(app: Pick<AuthDeps, "db">, userId: string, organizationId: string): Promise<MemberAccess | null> {
  const membership = await app.db.prisma.membership.findFirst({
    where: { userId, organizationId, user: { deletedAt: null }, organization: { deletedAt: null } },
    select: { role: true, user: { select: { email: true } } },
  });
  return membership && isRole(membership.role) ? { email: membership.user.email, role: membership.role } : null;
}

// A memo of a pure function (the same id always gives the same key), bounded; per module copy.
const credentialKeys = new Map<string, string>();

/** The per-credential rate-limit key of a session or an API key id: stable and not secret. */
export function credentialKeyOf(id: string): string {
  let key = credentialKeys.get(id);
  if (key === undefined) {
    key = sha256(id).slice(0, 32);
    if (credentialKeys.size >= 10_000) credentialKeys.clear();
    credentialKeys.set(id, key);
  }
  return key;
}
