/**
 * Issue 40 row 1: the journal's batch is shared by every organization on the instance, so a write
 * the store refuses for its data is found alone (organization by organization, then halves) and
 * given up, reported and counted; the others are stored and their messages released. An outage is
 * retried as a whole, and stalledSince() says how long (GET /ready).
 */
import { describe, expect, it } from "vitest";
import { ContextJournal, type ContextWrite, type RefusedWrite, type StoredWrite } from "./context-journal";
import { ContextScope, type OrgUsage } from "./context-scope";
import { MAX_CONTEXT_KEY_LENGTH } from "./context-key";

class OutageError extends Error {}

/** Refuses any batch holding a key starting with "bad" (as PostgreSQL refuses a key its index cannot hold); away while `away`. */
class RefusingBackend {
  commits: string[][] = [];
  away = false;
  private version = 0;
  async commit(writes: ContextWrite[]): Promise<StoredWrite[]> {
    this.commits.push(writes.map((w) => `${w.organizationId}/${w.key}`));
    if (this.away) throw new OutageError("connection refused");
    if (writes.some((w) => w.key.startsWith("bad"))) throw new Error("index row size 3016 exceeds btree version 4 maximum 2704");
    return writes.map((w) => ({ organizationId: w.organizationId, scope: w.scope, key: w.key, json: w.json, version: ++this.version }));
  }
  isOutage(err: unknown): boolean {
    return err instanceof OutageError;
  }
}

function setUp() {
  const backend = new RefusingBackend();
  const refused: RefusedWrite[] = [];
  const journal = new ContextJournal({ backend, onRefused: (w) => refused.push(w) });
  const usage: OrgUsage = { bytes: 0, limit: 1_000_000 };
  const scope = (org: string) => new ContextScope(org, "flw_1", usage, journal);
  return { backend, refused, journal, scope };
}

describe("ContextJournal: isolation of a refused write", () => {
  it("stores every other organization's writes, gives the refused one up (reported with its node, counted, dropped from the cache) and releases the messages held", async () => {
    const { backend, refused, journal, scope } = setUp();
    const scopes = ["org_a", "org_b", "org_c"].map(scope);
    for (const [i, s] of scopes.entries()) for (let k = 0; k < 5; k++) s.set(`k${k}`, i * 10 + k);
    scopes[1]!.applySandboxWrites([["bad-key", "1"]], "fn_node");
    let released = false;
    journal.whenStored(journal.written(), () => {
      released = true;
    });
    await journal.flushed();
    expect(released).toBe(true);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ organizationId: "org_b", key: "bad-key", nodeId: "fn_node" });
    expect(String(refused[0]!.error)).toContain("btree");
    expect(journal.counters.refused).toBe(1);
    expect(scopes[1]!.get("bad-key")).toBeUndefined();
    // One try for all, then each organization alone; org_b's then in halves until the bad key is alone.
    expect(backend.commits[0]).toHaveLength(16);
    const stored = new Set(backend.commits.slice(1).filter((c) => !c.some((k) => k.includes("bad"))).flat());
    expect(stored.size).toBe(15);
    expect(backend.commits.filter((c) => c.length === 1 && c[0] === "org_b/bad-key")).toHaveLength(1);
    expect(journal.backlog()).toBe(0);
    expect(journal.stalledSince()).toBeNull();

    // Never retried: the next flush carries only what is new.
    scopes[0]!.set("later", 1);
    await journal.flushed();
    expect(backend.commits.at(-1)).toEqual(["org_a/later"]);
  });

  it("an outage is retried whole (never split, never given up), holds the messages, and reports since when (GET /ready, check-readiness.test.ts)", async () => {
    const { backend, refused, journal, scope } = setUp();
    backend.away = true;
    const a = scope("org_a");
    a.set("x", 1);
    scope("org_b").set("y", 2);
    let released = false;
    journal.whenStored(journal.written(), () => {
      released = true;
    });
    // At least one retry (100 ms after the first failure), however slow the machine.
    await expect.poll(() => backend.commits.length, { timeout: 5000 }).toBeGreaterThanOrEqual(2);
    expect(released).toBe(false);
    expect(backend.commits.every((c) => c.length === 2)).toBe(true);
    expect(journal.stalledSince()).not.toBeNull();
    expect(journal.backlog()).toBe(2);
    backend.away = false;
    await journal.flushed();
    expect(released).toBe(true);
    expect(refused).toEqual([]);
    expect(journal.stalledSince()).toBeNull();
  });
});

describe("context keys at the door", () => {
  it("a key over MAX_CONTEXT_KEY_LENGTH, or with NUL or a lone surrogate, is refused by set and increment before the journal sees it", () => {
    const { journal, scope } = setUp();
    const s = scope("org_a");
    expect(() => s.set("k".repeat(MAX_CONTEXT_KEY_LENGTH + 1), 1)).toThrow(`context key is too long: ${MAX_CONTEXT_KEY_LENGTH + 1} characters (at most ${MAX_CONTEXT_KEY_LENGTH})`);
    expect(() => s.increment("a\u0000b")).toThrow(/NUL/);
    expect(() => s.setJson("\udc00", "1")).toThrow(/surrogate/);
    s.applySandboxWrites([["x".repeat(3000), "1"]], "fn");
    expect(journal.written()).toBe(0);
    s.set("k".repeat(MAX_CONTEXT_KEY_LENGTH), 1);
    s.set("😀", 1);
    expect(journal.written()).toBe(2);
  });

  it("a new key past the organization's CONTEXT_MAX_KEYS is refused: thrown on the host, given up as a refusal (its node's error) for a sandbox's write; a deleted key keeps its row (it still counts)", async () => {
    const backend = new RefusingBackend();
    const refused: RefusedWrite[] = [];
    const journal = new ContextJournal({ backend, onRefused: (w) => refused.push(w) });
    const s = new ContextScope("org_a", "flw_1", { bytes: 0, limit: 1_000_000, keys: 0, maxKeys: 2 }, journal);
    s.set("a", 1);
    s.set("b", 1);
    expect(s.keysLeft()).toBe(0);
    expect(() => s.set("c", 1)).toThrow("context is full: the organization's context may hold 2 keys");
    s.set("a", 2);
    s.set("b", undefined);
    await journal.flushed();
    expect(() => s.set("c", 1)).toThrow(/2 keys/);
    s.set("b", 3);
    s.applySandboxWrites([["d", "1"]], "fn_node");
    expect(s.get("d")).toBeUndefined();
    expect(refused).toMatchObject([{ key: "d", nodeId: "fn_node" }]);
    expect(journal.counters.refused).toBe(1);
  });
});
