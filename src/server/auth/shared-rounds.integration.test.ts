/**
 * A credential's requests in flight together share their store round on Redis (shared-rounds.ts).
 * What must not change, through the REST door: the per-credential rate limit counts every request
 * and refuses exactly those past it, and a revoked session or key refuses every request made after
 * the revocation was answered, however many of its requests were in flight around it.
 *
 * Both backends: DATABASE_URL / REDIS_URL switch this file to PostgreSQL and Redis (where the
 * rounds are shared; in process each request has its own, and the same answers are expected).
 */
import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";

const LIMIT = 25;
const testApp = setUpTestApp({ RATE_LIMIT_API_PER_CREDENTIAL: String(LIMIT) });
const request = testApp.request;

const statuses = async (calls: Array<Promise<{ status: number }>>) => (await Promise.all(calls)).map((r) => r.status);
const count = (list: number[], status: number) => list.filter((s) => s === status).length;

/** A new session of the user: a credential with its whole budget. */
async function freshSession(user: { email: string; password: string }): Promise<string> {
  const login = await request("POST", "/auth/login", { body: { email: user.email, password: user.password } });
  expect(login.status, login.text).toBe(200);
  return login.body.access_token as string;
}

/** A new API key of a new organization's owner (used once, so its secret is known), and the owner's token. */
async function usedKey(name: string) {
  const owner = await signUp(request);
  const key = await request("POST", "/api-keys", { token: owner.accessToken, body: { name } });
  expect(key.status, key.text).toBe(201);
  const headers = { "x-api-key": key.body.secret as string };
  // The first use of a secret goes alone (its key is not known yet).
  expect((await request("GET", "/flows", { headers })).status).toBe(200);
  return { owner, id: key.body.api_key.id as string, headers };
}

describe("requests of one credential in flight together", () => {
  it("a session's rate limit refuses exactly the requests past it", async () => {
    const user = await signUp(request);
    const token = await freshSession(user);
    const rounds = testApp.app.access.rounds;
    const before = rounds ? { rounds: rounds.rounds, requests: rounds.requests } : null;
    const answers = await statuses(Array.from({ length: 60 }, () => request("GET", "/flows", { token })));
    expect(count(answers, 200)).toBe(LIMIT);
    expect(count(answers, 429)).toBe(60 - LIMIT);
    if (rounds && before) {
      // They did share: fewer rounds than requests went to Redis.
      expect(rounds.requests - before.requests).toBe(60);
      expect(rounds.rounds - before.rounds).toBeLessThan(60);
    }
  });

  it("an API key's rate limit refuses exactly the requests past it", async () => {
    const { headers } = await usedKey("burst");
    const answers = await statuses(Array.from({ length: 40 }, () => request("GET", "/flows", { headers })));
    expect(count(answers, 200)).toBe(LIMIT - 1);
    expect(count(answers, 429)).toBe(40 - (LIMIT - 1));
  });

  it("after a logout is answered, every request of the session is refused, even with others of it in flight", async () => {
    const user = await signUp(request);
    const token = await freshSession(user);
    const inFlight = Array.from({ length: 20 }, () => request("GET", "/flows", { token }));
    const logout = await request("POST", "/auth/logout", { token });
    expect(logout.status, logout.text).toBe(204);
    const after = await statuses(Array.from({ length: 30 }, () => request("GET", "/flows", { token })));
    expect(after).toEqual(Array.from({ length: 30 }, () => 401));
    // The ones sent before the logout were answered one way or the other, never with an error.
    for (const status of await statuses(inFlight)) expect([200, 401]).toContain(status);
  });

  it("after a key's revocation is answered, every request with it is refused, even with others of it in flight", async () => {
    const { owner, id, headers } = await usedKey("revoked");
    const inFlight = Array.from({ length: 20 }, () => request("GET", "/flows", { headers }));
    const revoked = await request("DELETE", `/api-keys/${id}`, { token: owner.accessToken });
    expect(revoked.status, revoked.text).toBe(204);
    const after = await statuses(Array.from({ length: 30 }, () => request("GET", "/flows", { headers })));
    expect(after).toEqual(Array.from({ length: 30 }, () => 401));
    for (const status of await statuses(inFlight)) expect([200, 401]).toContain(status);
  });
});
