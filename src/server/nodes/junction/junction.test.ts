import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";

const flow = closingTestFlows();

describe("junction", () => {
  it("passes every message on, unchanged, to every wire leaving it", async () => {
    const h = await flow(
      [
        { id: "i", type: "inject", config: { payload_type: "json", payload: '{"n":1}', topic: "t" } },
        { id: "j", type: "junction" },
        { id: "a", type: "sink" },
        { id: "b", type: "sink" },
      ],
      [
        { source: "i", target: "j" },
        { source: "j", target: "a" },
        { source: "j", target: "b" },
      ],
    );
    h.engine.inject("flw_test", "i", {});
    const got = await h.waitFor(2);
    expect(got.map((m) => m.payload)).toEqual([{ n: 1 }, { n: 1 }]);
    expect(got.every((m) => m.topic === "t")).toBe(true);
  });
});
