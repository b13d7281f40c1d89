import { describe, expect, it } from "vitest";
import type { PrismaClient } from "@/generated/prisma/client";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { DashboardStateStore } from "./dashboard-state";

/**
 * The write-behind of widget states on the real database: a page built while a batch is being
 * written must still see the states of that batch (the flush takes them out of `pending` before
 * its statement commits). Caught by the Dashboard 1 LED's browser test on PostgreSQL + Redis: a
 * page opened in that window showed the widget's state from before.
 */
const testApp = setUpTestApp();

/** The app's client, with its writes held until `release()`; `started` resolves when one is waiting. */
function heldWrites(prisma: PrismaClient) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let started!: () => void;
  const waiting = new Promise<void>((r) => (started = r));
  const client = new Proxy(prisma, {
    get(target, key) {
      if (key === "$executeRawUnsafe") {
        return async (...args: Parameters<PrismaClient["$executeRawUnsafe"]>) => {
          started();
          await gate;
          return target.$executeRawUnsafe(...args);
        };
      }
      return Reflect.get(target, key, target);
    },
  });
  return { client, release, waiting };
}

describe("dashboard widget states (write-behind)", () => {
  it("a state whose batch is being written is read from that batch, then from the table", async () => {
    const owner = await signUp(testApp.request);
    const org = owner.organizationId;
    const held = heldWrites(testApp.app.db.prisma);
    const store = new DashboardStateStore(held.client, testApp.app.logger, { maxStateBytes: 10_000, flushDelayMs: 60_000 });
    store.set(org, "led", { msg: { payload: "hot" } });
    store.set(org, "gone", null);
    const flushed = store.flush();
    await held.waiting;
    // The batch is out of `pending` and not committed: the read still has it.
    const during = await store.read(org, ["led", "gone", "other"]);
    expect(Object.fromEntries(during)).toEqual({ led: { msg: { payload: "hot" } }, gone: null });
    // A newer state set meanwhile wins over the batch in flight.
    store.set(org, "led", { msg: { payload: "cold" } });
    expect((await store.read(org, ["led"])).get("led")).toEqual({ msg: { payload: "cold" } });
    held.release();
    await flushed;
    await store.close();
    // Committed: a store with nothing pending (another instance) reads it from the table.
    const fresh = new DashboardStateStore(testApp.app.db.prisma, testApp.app.logger, { maxStateBytes: 10_000 });
    expect(Object.fromEntries(await fresh.read(org, ["led", "gone"]))).toEqual({ led: { msg: { payload: "cold" } } });
    await fresh.close();
  });

  it("a batch that fails is read from pending again, and written on the next flush", async () => {
    const owner = await signUp(testApp.request);
    const org = owner.organizationId;
    let fail = true;
    const prisma = testApp.app.db.prisma;
    const flaky = new Proxy(prisma, {
      get(target, key) {
        if (key === "$executeRawUnsafe") {
          return async (...args: Parameters<PrismaClient["$executeRawUnsafe"]>) => {
            if (fail) throw new Error("database away");
            return target.$executeRawUnsafe(...args);
          };
        }
        return Reflect.get(target, key, target);
      },
    });
    const store = new DashboardStateStore(flaky, testApp.app.logger, { maxStateBytes: 10_000, flushDelayMs: 60_000 });
    store.set(org, "gauge", { msg: { payload: 42 } });
    await store.flush();
    expect((await store.read(org, ["gauge"])).get("gauge")).toEqual({ msg: { payload: 42 } });
    fail = false;
    await store.close();
    const fresh = new DashboardStateStore(prisma, testApp.app.logger, { maxStateBytes: 10_000 });
    expect((await fresh.read(org, ["gauge"])).get("gauge")).toEqual({ msg: { payload: 42 } });
    await fresh.close();
  });
});
