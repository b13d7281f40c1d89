import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import type { Message } from "@/server/runtime/types";
import { filterNode } from "./definition";
import { MAX_TOPICS } from "../sequence-support";

const flow = closingTestFlows();

/** Sends the messages in order and returns what passed, once the flow is quiet. */
async function through(config: Record<string, unknown>, messages: Array<Partial<Message>>) {
  const h = await flow([{ id: "f", type: "filter", config }, { id: "s", type: "sink" }], [{ source: "f", target: "s" }]);
  messages.forEach((m) => h.send("f", m));
  await new Promise((r) => setTimeout(r, 80));
  return { passed: h.received.map((m) => m.payload), h };
}

describe("filter (Node-RED's rbe)", () => {
  it("passes only changes, per topic, comparing objects deeply (rbe)", async () => {
    const { passed } = await through({ mode: "rbe" }, [
      { payload: "a" }, { payload: "a" }, { payload: 2 }, { payload: 2 },
      { payload: { b: 1, c: 2 } }, { payload: { c: 2, b: 1 } }, { payload: true }, { payload: false }, { payload: false },
      { topic: "a", payload: 1 }, { topic: "b", payload: 1 }, { topic: "b", payload: 1 }, { topic: "a", payload: 1 },
    ]);
    expect(passed).toEqual(["a", 2, { b: 1, c: 2 }, true, false, 1, 1]);
  });

  it("ignores topics when told to, and ignores the first value (rbei)", async () => {
    const { passed } = await through({ mode: "rbe", per_topic: false }, [{ topic: "a", payload: "a" }, { topic: "b", payload: "a" }, { topic: "a", payload: 2 }]);
    expect(passed).toEqual(["a", 2]);
    const rbei = await through({ mode: "rbei" }, [
      { payload: "a", topic: "a" }, { payload: "a", topic: "b" }, { payload: "a", topic: "a" }, { payload: "b", topic: "a" }, { payload: "b", topic: "b" },
    ]);
    expect(rbei.passed).toEqual(["b", "b"]);
  });

  it("forgets one topic or all on msg.reset", async () => {
    const { passed } = await through({ mode: "rbe" }, [
      { topic: "a", payload: "a" }, { topic: "a", payload: "a" }, { topic: "b", payload: "b" }, { reset: true },
      { topic: "a", payload: "a" }, { topic: "b", payload: "b" }, { topic: "b", payload: "b" }, { topic: "b", reset: "" },
      { topic: "b", payload: "b" }, { topic: "a", payload: "a" },
    ]);
    expect(passed).toEqual(["a", "b", "a", "b", "b"]);
  });

  it("deadband: passes changes of at least (Eq) or more than the gap, parsing numbers from text, or by percent", async () => {
    expect((await through({ mode: "deadbandEq", gap: 10 }, [0, 2, 4, 6, 8, 10, 15, 20].map((payload) => ({ payload })))).passed).toEqual([0, 10, 20]);
    expect((await through({ mode: "deadband", gap: 10 }, [0, 2, 4, "6 deg", 8, 20, 15, "5 deg"].map((payload) => ({ payload })))).passed).toEqual([0, 20, "5 deg"]);
    expect((await through({ mode: "deadband", gap: 10, gap_is_percent: true }, [100, 95, 105, 111, 120, 135].map((payload) => ({ payload })))).passed).toEqual([100, 111, 135]);
  });

  it("narrowband: blocks outliers, from a start value, against the last output or the last input", async () => {
    expect((await through({ mode: "narrowbandEq", gap: 10, start: 1 }, [100, 0, 10, 5, 15, 10, 20, 25].map((payload) => ({ payload })))).passed).toEqual([0, 5, 10]);
    expect((await through({ mode: "narrowband", gap: 10, inout: "in" }, [0, 100, 105, 50, 55].map((payload) => ({ payload })))).passed).toEqual([0, 105, 55]);
  });

  it("warns when a band mode gets no number", async () => {
    const { passed, h } = await through({ mode: "deadband", gap: 10 }, [{ payload: "banana" }]);
    expect(passed).toEqual([]);
    expect(h.errors.map((e) => e.error)).toEqual(["no number found in payload"]);
  });

  it(`remembers at most ${MAX_TOPICS} topics, forgetting the oldest`, async () => {
    const h = await flow([{ id: "f", type: "filter", config: { mode: "rbe" } }, { id: "s", type: "sink" }], [{ source: "f", target: "s" }]);
    for (let i = 0; i <= MAX_TOPICS; i++) h.send("f", { topic: `t${i}`, payload: 1 });
    h.send("f", { topic: "t1", payload: 1 });
    h.send("f", { topic: "t0", payload: 1 });
    await h.waitFor(MAX_TOPICS + 2, 10_000);
    await new Promise((r) => setTimeout(r, 50));
    // t0 was forgotten (its value passes again as a first one); t1 was kept (blocked).
    expect(h.received).toHaveLength(MAX_TOPICS + 2);
    expect(h.received.at(-1)!.topic).toBe("t0");
  }, 20_000);

  it("maps Node-RED's rbe properties both ways", () => {
    const nr = { func: "deadband", gap: "10%", start: "", inout: "in", septopics: false, property: "payload.v", topi: "device" };
    const config = filterNode.configSchema.parse(filterNode.nodeRed!.fromNodeRed(nr));
    expect(config).toMatchObject({ mode: "deadband", gap: 10, gap_is_percent: true, start: null });
    expect(filterNode.nodeRed!.toNodeRed(config)).toEqual(nr);
    expect(filterNode.nodeRed!.type).toBe("rbe");
  });
});
