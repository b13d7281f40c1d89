import { afterEach, describe, expect, it } from "vitest";
import { MemoryStore } from "./memory";
import { GenerationCache } from "./generation-cache";

const stores: MemoryStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

function cache(maxWeight = 100) {
  const store = new MemoryStore();
  stores.push(store);
  const make = () => new GenerationCache<{ size: number }>(store, { keyOf: (scope) => `gen:${scope}`, maxAgeMs: 60_000, maxWeight, weigh: (v) => v.size });
  return { store, a: make(), b: make() };
}

describe("GenerationCache", () => {
  it("serves an entry only under the generation it was kept under, on every instance", async () => {
    const { a, b } = cache();
    const g1 = await b.current("org1");
    b.set("org1", g1, "x", { size: 1 });
    expect(b.get("org1", g1, "x")).toEqual({ size: 1 });
    await a.changed("org1");
    const g2 = await b.current("org1");
    expect(g2).not.toBe(g1);
    expect(b.get("org1", g2, "x")).toBeUndefined();
  });

  it("refuses to keep a value read under a generation older than one seen since", async () => {
    const { a, b } = cache();
    const old = await b.current("org1");
    await a.changed("org1");
    const fresh = await b.current("org1");
    expect(b.get("org1", fresh, "x")).toBeUndefined();
    b.set("org1", old, "x", { size: 1 });
    expect(b.get("org1", fresh, "x")).toBeUndefined();
  });

  it("keeps scopes apart: one organization's change leaves another's entries", async () => {
    const { a, b } = cache();
    const g = await b.current("org2");
    b.set("org2", g, "x", { size: 1 });
    await a.changed("org1");
    expect(b.get("org2", await b.current("org2"), "x")).toEqual({ size: 1 });
  });

  it("stays within its weight: least recently used scopes go first, scopes themselves count, oversize values are not kept", async () => {
    const { b } = cache(10);
    const gens: Record<string, string> = {};
    for (const scope of ["s1", "s2", "s3"]) {
      gens[scope] = await b.current(scope);
      b.set(scope, gens[scope]!, "v", { size: 2 });
    }
    // s1 was used last: s2 goes first when s4 needs room.
    expect(b.get("s1", gens.s1!, "v")).toEqual({ size: 2 });
    gens.s4 = await b.current("s4");
    b.set("s4", gens.s4, "v", { size: 3 });
    expect(b.get("s2", gens.s2!, "v")).toBeUndefined();
    expect(b.get("s1", gens.s1!, "v")).toEqual({ size: 2 });
    b.set("s4", gens.s4, "huge", { size: 11 });
    expect(b.get("s4", gens.s4, "huge")).toBeUndefined();
    // Scopes that only ever read a generation are bounded too.
    for (let i = 0; i < 50; i++) b.get(`empty${i}`, "g", "nothing");
    expect((b as unknown as { scopes: Map<string, unknown> }).scopes.size).toBeLessThanOrEqual(10);
  });
});
