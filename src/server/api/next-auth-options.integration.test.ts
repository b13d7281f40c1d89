/**
 * The browser's sign-out (next-auth's signOut event): the session ends everywhere, and it is in
 * the audit log as POST /auth/logout puts it.
 */
import { describe, expect, it } from "vitest";
import type { JWT } from "next-auth/jwt";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { buildAuthOptions } from "./next-auth-options";

const testApp = setUpTestApp();
const request = testApp.request;

describe("browser sign-out", () => {
  it("ends the session and records user.logout in the organization's audit log", async () => {
    const user = await signUp(request);
    const second = await request("POST", "/auth/login", { body: { email: user.email, password: user.password } });
    const signOut = buildAuthOptions(testApp.app).events!.signOut!;
    await signOut({ token: { sid: user.sessionId } as JWT, session: undefined as never });
    expect((await request("GET", "/auth/profile", { token: user.accessToken })).body.error.code).toBe("SESSION_REVOKED");
    const audit = await request("GET", "/audit-log", { token: second.body.access_token });
    const entry = (audit.body.entries as Array<{ action: string; target_id: string }>).find((e) => e.action === "user.logout");
    expect(entry?.target_id).toBe(user.sessionId);
  });
});
