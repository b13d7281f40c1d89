/**
 * link-in, link-out and link-call in one engine, after Node-RED's test/nodes/core/common/60-link_spec.js:
 * within a flow, across flows, across organizations (never), and through the runaway guards.
 */
import { describe, expect, it } from "vitest";
import { closingMultiFlowEngines } from "@/test/multi-flow-harness";
import type { NodeFactory } from "@/server/runtime/types";

const load = closingMultiFlowEngines();

const setPayload = (id: string, value: string) => ({ id, type: "change", config: { rules: [{ t: "set", p: "payload", to: value }] } });
const setProp = (id: string, prop: string, value: string) => ({ id, type: "change", config: { rules: [{ t: "set", p: prop, to: value }] } });

describe("link-out and link-in", () => {
  it("should be linked", async () => {
    const h = await load([
      {
        flowId: "f1",
        nodes: [{ id: "n1", type: "link-out", config: { links: ["n2"] } }, { id: "n2", type: "link-in" }, { id: "n3", type: "sink" }],
        connections: [{ source: "n2", target: "n3" }],
      },
    ]);
    h.send("f1", "n1", { payload: "hello" });
    await expect.poll(() => h.at("n3")).toHaveLength(1);
    expect(h.at("n3")[0]).toMatchObject({ payload: "hello" });
  });

  it("should be linked to multiple nodes, each getting its own copy", async () => {
    const h = await load([
      {
        flowId: "f1",
        nodes: [{ id: "n1", type: "link-out", config: { links: ["n2", "n3"] } }, { id: "n2", type: "link-in" }, { id: "n3", type: "link-in" }, { id: "n4", type: "sink" }],
        connections: [
          { source: "n2", target: "n4" },
          { source: "n3", target: "n4" },
        ],
      },
    ]);
    h.send("f1", "n1", { payload: "hello" });
    await expect.poll(() => h.at("n4")).toHaveLength(2);
    const [a, b] = h.at("n4");
    expect(a).toMatchObject({ payload: "hello" });
    expect(b).toMatchObject({ payload: "hello" });
    expect(a).not.toBe(b);
  });

  it("should be linked from multiple nodes", async () => {
    const h = await load([
      {
        flowId: "f1",
        nodes: [{ id: "n1", type: "link-out", config: { links: ["n3"] } }, { id: "n2", type: "link-out", config: { links: ["n3"] } }, { id: "n3", type: "link-in" }, { id: "n4", type: "sink" }],
        connections: [{ source: "n3", target: "n4" }],
      },
    ]);
    h.send("f1", "n1", { payload: "one" });
    h.send("f1", "n2", { payload: "two" });
    await expect.poll(() => h.at("n4").map((m) => m.payload)).toEqual(["one", "two"]);
  });

  it("reaches a link-in of another flow of the organization, and skips one whose flow does not run", async () => {
    const h = await load([
      { flowId: "f1", nodes: [{ id: "out", type: "link-out", config: { links: ["in2", "gone"] } }] },
      { flowId: "f2", nodes: [{ id: "in2", type: "link-in" }, { id: "s2", type: "sink" }], connections: [{ source: "in2", target: "s2" }] },
    ]);
    h.send("f1", "out", { payload: "across", topic: "t" });
    await expect.poll(() => h.at("s2")).toHaveLength(1);
    expect(h.at("s2")[0]).toMatchObject({ payload: "across", topic: "t" });
    await h.engine.stop("f2");
    h.send("f1", "out", { payload: "nobody" });
    await new Promise((r) => setTimeout(r, 50));
    expect(h.at("s2")).toHaveLength(1);
    expect(h.errors).toEqual([]);
  });

  it("never reaches another organization's link-in, even with its id", async () => {
    const h = await load([
      { flowId: "mine", organizationId: "org_a", nodes: [{ id: "out", type: "link-out", config: { links: ["theirs-in"] } }, { id: "call", type: "link-call", config: { links: ["theirs-in"] } }, { id: "catch", type: "catch" }, { id: "caught", type: "sink" }], connections: [{ source: "catch", target: "caught" }] },
      { flowId: "theirs", organizationId: "org_b", nodes: [{ id: "theirs-in", type: "link-in", name: "shared" }, { id: "leak", type: "sink" }], connections: [{ source: "theirs-in", target: "leak" }] },
    ]);
    h.send("mine", "out", { payload: "x" });
    h.send("mine", "call", { payload: "y" });
    await expect.poll(() => h.at("caught")).toHaveLength(1);
    expect(h.at("caught")[0]!.error).toMatchObject({ message: "Error: target link-in node 'theirs-in' not found", source: { id: "call", type: "link call" } });
    expect(h.at("leak")).toEqual([]);
  });

  it("a forged _linkSource never returns a message into another organization's link-call", async () => {
    const h = await load([
      { flowId: "mine", organizationId: "org_a", nodes: [{ id: "ret", type: "link-out", config: { mode: "return" } }] },
      { flowId: "theirs", organizationId: "org_b", nodes: [{ id: "their-call", type: "link-call", config: { links: ["x"] } }, { id: "leak", type: "sink" }], connections: [{ source: "their-call", target: "leak" }] },
    ]);
    h.send("mine", "ret", { payload: "forged", _linkSource: [{ id: "e1", node: "their-call" }] });
    await expect.poll(() => h.errors).toEqual([{ flowId: "mine", nodeId: "ret", error: "Missing return node information" }]);
    expect(h.at("leak")).toEqual([]);
  });

  it("warns 'Missing return node information' in return mode without a caller", async () => {
    const h = await load([{ flowId: "f1", nodes: [{ id: "ret", type: "link-out", config: { mode: "return" } }] }]);
    h.send("f1", "ret", { payload: 1 });
    await expect.poll(() => h.errors).toEqual([{ flowId: "f1", nodeId: "ret", error: "Missing return node information" }]);
  });

  it("a link into another flow weighs on the sending flow until it is delivered there (backpressure follows links)", async () => {
    const seen: Array<{ busy: boolean; waiting: number }> = [];
    const burst: NodeFactory = (ctx) => ({
      input(msg, _send, done) {
        for (let i = 0; i < 6; i++) ctx.links.send(["in2"], { _msgid: `${msg._msgid}-${i}`, payload: i });
        seen.push({ busy: ctx.busy(), waiting: ctx.waiting() });
        done();
      },
    });
    const h = await load(
      [
        { flowId: "f1", nodes: [{ id: "burst", type: "burst" }] },
        { flowId: "f2", nodes: [{ id: "in2", type: "link-in" }, { id: "s2", type: "sink" }], connections: [{ source: "in2", target: "s2" }] },
      ],
      { highWaterMark: 4 },
      { burst },
    );
    h.send("f1", "burst", { payload: "go" });
    await expect.poll(() => h.at("s2")).toHaveLength(6);
    expect(seen).toEqual([{ busy: true, waiting: 6 }]);
    expect(h.engine.load("f1")).toBe(0);
    expect(h.engine.isBusy("f1")).toBe(false);
  });

  it("a link loop between two flows is stopped by the hop limit", async () => {
    const h = await load(
      [
        { flowId: "f1", nodes: [{ id: "in1", type: "link-in" }, { id: "out1", type: "link-out", config: { links: ["in2"] } }], connections: [{ source: "in1", target: "out1" }] },
        { flowId: "f2", nodes: [{ id: "in2", type: "link-in" }, { id: "out2", type: "link-out", config: { links: ["in1"] } }], connections: [{ source: "in2", target: "out2" }] },
      ],
      { maxHops: 40 },
    );
    h.send("f1", "out1", { payload: "spin" });
    await expect.poll(() => h.errors.length).toBeGreaterThan(0);
    expect(h.errors[0]!.error).toMatch(/passed through 40 nodes: the flow loops/);
    const settled = h.engine.load("f1") + h.engine.load("f2");
    await new Promise((r) => setTimeout(r, 30));
    expect(settled).toBe(0);
  });
});

describe("link-call", () => {
  it("should call static link-in node and get response", async () => {
    const h = await load([
      {
        flowId: "f1",
        nodes: [{ id: "link-in-1", type: "link-in" }, setPayload("func", "123"), { id: "link-out-1", type: "link-out", config: { mode: "return" } }, { id: "link-call", type: "link-call", config: { links: ["link-in-1"] } }, { id: "n4", type: "sink" }],
        connections: [
          { source: "link-in-1", target: "func" },
          { source: "func", target: "link-out-1" },
          { source: "link-call", target: "n4" },
        ],
      },
    ]);
    h.send("f1", "link-call", { payload: "hello" });
    await expect.poll(() => h.at("n4")).toHaveLength(1);
    expect(h.at("n4")[0]).toMatchObject({ payload: "123" });
    expect(h.at("n4")[0]).not.toHaveProperty("_linkSource");
  });

  it("calls a link-in of another flow and gets the answer back into its own flow", async () => {
    const h = await load([
      { flowId: "caller", nodes: [{ id: "call", type: "link-call", config: { links: ["service-in"] } }, { id: "answer", type: "sink" }], connections: [{ source: "call", target: "answer" }] },
      {
        flowId: "service",
        nodes: [{ id: "service-in", type: "link-in" }, { id: "inside", type: "sink" }, setPayload("work", "done"), { id: "ret", type: "link-out", config: { mode: "return" } }],
        connections: [
          { source: "service-in", target: "work" },
          { source: "service-in", target: "inside" },
          { source: "work", target: "ret" },
        ],
      },
    ]);
    h.send("caller", "call", { payload: "job", topic: "t" });
    await expect.poll(() => h.at("answer")).toHaveLength(1);
    expect(h.at("answer")[0]).toMatchObject({ payload: "done", topic: "t" });
    // Inside the called flow the message carries where to return to, as in Node-RED.
    expect(h.at("inside")[0]!._linkSource).toEqual([{ id: expect.stringMatching(/^[0-9a-f]{28}$/), node: "call" }]);
  });

  it("should call link-in node by name and get response (this flow's first)", async () => {
    const h = await load([
      {
        flowId: "tab-flow-1",
        nodes: [
          { id: "link-in-1", type: "link-in", name: "double payload" },
          setProp("func", "via", "flow 1"),
          { id: "link-out-1", type: "link-out", config: { mode: "return" } },
          { id: "link-call", type: "link-call", config: { link_type: "dynamic" } },
          { id: "n4", type: "sink" },
        ],
        connections: [
          { source: "link-in-1", target: "func" },
          { source: "func", target: "link-out-1" },
          { source: "link-call", target: "n4" },
        ],
      },
      { flowId: "tab-flow-2", nodes: [{ id: "link-in-2", type: "link-in", name: "double payload" }, { id: "s2", type: "sink" }], connections: [{ source: "link-in-2", target: "s2" }] },
    ]);
    h.send("tab-flow-1", "link-call", { payload: 2, target: "double payload" });
    await expect.poll(() => h.at("n4")).toHaveLength(1);
    expect(h.at("n4")[0]).toMatchObject({ payload: 2, via: "flow 1", target: "double payload" });
    expect(h.at("s2")).toEqual([]);
  });

  it("by name: the one link-in of that name in another flow, or by id", async () => {
    const h = await load([
      { flowId: "f1", nodes: [{ id: "call", type: "link-call", config: { link_type: "dynamic" } }, { id: "out", type: "sink" }], connections: [{ source: "call", target: "out" }] },
      {
        flowId: "f2",
        nodes: [{ id: "svc", type: "link-in", name: "service" }, setProp("mark", "served", "yes"), { id: "ret", type: "link-out", config: { mode: "return" } }],
        connections: [
          { source: "svc", target: "mark" },
          { source: "mark", target: "ret" },
        ],
      },
    ]);
    h.send("f1", "call", { payload: 1, target: "service" });
    h.send("f1", "call", { payload: 2, target: "svc" });
    await expect.poll(() => h.at("out").map((m) => [m.payload, m.served])).toEqual([
      [1, "yes"],
      [2, "yes"],
    ]);
  });

  it.each([
    ["on the same flow", ["f1", "f1"]],
    ["on different flows", ["f2", "f3"]],
  ])("should raise an error for two link-in nodes of one name %s", async (_label, [a, b]) => {
    const flows = new Map<string, { flowId: string; nodes: Array<{ id: string; type: string; name?: string; config?: Record<string, unknown> }>; connections: Array<{ source: string; target: string }> }>();
    const flowOf = (id: string) => flows.get(id) ?? flows.set(id, { flowId: id, nodes: [], connections: [] }).get(id)!;
    flowOf("f1").nodes.push({ id: "link-call", type: "link-call", config: { link_type: "dynamic" } }, { id: "catch-all", type: "catch", config: { scope: ["link-call"], uncaught: true } }, { id: "n4", type: "sink" });
    flowOf("f1").connections.push({ source: "link-call", target: "n4" }, { source: "catch-all", target: "n4" });
    flowOf(a!).nodes.push({ id: "link-in-1", type: "link-in", name: "double payload" }, { id: "never1", type: "sink" });
    flowOf(a!).connections.push({ source: "link-in-1", target: "never1" });
    flowOf(b!).nodes.push({ id: "link-in-2", type: "link-in", name: "double payload" }, { id: "never2", type: "sink" });
    flowOf(b!).connections.push({ source: "link-in-2", target: "never2" });
    const h = await load([...flows.values()]);
    h.send("f1", "link-call", { payload: "hello", target: "double payload" });
    await expect.poll(() => h.at("n4")).toHaveLength(1);
    expect(h.at("n4")[0]).toMatchObject({ target: "double payload", error: { message: "Error: Multiple link-in nodes named 'double payload' found", source: { id: "link-call" } } });
    expect(h.at("n4")[0]).not.toHaveProperty("_linkSource");
    // Node-RED adds the Error's stack (its server's file paths); ours never carries one.
    expect(h.at("n4")[0]!.error).not.toHaveProperty("stack");
    expect(h.at("never1")).toEqual([]);
    expect(h.at("never2")).toEqual([]);
  });

  it("should timeout waiting for link return, with the message as it came", async () => {
    const h = await load([
      {
        flowId: "f1",
        nodes: [
          { id: "link-in-1", type: "link-in", name: "double payload" },
          setPayload("func", "x"),
          { id: "link-out-1", type: "link-out" },
          { id: "link-call", type: "link-call", config: { links: ["link-in-1"], timeout_seconds: 0.2 } },
          { id: "catch-all", type: "catch", config: { scope: ["link-call"], uncaught: true } },
          { id: "n4", type: "sink" },
        ],
        connections: [
          { source: "link-in-1", target: "func" },
          { source: "func", target: "link-out-1" },
          { source: "link-call", target: "n4" },
          { source: "catch-all", target: "n4" },
        ],
      },
    ]);
    const started = Date.now();
    h.send("f1", "link-call", { payload: "hello", target: "double payload" });
    await expect.poll(() => h.at("n4")).toHaveLength(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    const msg = h.at("n4")[0]!;
    expect(msg).toMatchObject({ payload: "hello", target: "double payload", error: { message: "timeout", source: { id: "link-call", type: "link call", count: 1 } } });
    // As Node-RED: the copy is taken once the (empty) return stack exists, before this call's entry.
    expect(msg._linkSource).toEqual([]);
  });

  it("a link-in of a flow that does not run is not reached: the call times out", async () => {
    const h = await load([
      { flowId: "f1", nodes: [{ id: "call", type: "link-call", config: { links: ["svc"], timeout_seconds: 0.1 } }, { id: "catch", type: "catch" }, { id: "caught", type: "sink" }], connections: [{ source: "catch", target: "caught" }] },
      { flowId: "f2", nodes: [{ id: "svc", type: "link-in" }, { id: "ret", type: "link-out", config: { mode: "return" } }], connections: [{ source: "svc", target: "ret" }] },
    ]);
    // Without a relay (one engine alone) an id that runs nowhere here is "not found"; the flow
    // runtimes tell a stopped flow's link-in (timeout) from a missing one (see links.integration.test.ts).
    await h.engine.stop("f2");
    h.send("f1", "call", { payload: 1 });
    await expect.poll(() => h.at("caught")).toHaveLength(1);
    expect(h.at("caught")[0]!.error).toMatchObject({ message: "Error: target link-in node 'svc' not found" });
  });

  it("should allow nested link-call flows", async () => {
    const h = await load([
      {
        flowId: "f1",
        nodes: [
          { id: "li1", type: "link-in" },
          setProp("m2", "two", "yes"),
          { id: "lo1", type: "link-out", config: { mode: "return" } },
          { id: "li2", type: "link-in" },
          setProp("m3", "three", "yes"),
          { id: "lo2", type: "link-out", config: { mode: "return" } },
          { id: "li3", type: "link-in" },
          { id: "link-call-1", type: "link-call", config: { links: ["li1"] } },
          { id: "link-call-2", type: "link-call", config: { links: ["li2"] } },
          { id: "lo3", type: "link-out", config: { mode: "return" } },
          { id: "link-call", type: "link-call", config: { links: ["li3"] } },
          { id: "n4", type: "sink" },
        ],
        connections: [
          { source: "li1", target: "m2" },
          { source: "m2", target: "lo1" },
          { source: "li2", target: "m3" },
          { source: "m3", target: "lo2" },
          { source: "li3", target: "link-call-1" },
          { source: "link-call-1", target: "link-call-2" },
          { source: "link-call-2", target: "lo3" },
          { source: "link-call", target: "n4" },
        ],
      },
    ]);
    h.send("f1", "link-call", { payload: 4 });
    await expect.poll(() => h.at("n4")).toHaveLength(1);
    expect(h.at("n4")[0]).toMatchObject({ payload: 4, two: "yes", three: "yes" });
    expect(h.at("n4")[0]).not.toHaveProperty("_linkSource");
  });

  it("calls waiting for their answers weigh on the calling flow until answered (backpressure)", async () => {
    const h = await load(
      [
        { flowId: "f1", nodes: [{ id: "call", type: "link-call", config: { links: ["svc"] } }, { id: "answer", type: "sink" }], connections: [{ source: "call", target: "answer" }] },
        {
          flowId: "f2",
          nodes: [{ id: "svc", type: "link-in" }, { id: "slow", type: "delay", config: { delay_ms: 150 } }, { id: "ret", type: "link-out", config: { mode: "return" } }],
          connections: [
            { source: "svc", target: "slow" },
            { source: "slow", target: "ret" },
          ],
        },
      ],
      { highWaterMark: 4 },
    );
    for (let i = 0; i < 5; i++) h.send("f1", "call", { payload: i });
    await expect.poll(() => h.engine.load("f1")).toBe(5);
    expect(h.engine.isBusy("f1")).toBe(true);
    await expect.poll(() => h.at("answer")).toHaveLength(5);
    expect(h.engine.load("f1")).toBe(0);
    expect(h.engine.isBusy("f1")).toBe(false);
  });

  it("a call that failed or timed out no longer weighs on the flow", async () => {
    const h = await load([
      { flowId: "f1", nodes: [{ id: "call", type: "link-call", config: { links: ["svc"], timeout_seconds: 0.1 } }, { id: "missing", type: "link-call", config: { links: ["nope"] } }] },
      { flowId: "f2", nodes: [{ id: "svc", type: "link-in" }] },
    ]);
    h.send("f1", "call", { payload: 1 });
    h.send("f1", "missing", { payload: 2 });
    await expect.poll(() => h.errors.map((e) => e.error).sort()).toEqual(["target link-in node 'nope' not found", "timeout"]);
    expect(h.engine.load("f1")).toBe(0);
  });

  it("the answer to a link-call whose flow was redeployed goes nowhere", async () => {
    const caller = { flowId: "f1", nodes: [{ id: "call", type: "link-call", config: { links: ["svc"] } }, { id: "answer", type: "sink" }], connections: [{ source: "call", target: "answer" }] };
    const h = await load([
      caller,
      { flowId: "f2", nodes: [{ id: "svc", type: "link-in" }, { id: "slow", type: "delay", config: { delay_ms: 100 } }, { id: "ret", type: "link-out", config: { mode: "return" } }], connections: [{ source: "svc", target: "slow" }, { source: "slow", target: "ret" }] },
    ]);
    h.send("f1", "call", { payload: 1 });
    await new Promise((r) => setTimeout(r, 20));
    await h.engine.stop("f1");
    await new Promise((r) => setTimeout(r, 150));
    expect(h.at("answer")).toEqual([]);
    expect(h.errors).toEqual([{ flowId: "f2", nodeId: "ret", error: "Missing return node information" }]);
  });
});
