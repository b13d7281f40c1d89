import { describe, expect, it } from "vitest";
import { flowLabels } from "./flow-labels";

describe("flowLabels", () => {
  it("is the name alone when no other flow has it", () => {
    const labels = flowLabels([
      { id: "flw_aaaaaaaaaa111111", name: "Hello flow" },
      { id: "flw_bbbbbbbbbb222222", name: "Other" },
    ]);
    expect(labels.get("flw_aaaaaaaaaa111111")).toBe("Hello flow");
    expect(labels.get("flw_bbbbbbbbbb222222")).toBe("Other");
  });

  it("tells flows of the same name apart by the end of their ids, and only those", () => {
    const labels = flowLabels([
      { id: "flw_aaaaaaaaaa111111", name: "Hello flow" },
      { id: "flw_bbbbbbbbbb222222", name: "Hello flow" },
      { id: "flw_cccccccccc333333", name: "Other" },
    ]);
    expect(labels.get("flw_aaaaaaaaaa111111")).toBe("Hello flow (…111111)");
    expect(labels.get("flw_bbbbbbbbbb222222")).toBe("Hello flow (…222222)");
    expect(labels.get("flw_cccccccccc333333")).toBe("Other");
  });

  it("falls back to the whole id when the ends collide too", () => {
    const labels = flowLabels([
      { id: "flw_aaaaaaaaaa111111", name: "Hello flow" },
      { id: "flw_bbbbbbbbbb111111", name: "Hello flow" },
    ]);
    expect(new Set(labels.values()).size).toBe(2);
    expect(labels.get("flw_aaaaaaaaaa111111")).toBe("Hello flow (flw_aaaaaaaaaa111111)");
  });
});
