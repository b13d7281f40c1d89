/**
 * The MQTT 5 session-expiry ledger on the database (session-expiry.ts): when rows come due, that
 * each due row is taken by one sweeper only, and what a connected client's row means. The broker's
 * use of it across a restart is in durability.integration.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppServices } from "@/server/app-services";
import { createLogger } from "@/server/logger";
import { createTestApp, restClient } from "@/test/app";
import { signUp } from "@/test/accounts";
import { CONNECTED_RECHECK_MS, SESSION_SWEEP_MS, SessionExpiryLedger, recheckAfterMs, type DueSession } from "./session-expiry";

let app: AppServices;
let ledger: SessionExpiryLedger;
let org: string;

beforeAll(async () => {
  app = await createTestApp();
  ledger = new SessionExpiryLedger(app.db.prisma, createLogger({ level: "silent" }));
  const owner = await signUp(restClient(app));
  const orgs = await restClient(app)("GET", "/organizations", { token: owner.accessToken });
  org = orgs.body.organizations[0].id as string;
});
afterAll(async () => {
  await app.close();
});

const id = (name: string) => `${org}:${name}`;

describe("MQTT 5 session-expiry ledger", () => {
  it("a disconnected session is due one interval after the disconnect; a connection's own row goes", async () => {
    const t = Date.now();
    await ledger.disconnected(id("gone"), 60, t);
    await ledger.disconnected(id("back"), 60, t);
    await ledger.forget(id("back"));
    expect(await ledger.takeDue(new Date(t + 59_000))).toEqual([]);
    expect(await ledger.takeDue(new Date(t + 60_000))).toEqual([{ clientId: id("gone"), intervalSeconds: 60, connected: false }]);
    // Taken: not due again.
    expect(await ledger.takeDue(new Date(t + 120_000))).toEqual([]);
  });

  it("a connected client's row is looked at again once its interval could have passed, never sooner than CONNECTED_RECHECK_MS", async () => {
    const t = Date.now();
    await ledger.connected(id("short"), 5, t);
    await ledger.connected(id("long"), 3600, t);
    expect(recheckAfterMs(5)).toBe(CONNECTED_RECHECK_MS);
    expect(recheckAfterMs(3600)).toBeGreaterThan(3600 * 1000);
    expect(await ledger.takeDue(new Date(t + CONNECTED_RECHECK_MS - 1))).toEqual([]);
    expect(await ledger.takeDue(new Date(t + CONNECTED_RECHECK_MS))).toEqual([{ clientId: id("short"), intervalSeconds: 5, connected: true }]);
    expect(await ledger.takeDue(new Date(t + 3600 * 1000))).toEqual([]);
    expect(await ledger.takeDue(new Date(t + recheckAfterMs(3600)))).toEqual([{ clientId: id("long"), intervalSeconds: 3600, connected: true }]);
    // The disconnect replaces the look-again with the real deadline.
    await ledger.connected(id("leaves"), 5, t);
    await ledger.disconnected(id("leaves"), 5, t + 1_000);
    expect(await ledger.takeDue(new Date(t + 6_000))).toEqual([{ clientId: id("leaves"), intervalSeconds: 5, connected: false }]);
  });

  it("each due row goes to one sweeper, however many sweep at once", async () => {
    const t = Date.now() - 10_000;
    const names = Array.from({ length: 450 }, (_, i) => `many-${i}`);
    for (const name of names) await ledger.disconnected(id(name), 1, t);
    const seen: DueSession[][] = [[], [], []];
    await Promise.all(seen.map((into) => ledger.sweep(async (s) => void into.push(s))));
    const all = seen.flat().map((s) => s.clientId);
    expect(all.length).toBe(names.length);
    expect(new Set(all).size).toBe(names.length);
  });

  it("a session that could not be ended (store unreachable, broker closing) is due again at the next sweep, as it was", async () => {
    await ledger.disconnected(id("unlucky"), 7, Date.now() - 10_000);
    const taken = await ledger.sweep(async (s) => {
      if (s.clientId === id("unlucky")) throw new Error("Redis is down");
    });
    expect(taken).toBeGreaterThanOrEqual(1);
    expect((await ledger.takeDue(new Date())).map((s) => s.clientId)).not.toContain(id("unlucky"));
    expect(await ledger.takeDue(new Date(Date.now() + SESSION_SWEEP_MS + 1_000))).toContainEqual({ clientId: id("unlucky"), intervalSeconds: 7, connected: false });
  });

  it("a client id that is not the broker's internal form is not recorded", async () => {
    await ledger.disconnected("no-organization", 1, Date.now() - 5_000);
    expect((await ledger.takeDue(new Date())).map((s) => s.clientId)).not.toContain("no-organization");
  });
});
