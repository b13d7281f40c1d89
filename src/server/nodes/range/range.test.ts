import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import type { Message } from "@/server/runtime/types";
import { rangeNode } from "./definition";

const flow = closingTestFlows();

async function through(config: Record<string, unknown>, messages: Array<Partial<Message>>) {
  const h = await flow([{ id: "r", type: "range", config }, { id: "s", type: "sink" }], [{ source: "r", target: "s" }]);
  messages.forEach((m) => h.send("r", m));
  await new Promise((r) => setTimeout(r, 60));
  return h.received;
}
const payloads = (ms: Message[]) => ms.map((m) => m.payload);
const r010 = { min_in: 0, max_in: 10, min_out: 0, max_out: 100 };

describe("range", () => {
  it("scales, limits, wraps and drops as Node-RED's help table says", async () => {
    expect(payloads(await through({ ...r010, action: "scale" }, [{ payload: 12 }, { payload: "5" }]))).toEqual([120, 50]);
    expect(payloads(await through({ ...r010, action: "clamp" }, [{ payload: 12 }, { payload: -1 }]))).toEqual([100, 0]);
    expect(payloads(await through({ ...r010, action: "roll" }, [{ payload: 12 }, { payload: -1 }, { payload: 10 }]))).toEqual([20, 90, 0]);
    expect(payloads(await through({ ...r010, action: "drop" }, [{ payload: 12 }, { payload: 3 }]))).toEqual([30]);
  });

  it("rounds, swaps a reversed input range, works on another property, passes a message without it, drops non-numbers", async () => {
    expect(payloads(await through({ min_in: 0, max_in: 100, min_out: 0.2, max_out: 10.8, round: true }, [{ payload: 50 }, { payload: 100 }]))).toEqual([6, 10]);
    expect(payloads(await through({ min_in: 10, max_in: 0, min_out: 0, max_out: 100 }, [{ payload: 2 }]))).toEqual([80]);
    const other = await through({ ...r010, property: "v.x" }, [{ v: { x: 1 } }, { topic: "none" }, { v: { x: "pear" } }]);
    expect(other.map((m) => [m.v, m.topic])).toEqual([[{ x: 10 }, undefined], [undefined, "none"]]);
  });

  it("refuses an empty input range and maps Node-RED's properties", () => {
    expect(rangeNode.configSchema.safeParse({ min_in: 1, max_in: 1 }).success).toBe(false);
    const nr = { minin: "0", maxin: "1023", minout: "0", maxout: "255", action: "clamp", round: true, property: "payload" };
    const config = rangeNode.configSchema.parse(rangeNode.nodeRed!.fromNodeRed(nr));
    expect(rangeNode.nodeRed!.toNodeRed(config)).toEqual(nr);
  });
});
