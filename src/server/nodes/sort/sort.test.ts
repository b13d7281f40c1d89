import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import { sortNode } from "./definition";
import { TOO_MANY } from "./behaviour";
import { MAX_HELD_MESSAGES } from "../sequence-support";

const flow = closingTestFlows();
const quiet = (ms = 60) => new Promise((r) => setTimeout(r, ms));

async function sortFlow(config: Record<string, unknown>) {
  return flow([{ id: "o", type: "sort", config }, { id: "s", type: "sink" }], [{ source: "o", target: "s" }]);
}

describe("sort", () => {
  it("sorts a property's array ascending, descending and as numbers, and drops non-arrays", async () => {
    const h = await sortFlow({});
    h.send("o", { payload: ["10", "9", "1"] });
    h.send("o", { payload: "not an array" });
    const d = await sortFlow({ order: "descending", as_number: true, target: "data" });
    d.send("o", { data: ["10", "9", "1"] });
    const [a] = await h.waitFor(1);
    const [b] = await d.waitFor(1);
    await quiet();
    expect(h.received).toHaveLength(1);
    expect(a!.payload).toEqual(["1", "10", "9"]);
    expect(b!.data).toEqual(["10", "9", "1"]);
  });

  it("reorders a sequence by a message property, renumbering parts.index, keeping ties in arrival order", async () => {
    const h = await sortFlow({ target_type: "seq", seq_key: "payload.k", as_number: true });
    const items = [{ k: "3", n: "a" }, { k: "1", n: "b" }, { k: "3", n: "c" }, { k: "2", n: "d" }];
    items.forEach((payload, index) => h.send("o", { payload, parts: { id: "g", index, count: 4 } }));
    const got = await h.waitFor(4);
    expect(got.map((m) => (m.payload as { n: string }).n)).toEqual(["b", "d", "a", "c"]);
    expect(got.map((m) => (m.parts as { index: number }).index)).toEqual([0, 1, 2, 3]);
  });

  it("takes the count from whichever message carries it, and ignores messages without parts", async () => {
    const h = await sortFlow({ target_type: "seq", order: "descending" });
    h.send("o", { payload: 1, parts: { id: "g", index: 0 } });
    h.send("o", { payload: 7 });
    h.send("o", { payload: 2, parts: { id: "g", index: 1, count: 2 } });
    const got = await h.waitFor(2);
    await quiet();
    expect(h.received.map((m) => m.payload)).toEqual([2, 1]);
    expect(got).toHaveLength(2);
  });

  it(`drops the oldest incomplete sequence past ${MAX_HELD_MESSAGES} held messages`, async () => {
    const h = await sortFlow({ target_type: "seq" });
    for (let i = 0; i <= MAX_HELD_MESSAGES; i++) h.send("o", { payload: i, parts: { id: i === MAX_HELD_MESSAGES ? "new" : "old", index: i } });
    const deadline = Date.now() + 10_000;
    while (!h.errors.some((e) => e.error === TOO_MANY) && Date.now() < deadline) await quiet();
    expect(h.errors.map((e) => e.error)).toContain(TOO_MANY);
    h.send("o", { payload: -1, parts: { id: "new", index: 1, count: 2 } });
    const got = await h.waitFor(2);
    expect(got.map((m) => m.payload)).toEqual([-1, MAX_HELD_MESSAGES]);
  }, 20_000);

  it("sorts by JSONata keys, on elements and on messages, and reports a failing expression", async () => {
    const h = await sortFlow({ target: "data", msg_key_type: "jsonata", msg_key: "$substring($,1)", as_number: true });
    h.send("o", { data: ["C200", "A4", "B30", "D1000"] });
    const [m] = await h.waitFor(1);
    expect(m!.data).toEqual(["A4", "B30", "C200", "D1000"]);

    const s = await sortFlow({ target_type: "seq", seq_key_type: "jsonata", seq_key: "payload.k * -1" });
    [1, 3, 2].forEach((k, index) => s.send("o", { payload: { k }, parts: { id: "g", index, count: 3 } }));
    const got = await s.waitFor(3);
    expect(got.map((x) => (x.payload as { k: number }).k)).toEqual([3, 2, 1]);

    const bad = await sortFlow({ target_type: "seq", seq_key_type: "jsonata", seq_key: "$unknown()" });
    [1, 2].forEach((payload, index) => bad.send("o", { payload, parts: { id: "g", index, count: 2 } }));
    await quiet(150);
    expect(bad.received).toHaveLength(0);
    expect(bad.errors.map((e) => e.error)[0]).toMatch(/^Invalid JSONata expression in sort node/);
  });

  it("refuses an invalid key expression or key property", () => {
    expect(sortNode.configSchema.safeParse({ target_type: "seq", seq_key_type: "jsonata", seq_key: "(" }).success).toBe(false);
    expect(sortNode.configSchema.safeParse({ target_type: "seq", seq_key: "__proto__.x" }).success).toBe(false);
    expect(sortNode.configSchema.safeParse({ msg_key_type: "jsonata", msg_key: "$." }).success).toBe(false);
  });

  it("maps Node-RED's properties both ways", () => {
    const nr = { order: "descending", as_num: true, target: "payload", targetType: "seq", msgKey: "payload", msgKeyType: "elem", seqKey: "payload.k", seqKeyType: "msg" };
    const config = sortNode.configSchema.parse(sortNode.nodeRed!.fromNodeRed(nr));
    expect(sortNode.nodeRed!.toNodeRed(config)).toEqual(nr);
  });
});
