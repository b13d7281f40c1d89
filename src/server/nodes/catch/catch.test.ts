/** The catch node's scopes and "uncaught only", after Node-RED's Flow_spec.js #handleError. */
import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import type { NodeFactory } from "@/server/runtime/types";

const flow = closingTestFlows();

/** Fails on every message with config.error (as node.error(err, msg) would). */
const failing: Record<string, NodeFactory> = {
  fail: (ctx) => ({
    input(msg, _send, done) {
      done(String(ctx.node.config.error ?? "my-error"));
    },
  }),
};

describe("catch", () => {
  it("scoped catch nodes first; 'uncaught only' ones get only what no other catch node took", async () => {
    const h = await flow(
      [
        { id: "1", type: "fail", name: "a", config: { error: "my-error" } },
        { id: "3", type: "fail", config: { error: "my-error-2" } },
        { id: "sn", type: "catch", config: { scope: ["2"] } },
        { id: "sn2", type: "catch", config: { scope: ["1"] } },
        { id: "sn3", type: "catch", config: { uncaught: true } },
        { id: "sn4", type: "catch", config: { uncaught: true } },
        { id: "s-sn", type: "sink" },
        { id: "s-sn2", type: "sink" },
        { id: "s-sn3", type: "sink" },
        { id: "s-sn4", type: "sink" },
      ],
      ["sn", "sn2", "sn3", "sn4"].map((id) => ({ source: id, target: `s-${id}` })),
      {},
      failing,
    );
    const at = (sink: string) => h.arrivals.filter((a) => a.sink === sink).map((a) => a.msg);
    h.send("1", { a: "foo" });
    await h.waitFor(1);
    await new Promise((r) => setTimeout(r, 30));
    expect(at("s-sn")).toEqual([]);
    expect(at("s-sn2")).toEqual([expect.objectContaining({ a: "foo", error: { message: "my-error", source: { id: "1", type: "fail", name: "a", count: 1 } } })]);
    expect(at("s-sn3")).toEqual([]);
    expect(at("s-sn4")).toEqual([]);

    h.send("3", { a: "foo-2" });
    await h.waitFor(3);
    expect(at("s-sn2")).toHaveLength(1);
    expect(at("s-sn3")).toEqual([expect.objectContaining({ a: "foo-2", error: { message: "my-error-2", source: { id: "3", type: "fail", count: 1 } } })]);
    expect(at("s-sn4")).toHaveLength(1);
  });

  it("an 'all nodes' catch node takes an error before the 'uncaught only' one", async () => {
    const h = await flow(
      [
        { id: "bad", type: "fail" },
        { id: "late", type: "catch", config: { uncaught: true } },
        { id: "all", type: "catch" },
        { id: "s-late", type: "sink" },
        { id: "s-all", type: "sink" },
      ],
      [
        { source: "late", target: "s-late" },
        { source: "all", target: "s-all" },
      ],
      {},
      failing,
    );
    h.send("bad", { payload: 1 });
    await h.waitFor(1);
    await new Promise((r) => setTimeout(r, 30));
    expect(h.arrivals.map((a) => a.sink)).toEqual(["s-all"]);
  });

  it("moves any existing error object sideways", async () => {
    const h = await flow([{ id: "1", type: "fail", name: "a" }, { id: "sn", type: "catch" }, { id: "s", type: "sink" }], [{ source: "sn", target: "s" }], {}, failing);
    h.send("1", { a: "foo", error: "existing" });
    const [m] = await h.waitFor(1);
    expect(m).toMatchObject({ _error: "existing", error: { message: "my-error", source: { id: "1", type: "fail", name: "a" } } });
  });

  it("stops catching a message that keeps failing at the same node (an error loop)", async () => {
    // The catch node feeds the failed message back into the failing node: Node-RED stops at count 10.
    const h = await flow([{ id: "bad", type: "fail" }, { id: "sn", type: "catch" }, { id: "s", type: "sink" }], [
      { source: "sn", target: "bad" },
      { source: "sn", target: "s" },
    ], {}, failing);
    h.send("bad", { payload: 1 });
    await h.waitFor(9);
    await new Promise((r) => setTimeout(r, 50));
    expect(h.received.map((m) => (m.error as { source: { count: number } }).source.count)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(h.errors.some((e) => e.error === "Message exceeded maximum number of catches")).toBe(true);
  });

  it("node.error(err, msg) from a node reaches the catch nodes; without a message it does not", async () => {
    const logging: Record<string, NodeFactory> = {
      logs: (ctx) => ({
        input(msg, _send, done) {
          ctx.log.error(new Error("with message"), msg);
          ctx.log.error(new Error("without message"));
          done();
        },
      }),
    };
    const h = await flow([{ id: "l", type: "logs" }, { id: "sn", type: "catch" }, { id: "s", type: "sink" }], [{ source: "sn", target: "s" }], {}, logging);
    h.send("l", { payload: "p" });
    const [m] = await h.waitFor(1);
    await new Promise((r) => setTimeout(r, 30));
    expect(h.received).toHaveLength(1);
    expect(m).toMatchObject({ payload: "p", error: { message: "Error: with message", source: { id: "l", type: "logs" } } });
  });
});
