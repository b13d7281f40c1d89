import { describe, expect, it } from "vitest";
import { stableSubscriptionId } from "./connection";

describe("stableSubscriptionId", () => {
  it("numbers a topic filter the same on every instance, within MQTT's identifier range", () => {
    const filters = ["a/b", "a/#", "+/status", "", "sensors/é/temp", "x".repeat(1000)];
    for (const f of filters) {
      const id = stableSubscriptionId(f);
      expect(id).toBe(stableSubscriptionId(f));
      expect(id).toBeGreaterThanOrEqual(1);
      expect(id).toBeLessThanOrEqual(268_435_455);
      expect(Number.isInteger(id)).toBe(true);
    }
    expect(new Set(filters.map(stableSubscriptionId)).size).toBe(filters.length);
  });
});
