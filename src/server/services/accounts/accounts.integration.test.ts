import { describe, expect, it, vi } from "vitest";
import { SignJWT } from "jose";
import jwt from "jsonwebtoken";
import { createTestApp, restClient } from "@/test/app";
import { setUpTestApp } from "@/test/set-up-test-app";
import { registration, signUp, tokenFromMail } from "@/test/accounts";
import { readOutbox } from "@/server/mail/mailer";
import { totpCode } from "@/server/auth/totp";
import { signAccessToken, jwtKeys } from "@/server/auth/jwt";
import { createLogger } from "@/server/logger";
import { Writable } from "node:stream";

const testApp = setUpTestApp();
const request = testApp.request;


const decode = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString());

describe("POST /auth/register", () => {
  it("creates the user, the organization and the owner membership, and mails a verification link", async () => {
    const body = registration({ email: "  New.User@Example.COM " });
    const res = await request("POST", "/auth/register", { body });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ email: "new.user@example.com", first_name: "Ada", last_name: "Lovelace", email_verified: false });
    expect(res.body.user.id).toMatch(/^usr_[\w-]{22,}$/);
    expect(res.body.organization).toMatchObject({ name: body.organization_name, plan: "free" });
    expect(res.body.organization.id).toMatch(/^org_/);
    expect(res.body.organization.slug).toMatch(/^org-/);
    expect(JSON.stringify(res.body)).not.toMatch(/password/i);
    const login = await request("POST", "/auth/login", { body: { email: "new.user@example.com", password: body.password } });
    expect(login.body.user.role).toBe("owner");
    const mails = (await readOutbox(testApp.app.config.dataDir)).filter((m) => m.to === "new.user@example.com");
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain("http://app.test/verify-email?token=");
    const stored = await testApp.app.db.prisma.user.findUniqueOrThrow({ where: { id: res.body.user.id } });
    expect(stored.passwordHash).toMatch(/^\$2b\$04\$/);
  });

  it.each([
    ["missing email", { email: undefined }, "email"],
    ["bad email", { email: "not-an-email" }, "email"],
    ["short password", { password: "short1!" }, "password"],
    ["73 characters", { password: "a".repeat(73) }, "password"],
    ["25 characters in 73 bytes", { password: "€".repeat(24) + "a" }, "password"],
    ["common password", { password: "password1" }, "password"],
    ["password equal to the email", { email: "pat@example.com", password: "pat@example.com" }, "password"],
    ["missing organization name", { organization_name: undefined }, "organization_name"],
    ["slug with capitals", { organization_slug: "Bad_Slug" }, "organization_slug"],
    ["accept_terms not boolean", { accept_terms: "yes" }, "accept_terms"],
  ])("refuses %s with 400 naming the field", async (_name, override, field) => {
    const body = registration(override);
    const before = await testApp.app.db.prisma.user.count();
    const res = await request("POST", "/auth/register", { body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_FAILED");
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
    expect(await testApp.app.db.prisma.user.count()).toBe(before);
  });

  it("requires accepting the terms", async () => {
    const res = await request("POST", "/auth/register", { body: registration({ accept_terms: false }) });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("TERMS_NOT_ACCEPTED");
  });

  it("refuses a taken email (any case) with 409 EMAIL_TAKEN and a taken slug with 409 SLUG_TAKEN", async () => {
    const first = registration({ organization_slug: `taken-${Date.now()}` });
    expect((await request("POST", "/auth/register", { body: first })).status).toBe(201);
    const dupEmail = await request("POST", "/auth/register", { body: registration({ email: first.email.toUpperCase() }) });
    expect(dupEmail.status).toBe(409);
    expect(dupEmail.body.error.code).toBe("EMAIL_TAKEN");
    const dupSlug = await request("POST", "/auth/register", { body: registration({ organization_slug: first.organization_slug }) });
    expect(dupSlug.status).toBe(409);
    expect(dupSlug.body.error.code).toBe("SLUG_TAKEN");
  });

  it("derives a fresh slug when the derived one is taken", async () => {
    const a = await request("POST", "/auth/register", { body: registration({ organization_name: "Acme Robotics" }) });
    const b = await request("POST", "/auth/register", { body: registration({ organization_name: "Acme Robotics" }) });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(a.body.organization.slug).not.toBe(b.body.organization.slug);
  });
});

describe("POST /auth/login", () => {
  it("returns tokens, a ses_ session id and the user with organization and role", async () => {
    const body = registration();
    await request("POST", "/auth/register", { body });
    const res = await request("POST", "/auth/login", { body: { email: body.email, password: body.password } });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.body).toMatchObject({ token_type: "Bearer", expires_in: 900 });
    expect(res.body.session_id).toMatch(/^ses_[\w-]{43}$/);
    const claims = decode(res.body.access_token);
    expect(claims).toMatchObject({
      user_id: res.body.user.id,
      email: body.email,
      organization_id: res.body.user.organization_id,
      role: "owner",
      token_type: "access",
      iss: "service-saas",
      sid: res.body.session_id,
    });
    expect(claims.exp - claims.iat).toBe(900);
    expect(JSON.parse(Buffer.from(res.body.access_token.split(".")[0], "base64url").toString())).toEqual({ alg: "HS256", typ: "at+jwt" });
  });

  it("answers an unknown email and a wrong password the same way", async () => {
    const body = registration();
    await request("POST", "/auth/register", { body });
    const wrong = await request("POST", "/auth/login", { body: { email: body.email, password: "wrong password here" } });
    const unknown = await request("POST", "/auth/login", { body: { email: "nobody-" + body.email, password: "wrong password here" } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body.error.code).toBe("INVALID_CREDENTIALS");
  });

  it("refuses an organization the user is not a member of with 403 NOT_A_MEMBER", async () => {
    const a = await signUp(request);
    const b = await signUp(request);
    const res = await request("POST", "/auth/login", { body: { email: a.email, password: a.password, organization_id: b.organizationId } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("NOT_A_MEMBER");
  });

  it("refuses the 11th failed login of an account within 15 minutes with 429 and Retry-After, even with the right password", async () => {
    const body = registration();
    await request("POST", "/auth/register", { body });
    for (let i = 0; i < 10; i++) {
      const res = await request("POST", "/auth/login", { body: { email: body.email, password: "wrong password " + i } });
      expect(res.status).toBe(401);
    }
    const limited = await request("POST", "/auth/login", { body: { email: body.email, password: body.password } });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("RATE_LIMITED");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another account from the same IP is unaffected.
    const other = await signUp(request);
    expect(other.accessToken).toBeTruthy();
  });

  it("writes audit entries for successful and failed logins", async () => {
    const user = await signUp(request);
    await request("POST", "/auth/login", { body: { email: user.email, password: "not the password" } });
    const actions = (await testApp.app.db.prisma.auditEntry.findMany({ where: { actorId: user.userId } })).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["user.registered", "user.login_succeeded", "user.login_failed"]));
  });
});

describe("access tokens", () => {
  it("authenticate GET /auth/profile", async () => {
    const user = await signUp(request);
    const res = await request("GET", "/auth/profile", { token: user.accessToken });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: user.userId, email: user.email, locale: "en", timezone: "UTC", email_verified: false, mfa_enabled: false, avatar_url: null });
    expect(res.body.organization.id).toBe(user.organizationId);
    expect(res.body.role).toBe("owner");
  });

  it("are required", async () => {
    const res = await request("GET", "/auth/profile");
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("UNAUTHENTICATED");
  });

  it("refuse alg none, a wrong key, tampered claims, expiry, a refresh token, and garbage", async () => {
    const user = await signUp(request);
    const [header, payload] = user.accessToken.split(".");
    const claims = decode(user.accessToken);
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const none = `${b64({ alg: "none", typ: "at+jwt" })}.${payload}.`;
    const tampered = `${header}.${b64({ ...claims, role: "owner", organization_id: "org_other" })}.${user.accessToken.split(".")[2]}`;
    const wrongKey = await new SignJWT(claims).setProtectedHeader({ alg: "HS256", typ: "at+jwt" }).sign(new TextEncoder().encode("x".repeat(40)));
    const keys = jwtKeys(testApp.app.config.secrets.jwtSecret);
    const expired = (await signAccessToken(keys, { userId: user.userId, email: user.email, organizationId: user.organizationId, role: "owner", sessionId: user.sessionId }, Date.now() - 901_000)).token;
    const hs512 = await new SignJWT(claims).setProtectedHeader({ alg: "HS512", typ: "at+jwt" }).sign(new TextEncoder().encode(testApp.app.config.secrets.jwtSecret));
    const plainTyp = await new SignJWT(claims).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(new TextEncoder().encode(testApp.app.config.secrets.jwtSecret));
    const cases: [string, string, string][] = [
      ["alg none", none, "TOKEN_INVALID"],
      ["tampered", tampered, "TOKEN_INVALID"],
      ["wrong key", wrongKey, "TOKEN_INVALID"],
      ["HS512", hs512, "TOKEN_INVALID"],
      ["typ JWT", plainTyp, "TOKEN_INVALID"],
      ["expired", expired, "TOKEN_EXPIRED"],
      ["refresh token", user.refreshToken, "TOKEN_INVALID"],
      ["garbage", "a.b.c", "TOKEN_INVALID"],
    ];
    for (const [name, token, code] of cases) {
      const res = await request("GET", "/auth/profile", { token });
      expect(res.status, name).toBe(401);
      expect(res.body.error.code, name).toBe(code);
    }
    const malformedHeader = await request("GET", "/auth/profile", { headers: { authorization: "Token abc" } });
    expect(malformedHeader.status).toBe(401);
  });

  it("renew the session and record last_accessed_at", async () => {
    const user = await signUp(request);
    const before = (await request("GET", "/auth/sessions", { token: user.accessToken })).body.sessions[0].last_accessed_at;
    await new Promise((r) => setTimeout(r, 15));
    await request("GET", "/auth/profile", { token: user.accessToken });
    const after = (await request("GET", "/auth/sessions", { token: user.accessToken })).body.sessions[0].last_accessed_at;
    expect(Date.parse(after)).toBeGreaterThan(Date.parse(before));
  });
});

describe("POST /auth/refresh", () => {
  it("rotates: the new pair works, the old refresh token is refused, and reusing it ends the session", async () => {
    const user = await signUp(request);
    const first = await request("POST", "/auth/refresh", { body: { refresh_token: user.refreshToken } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ token_type: "Bearer", expires_in: 900 });
    expect(first.body.refresh_token).not.toBe(user.refreshToken);
    expect((await request("GET", "/auth/profile", { token: first.body.access_token })).status).toBe(200);

    const reuse = await request("POST", "/auth/refresh", { body: { refresh_token: user.refreshToken } });
    expect(reuse.status).toBe(401);
    expect(reuse.body.error.code).toBe("TOKEN_REUSED");
    // The whole session is gone: the newest tokens die with it.
    const after = await request("GET", "/auth/profile", { token: first.body.access_token });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe("SESSION_REVOKED");
    expect((await request("POST", "/auth/refresh", { body: { refresh_token: first.body.refresh_token } })).status).toBe(401);
  });

  it("lets exactly one of two concurrent refreshes win", async () => {
    const user = await signUp(request);
    const results = await Promise.all([1, 2].map(() => request("POST", "/auth/refresh", { body: { refresh_token: user.refreshToken } })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 401]);
  });

  it("refuses the loser of two tabs refreshing at once without ending the session, even when it reads the token after the winner rotated it", async () => {
    const user = await signUp(request);
    // The second exchange to read the token waits until the first has answered: the order that,
    // under load, made the loser look like a replay and end the session the winner had just renewed.
    const tokens = testApp.app.db.prisma.refreshToken;
    const read = tokens.findUnique.bind(tokens);
    let reads = 0;
    let answered!: () => void;
    const firstAnswered = new Promise<void>((resolve) => (answered = resolve));
    const spy = vi.spyOn(tokens, "findUnique").mockImplementation((async (args: Parameters<typeof read>[0]) => {
      if (++reads === 2) await firstAnswered;
      return read(args);
    }) as unknown as typeof tokens.findUnique);
    try {
      const exchanges = [1, 2].map(() => request("POST", "/auth/refresh", { body: { refresh_token: user.refreshToken } }));
      const winner = await Promise.race(exchanges);
      answered();
      const results = await Promise.all(exchanges);
      expect(reads).toBe(2);
      expect(winner.status).toBe(200);
      const loser = results.find((r) => r !== winner)!;
      expect(loser.status).toBe(401);
      expect(loser.body.error.code).toBe("TOKEN_REUSED");
      // The winner's session lives on, and its new refresh token works once.
      expect((await request("GET", "/auth/profile", { token: winner.body.access_token })).status).toBe(200);
      expect((await request("POST", "/auth/refresh", { body: { refresh_token: winner.body.refresh_token } })).status).toBe(200);
      // The refused one is in the audit log (a thief's copy presented at the same moment would be too).
      const audit = await testApp.app.db.prisma.auditEntry.findMany({ where: { targetId: user.sessionId, action: { startsWith: "user.refresh_token" } } });
      expect(audit.map((a) => a.action)).toEqual(["user.refresh_token_raced"]);
    } finally {
      spy.mockRestore();
    }
    // Presented again now, after the rotation, the same token is a replay: the session ends.
    const replay = await request("POST", "/auth/refresh", { body: { refresh_token: user.refreshToken } });
    expect(replay.body.error.code).toBe("TOKEN_REUSED");
    expect((await request("GET", "/auth/profile", { token: user.accessToken })).body.error.code).toBe("SESSION_REVOKED");
  });

  it("refuses unknown tokens and access tokens", async () => {
    const user = await signUp(request);
    expect((await request("POST", "/auth/refresh", { body: { refresh_token: "nope" } })).body.error.code).toBe("TOKEN_INVALID");
    expect((await request("POST", "/auth/refresh", { body: { refresh_token: user.accessToken } })).status).toBe(401);
    expect((await request("POST", "/auth/refresh", { body: {} })).status).toBe(400);
  });

  it("issues refresh tokens as HS256 JWTs of their own type (SEED), which never pass as access tokens, and refuses one re-signed with another key", async () => {
    const user = await signUp(request);
    const [header, payload] = user.refreshToken.split(".").slice(0, 2).map((part: string) => JSON.parse(Buffer.from(part, "base64url").toString()));
    expect(header).toEqual({ alg: "HS256", typ: "rt+jwt" });
    expect(payload).toMatchObject({ token_type: "refresh", sub: user.userId, sid: user.sessionId, iss: "service-saas" });
    expect(payload.exp - payload.iat).toBe(7 * 24 * 3600);
    const asAccess = await request("GET", "/auth/profile", { token: user.refreshToken });
    expect(asAccess.status).toBe(401);
    expect(asAccess.body.error.code).toBe("TOKEN_INVALID");
    const forged = jwt.sign(payload, "another-secret-that-is-at-least-32-characters-long", { algorithm: "HS256", header: { alg: "HS256", typ: "rt+jwt" } });
    expect((await request("POST", "/auth/refresh", { body: { refresh_token: forged } })).body.error.code).toBe("TOKEN_INVALID");
    // The genuine one still works, once.
    const renewed = await request("POST", "/auth/refresh", { body: { refresh_token: user.refreshToken } });
    expect(renewed.status).toBe(200);
    expect(renewed.body.refresh_token).not.toBe(user.refreshToken);
    expect(renewed.body.refresh_token.split(".")).toHaveLength(3);
  });
});

describe("sessions and logout", () => {
  it("lists sessions with the current one marked, revokes one and all others, and logs out", async () => {
    const user = await signUp(request);
    const second = await request("POST", "/auth/login", { body: { email: user.email, password: user.password }, headers: { "user-agent": "second-device" } });
    const third = await request("POST", "/auth/login", { body: { email: user.email, password: user.password } });
    const list = await request("GET", "/auth/sessions", { token: user.accessToken });
    expect(list.status).toBe(200);
    expect(list.body.sessions).toHaveLength(3);
    expect(list.body.sessions.filter((s: { current: boolean }) => s.current).map((s: { id: string }) => s.id)).toEqual([user.sessionId]);
    expect(list.body.sessions.find((s: { id: string }) => s.id === second.body.session_id).user_agent).toBe("second-device");

    expect((await request("DELETE", `/auth/sessions/${second.body.session_id}`, { token: user.accessToken })).status).toBe(204);
    const revoked = await request("GET", "/auth/profile", { token: second.body.access_token });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.code).toBe("SESSION_REVOKED");
    expect((await request("POST", "/auth/refresh", { body: { refresh_token: second.body.refresh_token } })).status).toBe(401);

    expect((await request("DELETE", "/auth/sessions", { token: user.accessToken })).status).toBe(204);
    expect((await request("GET", "/auth/profile", { token: third.body.access_token })).status).toBe(401);
    expect((await request("GET", "/auth/profile", { token: user.accessToken })).status).toBe(200);

    expect((await request("POST", "/auth/logout", { token: user.accessToken })).status).toBe(204);
    expect((await request("GET", "/auth/profile", { token: user.accessToken })).status).toBe(401);
  });

  it("answers 404 for another user's session and changes nothing", async () => {
    const a = await signUp(request);
    const b = await signUp(request);
    const res = await request("DELETE", `/auth/sessions/${b.sessionId}`, { token: a.accessToken });
    expect(res.status).toBe(404);
    expect((await request("GET", "/auth/profile", { token: b.accessToken })).status).toBe(200);
  });
});

describe("profile", () => {
  it("updates partially and validates time zone, locale and avatar URL", async () => {
    const user = await signUp(request);
    const ok = await request("PUT", "/auth/profile", { token: user.accessToken, body: { timezone: "Europe/Paris", locale: "pt-br", avatar_url: "https://img.example.com/a.png" } });
    expect(ok.status).toBe(200);
    expect(ok.body.user).toMatchObject({ timezone: "Europe/Paris", locale: "pt-BR", avatar_url: "https://img.example.com/a.png", first_name: "Ada" });
    for (const body of [{ timezone: "Mars/Olympus" }, { locale: "not a locale!" }, { avatar_url: "http://img.example.com/a.png" }, { avatar_url: "javascript:alert(1)" }, { first_name: 5 }]) {
      const res = await request("PUT", "/auth/profile", { token: user.accessToken, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details[0].path).toBe(Object.keys(body)[0]);
    }
    expect((await request("GET", "/auth/profile", { token: user.accessToken })).body.user.timezone).toBe("Europe/Paris");
  });
});

describe("POST /auth/change-password", () => {
  it("refuses a wrong old password, then changes it and ends the other sessions", async () => {
    const user = await signUp(request);
    const other = await request("POST", "/auth/login", { body: { email: user.email, password: user.password } });
    const wrong = await request("POST", "/auth/change-password", { token: user.accessToken, body: { old_password: "nope nope", new_password: "a brand new passphrase" } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("INVALID_CREDENTIALS");
    const weak = await request("POST", "/auth/change-password", { token: user.accessToken, body: { old_password: user.password, new_password: "qwertyuiop" } });
    expect(weak.status).toBe(400);
    expect(weak.body.error.message).toMatch(/too common/);

    const ok = await request("POST", "/auth/change-password", { token: user.accessToken, body: { old_password: user.password, new_password: "a brand new passphrase" } });
    expect(ok.status).toBe(200);
    expect((await request("GET", "/auth/profile", { token: other.body.access_token })).status).toBe(401);
    expect((await request("GET", "/auth/profile", { token: user.accessToken })).status).toBe(200);
    expect((await request("POST", "/auth/login", { body: { email: user.email, password: user.password } })).status).toBe(401);
    expect((await request("POST", "/auth/login", { body: { email: user.email, password: "a brand new passphrase" } })).status).toBe(200);
    const mails = (await readOutbox(testApp.app.config.dataDir)).filter((m) => m.to === user.email);
    expect(mails.some((m) => /password/i.test(m.subject) && /changed/i.test(m.subject))).toBe(true);
  });
});

describe("password reset", () => {
  it("always answers 202, mails a single-use link, and ends every session", async () => {
    const user = await signUp(request);
    const unknown = await request("POST", "/auth/password-reset", { body: { email: "nobody-at-all@example.com" } });
    const known = await request("POST", "/auth/password-reset", { body: { email: user.email } });
    expect(unknown.status).toBe(202);
    expect(known.status).toBe(202);
    expect(unknown.body).toEqual(known.body);

    const token = await tokenFromMail(testApp.app, user.email, "/reset-password");
    expect(Buffer.from(token, "base64url")).toHaveLength(32);
    const weak = await request("POST", "/auth/password-reset/confirm", { body: { token, new_password: "password123" } });
    expect(weak.status).toBe(400);
    const bad = await request("POST", "/auth/password-reset/confirm", { body: { token: "x".repeat(43), new_password: "another fine passphrase" } });
    expect(bad.status).toBe(401);
    const ok = await request("POST", "/auth/password-reset/confirm", { body: { token, new_password: "another fine passphrase" } });
    expect(ok.status).toBe(200);
    expect((await request("GET", "/auth/profile", { token: user.accessToken })).status).toBe(401);
    const again = await request("POST", "/auth/password-reset/confirm", { body: { token, new_password: "yet another passphrase" } });
    expect(again.status).toBe(401);
    expect((await request("POST", "/auth/login", { body: { email: user.email, password: "another fine passphrase" } })).status).toBe(200);
  });
});

describe("email verification", () => {
  it("confirms with the mailed token once, and resends on request", async () => {
    const user = await signUp(request);
    const token = await tokenFromMail(testApp.app, user.email, "/verify-email");
    const ok = await request("POST", "/auth/verify-email", { body: { token } });
    expect(ok.status).toBe(200);
    expect(ok.body.user.email_verified).toBe(true);
    expect((await request("POST", "/auth/verify-email", { body: { token } })).status).toBe(401);
    expect((await request("GET", "/auth/profile", { token: user.accessToken })).body.user.email_verified).toBe(true);

    const other = await signUp(request);
    const resend = await request("POST", "/auth/verify-email/resend", { token: other.accessToken });
    expect(resend.status).toBe(202);
    const fresh = await tokenFromMail(testApp.app, other.email, "/verify-email");
    expect((await request("POST", "/auth/verify-email", { body: { token: fresh } })).status).toBe(200);
  });
});

describe("MFA", () => {
  async function enrol() {
    const user = await signUp(request);
    const setup = await request("POST", "/auth/mfa/setup", { token: user.accessToken, body: { password: user.password } });
    expect(setup.status).toBe(200);
    expect(setup.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.body.otpauth_url).toMatch(/^otpauth:\/\/totp\//);
    expect(setup.body.qr_code).toMatch(/^data:image\/png;base64,/);
    const stored = await testApp.app.db.prisma.user.findUniqueOrThrow({ where: { id: user.userId } });
    expect(stored.mfaPendingSecret).not.toContain(setup.body.secret);
    const enable = await request("POST", "/auth/mfa/enable", { token: user.accessToken, body: { code: totpCode(setup.body.secret) } });
    expect(enable.status).toBe(200);
    return { ...user, secret: setup.body.secret as string, backupCodes: enable.body.backup_codes as string[] };
  }

  it("enables with a valid code and returns 8 backup codes", async () => {
    const user = await enrol();
    expect(user.backupCodes).toHaveLength(8);
    for (const code of user.backupCodes) expect(code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    expect((await request("GET", "/auth/profile", { token: user.accessToken })).body.user.mfa_enabled).toBe(true);
  });

  it("refuses a wrong enrolment code", async () => {
    const user = await signUp(request);
    await request("POST", "/auth/mfa/setup", { token: user.accessToken, body: { password: user.password } });
    const res = await request("POST", "/auth/mfa/enable", { token: user.accessToken, body: { code: "000000" } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("MFA_INVALID");
    expect((await request("GET", "/auth/profile", { token: user.accessToken })).body.user.mfa_enabled).toBe(false);
  });

  it("asks for a code after the password, accepts a TOTP code once, and a backup code once", async () => {
    const user = await enrol();
    const challenge = await request("POST", "/auth/login", { body: { email: user.email, password: user.password } });
    expect(challenge.status).toBe(200);
    expect(challenge.body).toEqual({ requires_mfa: true, message: expect.any(String) });
    // A wrong password never reveals that MFA is on.
    const wrongPassword = await request("POST", "/auth/login", { body: { email: user.email, password: "wrong password!" } });
    expect(wrongPassword.status).toBe(401);
    expect(wrongPassword.body.error.code).toBe("INVALID_CREDENTIALS");

    const wrong = await request("POST", "/auth/login", { body: { email: user.email, password: user.password, mfa_code: "123456" } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("MFA_INVALID");

    // The enrolment used the current step; the next step's code is still inside the ±1 window.
    const code = totpCode(user.secret, Date.now() + 30_000);
    const ok = await request("POST", "/auth/login", { body: { email: user.email, password: user.password, mfa_code: code } });
    expect(ok.status).toBe(200);
    expect(ok.body.access_token).toBeTruthy();
    const replay = await request("POST", "/auth/login", { body: { email: user.email, password: user.password, mfa_code: code } });
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe("MFA_INVALID");

    const backup = user.backupCodes[0]!.toLowerCase();
    const withBackup = await request("POST", "/auth/login", { body: { email: user.email, password: user.password, backup_code: backup } });
    expect(withBackup.status).toBe(200);
    // Its use is in the organization's audit log (the login has no organization yet: the user's last).
    const audit = await request("GET", "/audit-log", { token: withBackup.body.access_token });
    expect(audit.body.entries.map((e: { action: string }) => e.action)).toContain("user.backup_code_used");
    const reused = await request("POST", "/auth/login", { body: { email: user.email, password: user.password, backup_code: backup } });
    expect(reused.status).toBe(401);
    expect(reused.body.error.code).toBe("MFA_INVALID");
  });

  it("regenerates backup codes (old ones stop working) and disables with password and code", async () => {
    const user = await enrol();
    const regen = await request("POST", "/auth/mfa/backup-codes", { token: user.accessToken, body: { code: user.backupCodes[0] } });
    expect(regen.status).toBe(200);
    expect(regen.body.backup_codes).toHaveLength(8);
    const old = await request("POST", "/auth/login", { body: { email: user.email, password: user.password, backup_code: user.backupCodes[1] } });
    expect(old.status).toBe(401);

    const badPassword = await request("POST", "/auth/mfa/disable", { token: user.accessToken, body: { password: "nope nope nope", code: regen.body.backup_codes[0] } });
    expect(badPassword.status).toBe(401);
    const off = await request("POST", "/auth/mfa/disable", { token: user.accessToken, body: { password: user.password, code: regen.body.backup_codes[0] } });
    expect(off.status).toBe(200);
    const login = await request("POST", "/auth/login", { body: { email: user.email, password: user.password } });
    expect(login.body.access_token).toBeTruthy();
  });

  it("is not bypassed by a password reset", async () => {
    const user = await enrol();
    await request("POST", "/auth/password-reset", { body: { email: user.email } });
    const token = await tokenFromMail(testApp.app, user.email, "/reset-password");
    expect((await request("POST", "/auth/password-reset/confirm", { body: { token, new_password: "reset but still safe" } })).status).toBe(200);
    const login = await request("POST", "/auth/login", { body: { email: user.email, password: "reset but still safe" } });
    expect(login.body.requires_mfa).toBe(true);
  });

  it("limits wrong codes per account: the 11th wrong code in 15 minutes gets 429", async () => {
    const user = await enrol();
    for (let i = 0; i < 10; i++) {
      const res = await request("POST", "/auth/login", { body: { email: user.email, password: user.password, mfa_code: String(100000 + i) } });
      expect(res.status).toBe(401);
    }
    const limited = await request("POST", "/auth/login", { body: { email: user.email, password: user.password, mfa_code: totpCode(user.secret, Date.now() + 30_000) } });
    expect(limited.status).toBe(429);
  });
});

describe("DELETE /auth/profile", () => {
  it("soft-deletes with the password, ends sessions, and frees the email", async () => {
    const user = await signUp(request);
    expect((await request("DELETE", "/auth/profile", { token: user.accessToken, body: { password: "wrong one!" } })).status).toBe(401);
    expect((await request("DELETE", "/auth/profile", { token: user.accessToken, body: { password: user.password } })).status).toBe(204);
    expect((await request("GET", "/auth/profile", { token: user.accessToken })).status).toBe(401);
    expect((await request("POST", "/auth/login", { body: { email: user.email, password: user.password } })).status).toBe(401);
    const row = await testApp.app.db.prisma.user.findUniqueOrThrow({ where: { id: user.userId } });
    expect(row.deletedAt).not.toBeNull();
    const again = await request("POST", "/auth/register", { body: registration({ email: user.email }) });
    expect(again.status).toBe(201);
  });
});

describe("logs", () => {
  it("never contain passwords or tokens", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const logged = await createTestApp();
    // The production logger configuration, at its most verbose, writing into the test.
    logged.logger = createLogger({ level: "trace" }, sink);
    const req = restClient(logged);
    const user = await signUp(req, { password: "a very secret passphrase" });
    await req("GET", "/auth/profile", { token: user.accessToken });
    const all = lines.join("\n");
    expect(lines.length).toBeGreaterThan(0);
    expect(all).not.toContain("a very secret passphrase");
    expect(all).not.toContain(user.accessToken);
    expect(all).not.toContain(user.refreshToken);
    await logged.close();
  });
});
