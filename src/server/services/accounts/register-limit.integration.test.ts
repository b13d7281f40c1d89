import { describe, expect, it } from "vitest";
import { registration } from "@/test/accounts";
import { setUpTestApp } from "@/test/set-up-test-app";

// RATE_LIMIT_REGISTER_PER_IP (default 100 per 15 minutes): one address cannot create accounts in
// bulk. Lowered here so the test reaches it; the end-to-end suite, which registers an account per
// test from one address, raises it instead (playwright.config.ts).
const testApp = setUpTestApp({ RATE_LIMIT_REGISTER_PER_IP: "3" });
const request = testApp.request;

describe("POST /auth/register is limited per client address", () => {
  it("refuses the 4th registration of an address within 15 minutes with 429 and Retry-After, creates nothing, and leaves other addresses alone", async () => {
    const ip = "198.51.100.7";
    for (let i = 0; i < 3; i++) {
      const res = await request("POST", "/auth/register", { body: registration(), ip });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const refused = registration();
    const users = await testApp.app.db.prisma.user.count();
    const organizations = await testApp.app.db.prisma.organization.count();
    const limited = await request("POST", "/auth/register", { body: refused, ip });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("RATE_LIMITED");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await testApp.app.db.prisma.user.count()).toBe(users);
    expect(await testApp.app.db.prisma.organization.count()).toBe(organizations);
    expect((await request("POST", "/auth/login", { body: { email: refused.email, password: refused.password } })).status).toBe(401);

    // Another address still registers, the refused address too once it tries from elsewhere.
    expect((await request("POST", "/auth/register", { body: registration(), ip: "198.51.100.8" })).status).toBe(201);
    expect((await request("POST", "/auth/register", { body: refused, ip: "198.51.100.9" })).status).toBe(201);
  });
});
