import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import { splitNode } from "./definition";

const flow = closingTestFlows();

async function splitFlow(config: Record<string, unknown> = {}) {
  return flow([{ id: "sp", type: "split", config }, { id: "s", type: "sink" }], [{ source: "sp", target: "s" }]);
}

describe("split", () => {
  it("splits an array into one message per element with parts, each with a new _msgid", async () => {
    const h = await splitFlow();
    h.send("sp", { _msgid: "orig", payload: [1, 2, 3, 4], topic: "t" });
    const got = await h.waitFor(4);
    expect(got.map((m) => m.payload)).toEqual([1, 2, 3, 4]);
    const ids = new Set(got.map((m) => (m.parts as { id: string }).id));
    expect(ids.size).toBe(1);
    got.forEach((m, i) => {
      expect(m.topic).toBe("t");
      expect(m.parts).toEqual({ id: [...ids][0], type: "array", count: 4, len: 1, index: i });
      expect(m._msgid).not.toBe("orig");
    });
    expect(new Set(got.map((m) => m._msgid)).size).toBe(4);
  });

  it("splits an array into chunks and a sub-property, and keeps outer parts as parts.parts", async () => {
    const h = await splitFlow({ property: "foo", array_split: 3 });
    h.send("sp", { foo: [1, 2, 3, 4, 5, 6, 7], parts: { id: "outer", index: 2, count: 5 } });
    const got = await h.waitFor(3);
    expect(got.map((m) => m.foo)).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
    expect(got[0]!.parts).toMatchObject({ type: "array", count: 3, len: 3, index: 0, property: "foo", parts: { id: "outer", index: 2, count: 5 } });
  });

  it("splits an object into key/value messages and copies the key to topic", async () => {
    const h = await splitFlow({ add_name: "topic" });
    h.send("sp", { payload: { a: 1, b: "2", c: true }, topic: "orig" });
    const got = await h.waitFor(3);
    expect(got.map((m) => [m.topic, m.payload, (m.parts as { key: string }).key])).toEqual([
      ["a", 1, "a"],
      ["b", "2", "b"],
      ["c", true, "c"],
    ]);
    expect(got[2]!.parts).toMatchObject({ type: "object", index: 2, count: 3 });
  });

  it("splits strings at \\n by default, at a string, and into lengths (count rounded up)", async () => {
    const h = await splitFlow();
    h.send("sp", { payload: "Da\nve\n \nCJ" });
    const got = await h.waitFor(4);
    expect(got.map((m) => m.payload)).toEqual(["Da", "ve", " ", "CJ"]);
    expect(got[3]!.parts).toMatchObject({ type: "string", ch: "\n", index: 3, count: 4 });

    const l = await splitFlow({ split_type: "len", split: "2" });
    l.send("sp", { payload: "12345" });
    const parts = await l.waitFor(3);
    expect(parts.map((m) => m.payload)).toEqual(["12", "34", "5"]);
    expect(parts[0]!.parts).toMatchObject({ type: "string", ch: "", len: 2, count: 3 });
  });

  it("streams strings: a partial trailing segment waits for the next message, and no count is set", async () => {
    const h = await splitFlow({ stream: true });
    h.send("sp", { payload: "1\n2\n3" });
    h.send("sp", { payload: "4\n5\n" });
    const got = await h.waitFor(4);
    await new Promise((r) => setTimeout(r, 50));
    expect(got.map((m) => m.payload)).toEqual(["1", "2", "34", "5"]);
    expect(got.map((m) => (m.parts as { index: number }).index)).toEqual([0, 1, 2, 3]);
    expect(got.every((m) => (m.parts as Record<string, unknown>).count === undefined)).toBe(true);
  });

  it("splits buffers into lengths and at bytes, streaming the remainder", async () => {
    const h = await splitFlow({ split_type: "len", split: "2" });
    h.send("sp", { payload: Buffer.from("12345678") });
    const got = await h.waitFor(4);
    expect(got.map((m) => (m.payload as Buffer).toString())).toEqual(["12", "34", "56", "78"]);
    expect(Buffer.isBuffer(got[0]!.payload)).toBe(true);
    expect(got[0]!.parts).toMatchObject({ type: "buffer", count: 4, len: 2 });

    const b = await splitFlow({ split_type: "bin", split: "[52]", stream: true });
    b.send("sp", { payload: Buffer.from("123412") });
    b.send("sp", { payload: Buffer.from("341234") });
    const bits = await b.waitFor(3);
    expect(bits.map((m) => (m.payload as Buffer).toString())).toEqual(["123", "123", "123"]);
    expect(bits[0]!.parts).toMatchObject({ type: "buffer", ch: [52] });
  });

  it("drops a message whose property is missing or a number", async () => {
    const h = await splitFlow();
    h.send("sp", { topic: "no payload" });
    h.send("sp", { payload: 42 });
    h.send("sp", { payload: ["x"] });
    const got = await h.waitFor(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(got.map((m) => m.payload)).toEqual(["x"]);
  });

  it("splits an array larger than the flow may queue, pausing while the flow is busy, in order and losing nothing", async () => {
    const h = await splitFlow();
    const n = 120_000;
    h.send("sp", { payload: Array.from({ length: n }, (_, i) => i) });
    h.send("sp", { payload: ["after"] });
    const deadline = Date.now() + 20_000;
    while (h.received.length < n + 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(h.errors).toEqual([]);
    expect(h.received).toHaveLength(n + 1);
    expect(h.received.slice(0, n).every((m, i) => m.payload === i)).toBe(true);
    expect(h.received[n]!.payload).toBe("after");
  }, 30_000);

  it("stops sending a paused split when the flow stops", async () => {
    const h = await splitFlow();
    h.send("sp", { payload: Array.from({ length: 100_000 }, (_, i) => i) });
    while (h.received.length === 0) await new Promise((r) => setTimeout(r, 5));
    await h.engine.stop("flw_test");
    const count = h.received.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(h.received.length).toBe(count);
    expect(count).toBeLessThan(100_000);
  }, 20_000);

  it("refuses bad separators and lengths in its config", () => {
    expect(splitNode.configSchema.safeParse({ split_type: "bin", split: "1" }).success).toBe(false);
    expect(splitNode.configSchema.safeParse({ split_type: "len", split: "0" }).success).toBe(false);
    expect(splitNode.configSchema.safeParse({ array_split: 0 }).success).toBe(false);
    expect(splitNode.configSchema.safeParse({ add_name: "__proto__" }).success).toBe(false);
    expect(splitNode.configSchema.safeParse({ split_type: "bin", split: "[13,10]" }).success).toBe(true);
  });

  it("maps Node-RED's properties both ways", () => {
    const nr = { splt: "[13,10]", spltType: "bin", arraySplt: 2, arraySpltType: "len", stream: true, addname: "topic", property: "payload.x" };
    const config = splitNode.configSchema.parse(splitNode.nodeRed!.fromNodeRed(nr));
    expect(splitNode.nodeRed!.toNodeRed(config)).toEqual(nr);
  });
});
