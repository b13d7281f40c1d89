/** The complete node, after Node-RED's Flow_spec.js #handleComplete and 24-complete_spec.js. */
import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import type { NodeFactory } from "@/server/runtime/types";

const flow = closingTestFlows();

const extra: Record<string, NodeFactory> = {
  /** Sends on and completes. */
  pass: () => ({
    input(msg, send, done) {
      send(msg);
      done();
    },
  }),
  /** Fails: an error is not a completion. */
  fail: () => ({
    input(_msg, _send, done) {
      done(new Error("no"));
    },
  }),
};

describe("complete", () => {
  it("sends a copy of each message a node in its scope finished with, with msg.complete.source", async () => {
    const h = await flow(
      [{ id: "1", type: "pass", name: "a" }, { id: "2", type: "change", config: { rules: [{ t: "set", p: "changed", to: "yes" }] } }, { id: "3", type: "debug" }, { id: "cn", type: "complete", config: { scope: ["1", "3"] } }, { id: "s", type: "sink" }],
      [
        { source: "1", target: "2" },
        { source: "2", target: "3" },
        { source: "cn", target: "s" },
      ],
      {},
      extra,
    );
    h.send("1", { payload: "hello world" });
    const [first, second] = await h.waitFor(2);
    expect(first).toMatchObject({ payload: "hello world", complete: { source: { id: "1", type: "pass", name: "a" } } });
    expect(first).not.toHaveProperty("changed");
    expect(second).toMatchObject({ payload: "hello world", changed: "yes", complete: { source: { id: "3", type: "debug" } } });
    expect(first!._msgid).toBe(second!._msgid);
  });

  it("does not fire for a node that failed, nor for a node it is wired to", async () => {
    const h = await flow(
      [{ id: "bad", type: "fail" }, { id: "p", type: "pass" }, { id: "cn", type: "complete", config: { scope: ["bad", "p"] } }, { id: "s", type: "sink" }],
      [
        { source: "cn", target: "p" },
        { source: "cn", target: "s" },
      ],
      {},
      extra,
    );
    h.send("bad", { payload: 1 });
    h.send("p", { payload: 2 });
    await new Promise((r) => setTimeout(r, 80));
    expect(h.received).toEqual([]);
  });
});
