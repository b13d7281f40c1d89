import { describe, expect, it } from "vitest";
import { createLogger } from "../logger";
import { MemoryStore } from "../store/memory";
import { VariableSet } from "../runtime/variables";
import { VariableCache } from "./variable-cache";

const logger = createLogger({ level: "silent" });
const setOf = (value: string) => new VariableSet(new Map([["TOKEN", { value, secret: true }]]), new Map());

describe("the variable cache", () => {
  it("loads an organization once, reloads it when a change is announced, and keeps redacting the old secret", async () => {
    const store = new MemoryStore();
    let value = "first-value";
    let loads = 0;
    const cache = new VariableCache({ store, logger, load: async () => (loads++, setOf(value)) });
    await cache.start();
    try {
      expect(cache.current("org_1").lookup("f", "TOKEN")).toBeUndefined();
      await cache.ensure("org_1");
      await cache.ensure("org_1");
      expect(loads).toBe(1);
      value = "second-value";
      // Another instance's change arrives over the store's pub/sub.
      await store.publish("variables:changed", "org_1");
      for (let i = 0; i < 50 && cache.current("org_1").lookup("f", "TOKEN")?.value !== "second-value"; i++) await new Promise((r) => setTimeout(r, 10));
      expect(cache.current("org_1").lookup("f", "TOKEN")?.value).toBe("second-value");
      expect(cache.current("org_1").redactText("first-value second-value")).toBe("*** ***");
      // An organization not held here is not loaded by an announcement.
      await store.publish("variables:changed", "org_2");
      await new Promise((r) => setTimeout(r, 20));
      expect(loads).toBe(2);
    } finally {
      await cache.close();
      await store.close();
    }
  });

  it("refuses to start a flow whose organization's variables cannot be read", async () => {
    const store = new MemoryStore();
    const cache = new VariableCache({ store, logger, load: async () => Promise.reject(new Error("database down")) });
    await cache.start();
    try {
      await expect(cache.ensure("org_1")).rejects.toThrow(/could not be read/);
    } finally {
      await cache.close();
      await store.close();
    }
  });
});
