import type { AppServices } from "@/server/app-services";
import { resolvePrincipal, type SessionPrincipal } from "@/server/auth/principal";
import type { Role } from "@/server/permissions";
import { loginInput, registerInput, type LoginSuccess } from "@/server/services/accounts/account.schemas";
import { login } from "@/server/services/accounts/login";
import { register } from "@/server/services/accounts/register";
import type { RequestMeta } from "@/server/services/request-meta";
import { registration } from "./accounts";

/**
 * For tests that call services directly, as the routers do: accounts made through the account
 * services, and the Principal a request with their access token resolves to. No REST, no tRPC.
 */

/** What a service records of the request; an IP of its own, so REST tests of the same file keep their rate limits. */
export const testMeta: RequestMeta = { ip: "203.0.113.20", userAgent: "vitest" };

export interface TestAccount {
  email: string;
  password: string;
  userId: string;
  /** The organization the principal acts in. */
  organizationId: string;
  principal: SessionPrincipal;
  /** The login answer (tokens, session id). */
  session: LoginSuccess;
}

/** Logs in through the login service and resolves the access token as a request would. */
export async function signIn(app: AppServices, email: string, password: string, organizationId?: string) {
  const session = await login(app, loginInput.parse({ email, password, organization_id: organizationId }), testMeta);
  if ("requires_mfa" in session) throw new Error(`signIn: ${email} has MFA on`);
  const principal = await resolvePrincipal(app, { authorization: `Bearer ${session.access_token}` }, { touch: false });
  if (principal.kind !== "session") throw new Error("signIn: an access token resolved to an API key");
  // Tests keep this principal across many calls; the flows generation read with it is good for one
  // request only (auth/principal.ts), so each call reads its own.
  delete principal.flowsGeneration;
  return { session, principal };
}

/** Registers (owner of a new organization) and signs in; override any registration field. */
export async function createAccount(app: AppServices, overrides: Record<string, unknown> = {}): Promise<TestAccount> {
  const input = registerInput.parse(registration(overrides));
  const { user, organization } = await register(app, input, testMeta);
  return { email: input.email, password: input.password, userId: user.id, organizationId: organization.id, ...(await signIn(app, input.email, input.password)) };
}

/** A new account that is also a member of the owner's organization with `role`, signed in there. */
export async function addMember(app: AppServices, owner: { organizationId: string }, role: Role): Promise<TestAccount> {
  const user = await createAccount(app);
  await app.db.prisma.membership.create({ data: { userId: user.userId, organizationId: owner.organizationId, role } });
  return { ...user, organizationId: owner.organizationId, ...(await signIn(app, user.email, user.password, owner.organizationId)) };
}
