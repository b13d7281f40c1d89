import { readOutbox } from "@/server/mail/mailer";
import type { AppServices } from "@/server/app-services";
import type { restClient } from "./app";

type Request = ReturnType<typeof restClient>;

let counter = 0;

/** A unique, valid registration body; override any field. */
export function registration(overrides: Record<string, unknown> = {}): Record<string, any> {
  counter += 1;
  const tag = `${Date.now().toString(36)}${counter}${Math.random().toString(36).slice(2, 6)}`;
  return {
    email: `user-${tag}@example.com`,
    password: "correct horse battery staple",
    first_name: "Ada",
    last_name: "Lovelace",
    organization_name: `Org ${tag}`,
    accept_terms: true,
    ...overrides,
  };
}

/** Registers and logs in; returns the tokens and ids. */
export async function signUp(request: Request, overrides: Record<string, unknown> = {}) {
  const body = registration(overrides);
  const reg = await request("POST", "/auth/register", { body });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${reg.text}`);
  const login = await request("POST", "/auth/login", { body: { email: body.email, password: body.password } });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.text}`);
  return {
    email: body.email,
    password: body.password,
    userId: reg.body.user.id as string,
    organizationId: reg.body.organization.id as string,
    accessToken: login.body.access_token as string,
    refreshToken: login.body.refresh_token as string,
    sessionId: login.body.session_id as string,
  };
}

/** The token from the newest mail to `to` whose link goes to `page` (e.g. "/verify-email"). */
export async function tokenFromMail(app: AppServices, to: string, page: string): Promise<string> {
  const mails = (await readOutbox(app.config.dataDir)).filter((m) => m.to === to);
  for (const mail of mails.reverse()) {
    const m = new RegExp(`${page}\\?token=([\\w%-]+)`).exec(mail.text);
    if (m) return decodeURIComponent(m[1]!);
  }
  throw new Error(`no ${page} mail for ${to}`);
}

/** Adds a newly registered user to the owner's organization with a role, logged in there. */
export async function joinAs(app: AppServices, request: Request, owner: { organizationId: string }, role: string) {
  const user = await signUp(request);
  await app.db.prisma.membership.create({ data: { userId: user.userId, organizationId: owner.organizationId, role } });
  const login = await request("POST", "/auth/login", { body: { email: user.email, password: user.password, organization_id: owner.organizationId } });
  return { ...user, token: login.body.access_token as string };
}
