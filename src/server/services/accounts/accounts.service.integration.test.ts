/**
 * The account services called directly (the HTTP contract — statuses, tokens on the wire, input
 * validation — is in accounts.integration.test.ts): registration's refusals and races, and what
 * login decides.
 */
import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { registration } from "@/test/accounts";
import { addMember, createAccount, signIn, testMeta } from "@/test/principals";
import { totpCode } from "@/server/auth/totp";
import { loginInput, registerInput } from "./account.schemas";
import { register } from "./register";
import { login } from "./login";
import { enableMfa, setupMfa } from "./mfa";
import { deleteAccount } from "./profile";

const testApp = setUpTestApp();

const registerWith = (overrides: Record<string, unknown>) => register(testApp.app, registerInput.parse(registration(overrides)), testMeta);
const loginWith = (input: Record<string, unknown>) => login(testApp.app, loginInput.parse(input), testMeta);

describe("register", () => {
  it("makes the user the owner of a new organization, remembered as the one to log in to, and mails a verification link", async () => {
    const account = await createAccount(testApp.app);
    const prisma = testApp.app.db.prisma;
    expect(await prisma.membership.findMany({ where: { userId: account.userId }, select: { organizationId: true, role: true } })).toEqual([
      { organizationId: account.organizationId, role: "owner" },
    ]);
    const user = await prisma.user.findUniqueOrThrow({ where: { id: account.userId } });
    expect(user).toMatchObject({ lastOrganizationId: account.organizationId, emailVerifiedAt: null });
    expect(user.termsAcceptedAt).toBeInstanceOf(Date);
    expect(account.principal).toMatchObject({ kind: "session", role: "owner", organizationId: account.organizationId });
  });

  it("refuses unaccepted terms and a password the policy rejects, writing nothing", async () => {
    const before = await testApp.app.db.prisma.user.count();
    await expect(registerWith({ accept_terms: false })).rejects.toMatchObject({ code: "TERMS_NOT_ACCEPTED", details: [{ path: "accept_terms" }] });
    await expect(registerWith({ email: "pat-policy@example.com", password: "pat-policy@example.com" })).rejects.toMatchObject({
      code: "VALIDATION_FAILED",
      details: [{ path: "password" }],
    });
    expect(await testApp.app.db.prisma.user.count()).toBe(before);
  });

  it("refuses a taken email and a taken slug asked for, and derives another slug from a taken name", async () => {
    const first = await createAccount(testApp.app, { organization_slug: `taken-${Date.now().toString(36)}` });
    const org = await testApp.app.db.prisma.organization.findUniqueOrThrow({ where: { id: first.organizationId } });
    await expect(registerWith({ email: first.email.toUpperCase() })).rejects.toMatchObject({ code: "EMAIL_TAKEN" });
    await expect(registerWith({ organization_slug: org.slug })).rejects.toMatchObject({ code: "SLUG_TAKEN" });
    const derived = await registerWith({ organization_name: org.slug });
    expect(derived.organization.slug).not.toBe(org.slug);
    expect(derived.organization.slug.startsWith(org.slug)).toBe(true);
  });

  it("lets one of two registrations of the same email at once succeed; the other is EMAIL_TAKEN", async () => {
    const email = registration().email as string;
    const results = await Promise.allSettled([registerWith({ email }), registerWith({ email })]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect((results.find((r) => r.status === "rejected") as PromiseRejectedResult).reason).toMatchObject({ code: "EMAIL_TAKEN" });
    expect(await testApp.app.db.prisma.user.count({ where: { email } })).toBe(1);
  });
});

describe("login", () => {
  it("answers an unknown email and a wrong password with the same error", async () => {
    const account = await createAccount(testApp.app);
    const wrong = await loginWith({ email: account.email, password: "not the password at all" }).catch((e: unknown) => e);
    const unknown = await loginWith({ email: `nobody-${account.email}`, password: "not the password at all" }).catch((e: unknown) => e);
    expect(wrong).toMatchObject({ code: "INVALID_CREDENTIALS" });
    expect(unknown).toMatchObject({ code: "INVALID_CREDENTIALS", message: (wrong as Error).message });
  });

  it("lands in the organization asked for (members only), else the most recently used", async () => {
    const owner = await createAccount(testApp.app);
    const member = await addMember(testApp.app, owner, "viewer");
    const stranger = await createAccount(testApp.app);
    await expect(loginWith({ email: member.email, password: member.password, organization_id: stranger.organizationId })).rejects.toMatchObject({ code: "NOT_A_MEMBER" });
    // addMember signed in to the owner's organization last.
    expect((await signIn(testApp.app, member.email, member.password)).principal).toMatchObject({ organizationId: owner.organizationId, role: "viewer" });
  });

  it("refuses the 11th failure of an account, even with the right password; a success in between starts the count again", async () => {
    const account = await createAccount(testApp.app);
    const fail = () => expect(loginWith({ email: account.email, password: "wrong password again" })).rejects.toMatchObject({ code: "INVALID_CREDENTIALS" });
    for (let i = 0; i < 9; i++) await fail();
    await signIn(testApp.app, account.email, account.password);
    for (let i = 0; i < 10; i++) await fail();
    await expect(loginWith({ email: account.email, password: account.password })).rejects.toMatchObject({ code: "RATE_LIMITED" });
  });

  it("asks for the second factor only after the right password, and checks it", async () => {
    const account = await createAccount(testApp.app);
    const { secret } = await setupMfa(testApp.app, account.userId, account.password);
    await enableMfa(testApp.app, account.userId, account.principal.sessionId, totpCode(secret), testMeta);
    await expect(loginWith({ email: account.email, password: "wrong password again" })).rejects.toMatchObject({ code: "INVALID_CREDENTIALS" });
    expect(await loginWith({ email: account.email, password: account.password })).toMatchObject({ requires_mfa: true });
    await expect(loginWith({ email: account.email, password: account.password, mfa_code: "000000" })).rejects.toMatchObject({ code: "MFA_INVALID" });
    // The code enableMfa used is spent; the next time step's is fresh.
    const next = totpCode(secret, Date.now() + 30_000);
    expect(await loginWith({ email: account.email, password: account.password, mfa_code: next })).toMatchObject({ token_type: "Bearer" });
  });

  it("refuses a deleted account like an unknown one", async () => {
    const account = await createAccount(testApp.app);
    await deleteAccount(testApp.app, account.principal, account.password, testMeta);
    await expect(loginWith({ email: account.email, password: account.password })).rejects.toMatchObject({ code: "INVALID_CREDENTIALS" });
  });
});
