/**
 * The flow engine on its own: no app, no node catalog, no built-in node types. Each test wires tiny
 * behaviours of its own (a source, pass-throughs, recorders) and checks what the engine itself
 * promises: routing along wires and ports, disabled nodes, errors to catch nodes, the hop limit,
 * redeploys and stops. (The built-in nodes through the engine: runtime-harness.ts and its users.)
 */
import { describe, expect, it, vi } from "vitest";
import { FlowEngine, type EngineOptions, type FlowSpec } from "./engine";
import type { Message, NodeBehaviour, NodeFactory, NodeRoles, NodeStatus, RuntimeNodeType, SendValue } from "./types";

type SpecNode = FlowSpec["nodes"][number];

const node = (id: string, type: string, config: Record<string, unknown> = {}, extra: Partial<SpecNode> = {}): SpecNode => ({ id, type, name: `${id} name`, config, ...extra });

/** A flow of `nodes`; a wire is [source, target] or [source, target, port]. */
function flow(nodes: SpecNode[], wires: Array<[string, string, number?]>, flowId = "flw_engine"): FlowSpec {
  return {
    flowId,
    organizationId: "org_engine",
    organizationSlug: "engine",
    revision: 1,
    nodes,
    connections: wires.map(([source, target, port]) => ({ source, target, source_port: port ?? 0 })),
  };
}

/** The roles of the test's types, as built-in types declare them: the engine reads roles, not type names. */
const roles: Record<string, NodeRoles> = {
  source: { trigger: true },
  turn: { inTurn: () => true },
  reader: { jsonataTurn: (c) => c.readsContext === true },
  catch: { catch: (c) => ({ scope: Array.isArray(c.scope) ? (c.scope as string[]) : null, uncaught: c.uncaught === true }) },
};

/** An engine with `behaviours` and recorders for everything it reports. Outputs: config.outputs, else 1. */
function setUp(behaviours: Record<string, NodeFactory>, options: Partial<EngineOptions> = {}) {
  const arrived: Array<{ node: string; msg: Message }> = [];
  const errors: Array<{ nodeId: string; error: string }> = [];
  const statuses: Array<{ nodeId: string; status: NodeStatus | null }> = [];
  const states: Array<{ flowId: string; state: string; error?: string }> = [];
  /** Records what reaches it. */
  const sink: NodeFactory = (ctx) => ({
    input(msg, _send, done) {
      arrived.push({ node: ctx.node.id, msg });
      done();
    },
  });
  /** Sends what reaches it on. */
  const pass: NodeFactory = () => ({
    input(msg, send, done) {
      send(msg);
      done();
    },
  });
  /** Sends config.value (or a fresh message) when triggered, as an inject node would. */
  const source: NodeFactory = (ctx) =>
    ({
      trigger: (o: { payload?: unknown }) => {
        const value = (ctx.node.config.value as SendValue) ?? { _msgid: ctx.newMessageId(), payload: o.payload };
        ctx.send(value);
        return "sent";
      },
    }) as NodeBehaviour;
  const engine = new FlowEngine({
    types: new Map(
      Object.entries({ sink, pass, source, catch: () => ({}), ...behaviours }).map(([type, behaviour]): [string, RuntimeNodeType] => [
        type,
        { behaviour, outputs: (config) => Number(config.outputs ?? 1), roles: roles[type] },
      ]),
    ),
    callbacks: {
      onFlowState: (e) => states.push({ flowId: e.flowId, state: e.state, error: e.error }),
      onNodeStatus: (e) => statuses.push({ nodeId: e.nodeId, status: e.status }),
      onDebug: () => undefined,
      onNodeError: (e) => errors.push({ nodeId: e.nodeId, error: e.error }),
    },
    closeTimeoutMs: 200,
    ...options,
  });
  const at = (id: string) => arrived.filter((a) => a.node === id).map((a) => a.msg);
  return { engine, arrived, at, errors, statuses, states };
}

/** Lets the engine drain its queue (delivery is asynchronous, batched per event-loop turn). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe("routing", () => {
  it("delivers along the wires, the first target the message itself and every other a copy", async () => {
    const h = setUp({});
    await h.engine.deploy(flow([node("src", "source"), node("a", "sink"), node("b", "sink"), node("c", "pass"), node("d", "sink")], [["src", "a"], ["src", "b"], ["src", "c"], ["c", "d"]]));
    h.engine.receive("flw_engine", "c", { _msgid: "m1", payload: { n: 1 } });
    h.engine.inject("flw_engine", "src", { payload: { n: 2 } });
    await settle();
    expect(h.at("d").map((m) => m.payload)).toEqual([{ n: 1 }, { n: 2 }]);
    const [a, b] = [h.at("a")[0]!, h.at("b")[0]!];
    expect(a).toEqual(b);
    expect(a).not.toBe(b);
    expect(a.payload).not.toBe(b.payload);
    // One message keeps its id along its way.
    expect(h.at("d")[0]!._msgid).toBe("m1");
  });

  it("sends an array to the ports in order: null skips a port, an inner array sends several", async () => {
    const value: SendValue = [{ _msgid: "p0", payload: 0 }, null, [{ _msgid: "p2a", payload: "2a" }, { _msgid: "p2b", payload: "2b" }]];
    const h = setUp({});
    await h.engine.deploy(
      flow([node("src", "source", { outputs: 3, value }), node("zero", "sink"), node("one", "sink"), node("two", "sink")], [["src", "zero", 0], ["src", "one", 1], ["src", "two", 2]]),
    );
    h.engine.inject("flw_engine", "src", {});
    await settle();
    expect(h.at("zero").map((m) => m.payload)).toEqual([0]);
    expect(h.at("one")).toEqual([]);
    expect(h.at("two").map((m) => m.payload)).toEqual(["2a", "2b"]);
  });

  it("one message object sent on several ports, or twice on one, reaches the first target itself and every other as a copy", async () => {
    const shared = { _msgid: "same", payload: { n: 1 } };
    const other = { _msgid: "other", payload: { n: 2 } };
    // A switch with "check all rules" sends one object on each matching port; a hole is a port without a message.
    const value = [shared, [shared, other, shared], undefined, other] as unknown as SendValue;
    delete (value as unknown[])[2];
    const h = setUp({});
    await h.engine.deploy(
      flow(
        [node("src", "source", { outputs: 4, value }), node("p0", "sink"), node("p1", "sink"), node("p2", "sink"), node("p3", "sink")],
        [["src", "p0", 0], ["src", "p1", 1], ["src", "p2", 2], ["src", "p3", 3]],
      ),
    );
    h.engine.inject("flw_engine", "src", {});
    await settle();
    const [first] = h.at("p0");
    const onOne = h.at("p1");
    const [onThree] = h.at("p3");
    expect(first).toBe(shared);
    expect(onOne.map((m) => m._msgid)).toEqual(["same", "other", "same"]);
    expect(onOne[1]).toBe(other);
    expect(onThree).not.toBe(other);
    expect(onThree).toEqual(other);
    const copies = [onOne[0]!, onOne[2]!];
    for (const copy of copies) {
      expect(copy).not.toBe(shared);
      expect(copy.payload).not.toBe(shared.payload);
      expect(copy).toEqual(shared);
    }
    expect(copies[0]).not.toBe(copies[1]);
    expect(h.at("p2")).toEqual([]);
  });

  it("gives a message without an id one, and drops what is not a message", async () => {
    const h = setUp({});
    const value = [{ payload: "no id" }, "a string"] as unknown as SendValue;
    await h.engine.deploy(flow([node("src", "source", { outputs: 2, value }), node("a", "sink"), node("b", "sink")], [["src", "a", 0], ["src", "b", 1]]));
    h.engine.inject("flw_engine", "src", {});
    await settle();
    expect(h.at("a")[0]!._msgid).toMatch(/^[0-9a-f]{16}$/);
    expect(h.at("b")).toEqual([]);
  });

  it("keeps flows apart: a message never crosses to another flow's node of the same id", async () => {
    const h = setUp({});
    await h.engine.deploy(flow([node("src", "source"), node("out", "sink")], [["src", "out"]], "flw_one"));
    await h.engine.deploy(flow([node("out", "sink")], [], "flw_two"));
    h.engine.inject("flw_one", "src", { payload: "one" });
    await settle();
    expect(h.arrived).toHaveLength(1);
    expect(h.engine.flowIdsOf("org_engine").sort()).toEqual(["flw_one", "flw_two"]);
  });
});

describe("disabled and unknown nodes", () => {
  it("creates neither, and what is wired to them goes nowhere", async () => {
    let created = 0;
    const h = setUp({
      counted: () => {
        created++;
        return {};
      },
    });
    await h.engine.deploy(
      flow([node("src", "source"), node("off", "counted", {}, { disabled: true }), node("alien", "teleport"), node("a", "sink")], [["src", "off"], ["src", "alien"], ["off", "a"]]),
    );
    expect(created).toBe(0);
    expect([...h.engine.nodeStatuses("flw_engine").keys()].sort()).toEqual(["a", "src"]);
    h.engine.inject("flw_engine", "src", {});
    await settle();
    expect(h.arrived).toEqual([]);
    expect(h.errors).toEqual([]);
    expect(() => h.engine.receive("flw_engine", "off", { _msgid: "x" })).toThrow(/no such running node/);
  });
});

describe("errors", () => {
  const failing: Record<string, NodeFactory> = {
    throws: () => ({
      input() {
        throw new Error("sync failure");
      },
    }),
    rejects: () => ({ input: async () => Promise.reject(new Error("async failure")) }),
    "done-error": () => ({ input: (_msg, _send, done) => done("reported failure") }),
  };

  it.each([
    ["throws", "sync failure", "Error: sync failure"],
    ["rejects", "async failure", "Error: async failure"],
    ["done-error", "reported failure", "reported failure"],
  ])("a node that %s is marked in error, and its message goes to the catch nodes with msg.error (as Node-RED words it)", async (type, message, caught) => {
    const h = setUp(failing);
    await h.engine.deploy(flow([node("bad", type), node("catcher", "catch"), node("caught", "sink")], [["catcher", "caught"]]));
    h.engine.receive("flw_engine", "bad", { _msgid: "m", payload: "p" });
    await expect.poll(() => h.at("caught")).toHaveLength(1);
    expect(h.at("caught")[0]).toMatchObject({ _msgid: "m", payload: "p", error: { message: caught, source: { id: "bad", type, name: "bad name", count: 1 } } });
    expect(h.errors).toEqual([{ nodeId: "bad", error: message }]);
    expect(h.engine.nodeStatuses("flw_engine").get("bad")).toEqual({ fill: "red", shape: "ring", text: message });
    // The flow goes on.
    expect(h.engine.state("flw_engine")).toBe("running");
  });

  it("routes to a scoped catch node only the errors of the nodes in its scope", async () => {
    const h = setUp(failing);
    await h.engine.deploy(
      flow(
        [node("one", "throws"), node("two", "throws"), node("all", "catch"), node("only-two", "catch", { scope: ["two"] }), node("all-out", "sink"), node("two-out", "sink")],
        [["all", "all-out"], ["only-two", "two-out"]],
      ),
    );
    h.engine.receive("flw_engine", "one", { _msgid: "from-one" });
    h.engine.receive("flw_engine", "two", { _msgid: "from-two" });
    await settle();
    expect(h.at("all-out").map((m) => m._msgid).sort()).toEqual(["from-one", "from-two"]);
    expect(h.at("two-out").map((m) => m._msgid)).toEqual(["from-two"]);
  });

  it("a catch node's own failure is reported but not caught again", async () => {
    const h = setUp({ catch: () => ({ input: () => Promise.reject(new Error("catch failed")) }) });
    await h.engine.deploy(flow([node("c", "catch"), node("other", "catch"), node("out", "sink")], [["other", "out"]]));
    h.engine.receive("flw_engine", "c", { _msgid: "m" });
    await expect.poll(() => h.errors).toEqual([{ nodeId: "c", error: "catch failed" }]);
    await settle();
    expect(h.at("out")).toEqual([]);
  });

  it("a node that cannot be created puts the flow in error, naming it; a node whose start fails does not", async () => {
    const h = setUp({
      broken: () => {
        throw new Error("bad config");
      },
      "bad-start": () => ({ start: () => Promise.reject(new Error("no start")) }),
    });
    expect(await h.engine.deploy(flow([node("ok", "sink"), node("b", "broken")], [], "flw_broken"))).toBe("error");
    expect(h.engine.state("flw_broken")).toBe("error");
    expect(h.engine.errorOf("flw_broken")).toBe("b: bad config");
    expect(h.states.at(-1)).toEqual({ flowId: "flw_broken", state: "error", error: "b: bad config" });
    expect(await h.engine.deploy(flow([node("s", "bad-start")], [], "flw_start"))).toBe("running");
    expect(h.errors).toContainEqual({ nodeId: "s", error: "no start" });
  });
});

describe("runaway guards", () => {
  it("counts hops along each message's path: many messages sharing one _msgid (Node-RED's function node) are not a loop", async () => {
    const burst: NodeFactory = () => ({
      input(msg, send, done) {
        send({ _msgid: "other", payload: -1 });
        for (let i = 0; i < 100; i++) send({ _msgid: msg._msgid, payload: i });
        done();
      },
    });
    const h = setUp({ burst }, { maxHops: 20 });
    const chain = Array.from({ length: 10 }, (_, i) => node(`p${i}`, "pass"));
    await h.engine.deploy(flow([node("b", "burst"), ...chain, node("out", "sink")], [["b", "p0"], ...chain.slice(1).map((n, i) => [`p${i}`, n.id] as [string, string]), ["p9", "out"]]));
    h.engine.receive("flw_engine", "b", { _msgid: "shared" });
    await expect.poll(() => h.at("out")).toHaveLength(101);
    expect(h.errors).toEqual([]);
  });

  it("drops a looping message after maxHops nodes and reports it once per episode", async () => {
    const h = setUp({}, { maxHops: 50 });
    await h.engine.deploy(flow([node("a", "pass"), node("b", "pass")], [["a", "b"], ["b", "a"]]));
    h.engine.receive("flw_engine", "a", { _msgid: "loop" });
    await expect.poll(() => h.errors).toHaveLength(1);
    expect(h.errors[0]!.error).toBe("message loop passed through 50 nodes: the flow loops; it was dropped");
    await settle();
    expect(h.errors).toHaveLength(1);
    // Idle again: a new runaway is a new episode.
    h.engine.receive("flw_engine", "a", { _msgid: "loop-2" });
    await expect.poll(() => h.errors).toHaveLength(2);
  });

  it("drops new deliveries past maxQueuedPerFlow", async () => {
    const h = setUp({}, { maxQueuedPerFlow: 3 });
    const value = Array.from({ length: 5 }, (_, i) => ({ _msgid: `m${i}`, payload: i }));
    await h.engine.deploy(flow([node("src", "source", { value: [value] }), node("out", "sink")], [["src", "out"]]));
    h.engine.inject("flw_engine", "src", {});
    await settle();
    expect(h.at("out").map((m) => m.payload)).toEqual([0, 1, 2]);
    expect(h.errors).toEqual([{ nodeId: "src", error: "more than 3 messages are waiting in this flow (a loop or a flood); new messages are dropped" }]);
  });
});

describe("redeploy, stop and close", () => {
  function closing(log: string[]): NodeFactory {
    return (ctx) => ({
      input: (_msg, _send, done) => done(),
      close: (removed) => {
        log.push(`${ctx.node.id}:${removed ? "removed" : "kept"}`);
      },
    });
  }

  it("a redeploy closes the old nodes first (removed or kept) and drops what was queued for the old version", async () => {
    const log: string[] = [];
    const h = setUp({ closing: closing(log) });
    await h.engine.deploy(flow([node("stays", "closing"), node("goes", "closing"), node("out", "sink")], []));
    h.engine.receive("flw_engine", "out", { _msgid: "queued before the redeploy" });
    await h.engine.deploy(flow([node("stays", "closing"), node("out", "sink")], []));
    expect(log.sort()).toEqual(["goes:removed", "stays:kept"]);
    await settle();
    expect(h.arrived).toEqual([]);
    expect(h.states.map((s) => s.state)).toEqual(["running", "stopped", "running"]);
  });

  it("stop closes every node as removed, does not wait past the close timeout, and sends nothing afterwards", async () => {
    const log: string[] = [];
    let lateSend: ((v: SendValue) => void) | undefined;
    const h = setUp({
      closing: closing(log),
      hangs: (ctx) => {
        lateSend = ctx.send;
        return { close: () => new Promise<void>(() => undefined) };
      },
    });
    await h.engine.deploy(flow([node("a", "closing"), node("h", "hangs"), node("out", "sink")], [["h", "out"]]));
    const started = Date.now();
    await h.engine.stop("flw_engine");
    expect(Date.now() - started).toBeLessThan(1000);
    expect(log).toEqual(["a:removed"]);
    expect(h.engine.state("flw_engine")).toBe("stopped");
    expect(h.engine.isRunning("flw_engine")).toBe(false);
    // A timer of a stopped node that fires late sends nothing.
    lateSend!({ _msgid: "late" });
    await settle();
    expect(h.arrived).toEqual([]);
    expect(() => h.engine.inject("flw_engine", "h", {})).toThrow(/not running/);
  });

  it("runs operations on one flow in order: deploy, stop, deploy", async () => {
    const h = setUp({});
    const spec = flow([node("out", "sink")], []);
    await Promise.all([h.engine.deploy(spec), h.engine.stop(spec.flowId), h.engine.deploy(spec)]);
    expect(h.states.map((s) => s.state)).toEqual(["running", "stopped", "running"]);
    expect(h.engine.isRunning(spec.flowId)).toBe(true);
  });

  it("close stops every flow and refuses later deploys", async () => {
    const log: string[] = [];
    const h = setUp({ closing: closing(log) });
    await h.engine.deploy(flow([node("a", "closing")], [], "flw_a"));
    await h.engine.deploy(flow([node("b", "closing")], [], "flw_b"));
    await h.engine.close();
    expect(log.sort()).toEqual(["a:removed", "b:removed"]);
    expect(h.engine.runningFlowIds()).toEqual([]);
    await expect(h.engine.deploy(flow([node("c", "closing")], [], "flw_c"))).rejects.toThrow(/shut down/);
  });
});

describe("backpressure", () => {
  /** Holds every message until release() is called: an asynchronous node (like a function node's sandbox). */
  function slowNode() {
    const held: Array<() => void> = [];
    const factory: NodeFactory = () => ({
      input() {
        return new Promise<void>((resolve) => held.push(resolve));
      },
    });
    return { factory, held, release: (n = held.length) => held.splice(0, n).forEach((r) => r()) };
  }
  /** A node whose context the test keeps, to look at busy(), waiting() and whenReady() from outside. */
  function probe() {
    let ctx: Parameters<NodeFactory>[0] | undefined;
    const factory: NodeFactory = (c) => {
      ctx = c;
      return {};
    };
    return { factory, ctx: () => ctx! };
  }

  it("a flow is busy from the high-water mark until half of it, counting asynchronous inputs not yet done", async () => {
    const slow = slowNode();
    const p = probe();
    const h = setUp({ slow: slow.factory, probe: p.factory }, { highWaterMark: 10 });
    await h.engine.deploy(flow([node("src", "source"), node("s", "slow"), node("p", "probe")], [["src", "s"]]));
    for (let i = 0; i < 9; i++) h.engine.inject("flw_engine", "src", { payload: i });
    expect(h.engine.isBusy("flw_engine")).toBe(false);
    expect(h.engine.load("flw_engine")).toBe(9);
    h.engine.inject("flw_engine", "src", { payload: 9 });
    expect(h.engine.isBusy("flw_engine")).toBe(true);
    expect(p.ctx().busy()).toBe(true);
    // Delivered to the slow node: no longer queued, but not done either, so still waiting.
    await settle();
    expect(slow.held).toHaveLength(10);
    expect(h.engine.load("flw_engine")).toBe(10);
    expect(p.ctx().waiting()).toBe(10);
    expect(h.engine.isBusy("flw_engine")).toBe(true);
    let ready = 0;
    p.ctx().whenReady(() => ready++);
    slow.release(4);
    await settle();
    expect(h.engine.isBusy("flw_engine")).toBe(true);
    expect(ready).toBe(0);
    slow.release(1);
    await settle();
    expect(h.engine.load("flw_engine")).toBe(5);
    expect(h.engine.isBusy("flw_engine")).toBe(false);
    expect(ready).toBe(1);
    // Nothing was dropped: the guard of last resort never spoke.
    expect(h.errors).toEqual([]);
  });

  it("whenReady runs at once (in a microtask) when the flow is not busy, never after a cancel or a stop", async () => {
    const slow = slowNode();
    const p = probe();
    const h = setUp({ slow: slow.factory, probe: p.factory }, { highWaterMark: 4 });
    await h.engine.deploy(flow([node("src", "source"), node("s", "slow"), node("p", "probe")], [["src", "s"]]));
    const calls: string[] = [];
    p.ctx().whenReady(() => calls.push("now"));
    p.ctx().whenReady(() => calls.push("cancelled"))();
    await Promise.resolve();
    expect(calls).toEqual(["now"]);
    for (let i = 0; i < 4; i++) h.engine.inject("flw_engine", "src", {});
    expect(p.ctx().busy()).toBe(true);
    p.ctx().whenReady(() => calls.push("after stop"));
    const cancel = p.ctx().whenReady(() => calls.push("cancelled while busy"));
    cancel();
    await h.engine.stop("flw_engine");
    slow.release();
    await settle();
    expect(calls).toEqual(["now"]);
  });

  it("a waiter that makes the flow busy again leaves the others waiting for the next release", async () => {
    const slow = slowNode();
    const p = probe();
    const h = setUp({ slow: slow.factory, probe: p.factory }, { highWaterMark: 4 });
    await h.engine.deploy(flow([node("src", "source"), node("s", "slow"), node("p", "probe")], [["src", "s"]]));
    for (let i = 0; i < 4; i++) h.engine.inject("flw_engine", "src", {});
    await settle();
    const calls: string[] = [];
    // The first waiter refills the flow past its mark; the second must not run in the same release.
    p.ctx().whenReady(() => {
      calls.push("first");
      for (let i = 0; i < 4; i++) h.engine.inject("flw_engine", "src", {});
    });
    p.ctx().whenReady(() => calls.push("second"));
    slow.release(2);
    await settle();
    expect(calls).toEqual(["first"]);
    expect(p.ctx().busy()).toBe(true);
    slow.release();
    await settle();
    slow.release();
    await settle();
    expect(calls).toEqual(["first", "second"]);
  });

  it("asynchronous inputs that wait parked for the flow to send (http-request's responses) never hold it busy for ever", async () => {
    // Each input works asynchronously, then waits for the flow to be ready before it sends. Counted
    // while they wait, a mark's worth of them would keep the flow busy that they wait on.
    const sent: unknown[] = [];
    let ctxOf: Parameters<NodeFactory>[0] | undefined;
    const waiter: NodeFactory = (ctx) => {
      ctxOf = ctx;
      return {
        input(msg, send) {
          return new Promise<void>((resolve) => {
            setTimeout(() => ctx.whenReady(() => (send(msg), resolve()), { parked: true }), 1);
          });
        },
      };
    };
    const sink: NodeFactory = () => ({
      input(msg) {
        sent.push(msg.payload);
      },
    });
    const h = setUp({ waiter, sink }, { highWaterMark: 2 });
    await h.engine.deploy(flow([node("src", "source"), node("w", "waiter"), node("out", "sink")], [["src", "w"], ["w", "out"]]));
    for (let i = 0; i < 10; i++) h.engine.inject("flw_engine", "src", { payload: i });
    await vi.waitFor(() => expect(sent).toHaveLength(10), { timeout: 2000 });
    expect([...sent].sort((a, b) => Number(a) - Number(b))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(ctxOf!.busy()).toBe(false);
    expect(ctxOf!.waiting()).toBe(0);
    expect(h.errors).toEqual([]);
  });

  it("a parked waiter cancelled while it waits stops counting as parked", async () => {
    const slow = slowNode();
    const p = probe();
    const h = setUp({ slow: slow.factory, probe: p.factory }, { highWaterMark: 4 });
    await h.engine.deploy(flow([node("src", "source"), node("s", "slow"), node("p", "probe")], [["src", "s"]]));
    for (let i = 0; i < 6; i++) h.engine.inject("flw_engine", "src", {});
    await settle();
    expect(p.ctx().busy()).toBe(true);
    // Parked then cancelled: the flow's readiness is measured on its six inputs again.
    p.ctx().whenReady(() => undefined, { parked: true })();
    slow.release(3);
    await settle();
    expect(p.ctx().busy()).toBe(true);
    slow.release(1);
    await settle();
    expect(p.ctx().busy()).toBe(false);
  });

  it("the security limit stays the last resort: a node that floods without yielding passes the mark and is cut at maxQueuedPerFlow", async () => {
    const flood: NodeFactory = () => ({
      input(_msg, send, done) {
        for (let i = 0; i < 100; i++) send({ _msgid: `f${i}`, payload: i });
        done();
      },
    });
    const h = setUp({ flood }, { highWaterMark: 10, maxQueuedPerFlow: 50 });
    await h.engine.deploy(flow([node("src", "source"), node("f", "flood"), node("out", "sink")], [["src", "f"], ["f", "out"]]));
    h.engine.inject("flw_engine", "src", {});
    await settle();
    expect(h.at("out")).toHaveLength(50);
    expect(h.errors[0]?.error).toMatch(/more than 50 messages are waiting/);
    expect(h.engine.isBusy("flw_engine")).toBe(false);
  });
});

describe("in turn (Node-RED runs a function node's code in the delivering turn)", () => {
  /** An in-turn node whose input settles when the test says: it records when it began, and sends its message on as it settles. */
  function turns() {
    const open: Array<() => void> = [];
    const began: string[] = [];
    const factory: NodeFactory = (ctx) => ({
      input(msg, send) {
        began.push(`${ctx.node.id}:${String(msg.payload)}`);
        return new Promise<void>((resolve) =>
          open.push(() => {
            send({ ...msg, payload: `${ctx.node.id}(${String(msg.payload)})` });
            resolve();
          }),
        );
      },
    });
    return { factory, began, end: () => open.shift()!() };
  }

  it("the flow's other deliveries wait for the turn, then go ahead of what the turn sent", async () => {
    const t = turns();
    const h = setUp({ turn: t.factory });
    await h.engine.deploy(flow([node("src", "source"), node("t", "turn"), node("p", "pass"), node("out", "sink")], [["src", "t"], ["src", "p"], ["t", "out"], ["p", "out"]]));
    h.engine.inject("flw_engine", "src", { payload: 1 });
    await settle();
    expect(t.began).toEqual(["t:1"]);
    // The pass-through on the other branch waits while the turn is under way.
    expect(h.arrived).toEqual([]);
    t.end();
    await settle();
    // As in Node-RED: the turn's own send was queued before the pass-through ran, so it arrives first.
    expect(h.at("out").map((m) => m.payload)).toEqual(["t(1)", 1]);
  });

  it("deliveries to in-turn nodes go on while nothing waits (their worker runs them in order), and everything after a waiting one waits behind it", async () => {
    const t = turns();
    const h = setUp({ turn: t.factory });
    await h.engine.deploy(flow([node("src", "source"), node("a", "turn"), node("b", "turn"), node("p", "pass"), node("out", "sink")], [["src", "a"], ["src", "p"], ["src", "b"], ["a", "out"], ["b", "out"], ["p", "out"]]));
    h.engine.inject("flw_engine", "src", { payload: 1 });
    h.engine.inject("flw_engine", "src", { payload: 2 });
    await settle();
    // a:1 began; p:1 waits; so does everything after it, in-turn or not.
    expect(t.began).toEqual(["a:1"]);
    t.end();
    await settle();
    // p:1 went, b:1 began (a turn again), a:2 went on behind it in the worker; p:2 and b:2 wait.
    expect(t.began).toEqual(["a:1", "b:1", "a:2"]);
    expect(h.arrived).toEqual([]);
    t.end();
    await settle();
    expect(t.began).toEqual(["a:1", "b:1", "a:2"]);
    t.end();
    await settle();
    expect(t.began).toEqual(["a:1", "b:1", "a:2", "b:2"]);
    expect(h.arrived).toEqual([]);
    t.end();
    await settle();
    // Node-RED's order: a1, p1, b1, a2, p2, b2 ran in turn, each queuing its send.
    expect(h.at("out").map((m) => m.payload)).toEqual(["a(1)", 1, "b(1)", "a(2)", 2, "b(2)"]);
  });

  it("a node whose JSONata reads the context (NodeRoles.jsonataTurn) is in turn on its own: its inputs never pipeline, and a function's wait behind them", async () => {
    const t = turns();
    const h = setUp({ turn: t.factory, reader: t.factory });
    await h.engine.deploy(
      flow(
        [node("src", "source"), node("r", "reader", { readsContext: true }), node("f", "turn"), node("out", "sink")],
        [["src", "r"], ["src", "f"], ["r", "out"], ["f", "out"]],
      ),
    );
    h.engine.inject("flw_engine", "src", { payload: 1 });
    h.engine.inject("flw_engine", "src", { payload: 2 });
    await settle();
    // The reader's evaluation runs on the main thread: nothing of the flow goes on beside it.
    expect(t.began).toEqual(["r:1"]);
    t.end();
    await settle();
    // The function's turn does not pipeline behind another group either.
    expect(t.began).toEqual(["r:1", "f:1"]);
    t.end();
    await settle();
    expect(t.began).toEqual(["r:1", "f:1", "r:2"]);
    t.end();
    await settle();
    t.end();
    await settle();
    expect(h.at("out").map((m) => m.payload)).toEqual(["r(1)", "f(1)", "r(2)", "f(2)"]);
  });

  it("a node whose type says its configuration needs no turn is not in turn", async () => {
    const t = turns();
    const h = setUp({ turn: t.factory, reader: t.factory });
    await h.engine.deploy(flow([node("src", "source"), node("r", "reader", { readsContext: false }), node("out", "sink")], [["src", "r"], ["r", "out"]]));
    h.engine.inject("flw_engine", "src", { payload: 1 });
    h.engine.inject("flw_engine", "src", { payload: 2 });
    await settle();
    expect(t.began).toEqual(["r:1", "r:2"]);
    t.end();
    t.end();
    await settle();
  });

  it("pipelines a burst into one in-turn node: every input is handed over before the first ends", async () => {
    const t = turns();
    const h = setUp({ turn: t.factory });
    await h.engine.deploy(flow([node("src", "source"), node("t", "turn"), node("out", "sink")], [["src", "t"], ["t", "out"]]));
    for (let i = 1; i <= 3; i++) h.engine.inject("flw_engine", "src", { payload: i });
    await settle();
    expect(t.began).toEqual(["t:1", "t:2", "t:3"]);
    for (let i = 0; i < 3; i++) t.end();
    await settle();
    expect(h.at("out").map((m) => m.payload)).toEqual(["t(1)", "t(2)", "t(3)"]);
  });

  it("goes on beside turns only in the same sandbox group: a subflow instance's context is a group (a worker) of its own", async () => {
    const t = turns();
    const h = setUp({ turn: t.factory });
    const sf = {
      id: "sf",
      name: "inner",
      revision: 1,
      env: [],
      nodes: [node("in", "subflow-in"), node("g", "turn"), node("o", "subflow-out")].map((n) => ({ ...n, position: { x: 0, y: 0 }, disabled: false })),
      connections: [
        { source: "in", target: "g", source_port: 0 },
        { source: "g", target: "o", source_port: 0 },
      ],
    };
    await h.engine.deploy({ ...flow([node("src", "source"), node("inst", "subflow:sf"), node("f", "turn"), node("out", "sink")], [["src", "inst"], ["inst", "f"], ["f", "out"]]), subflows: { sf } });
    h.engine.inject("flw_engine", "src", { payload: 1 });
    h.engine.inject("flw_engine", "src", { payload: 2 });
    await settle();
    // The subflow's node pipelines its two inputs (one group, one worker).
    expect(t.began).toEqual(["inst-g:1", "inst-g:2"]);
    t.end();
    await settle();
    // f's first input waits: its group is the flow's, whose worker could run it before inst-g's second turn.
    expect(t.began).toEqual(["inst-g:1", "inst-g:2"]);
    t.end();
    await settle();
    // Then f's two inputs pipeline in their own group.
    expect(t.began).toEqual(["inst-g:1", "inst-g:2", "f:inst-g(1)", "f:inst-g(2)"]);
    t.end();
    t.end();
    await settle();
    expect(h.at("out").map((m) => m.payload)).toEqual(["f(inst-g(1))", "f(inst-g(2))"]);
  });

  it("a long run of alternating deliveries keeps Node-RED's order, one turn at a time (what waits stays in place)", async () => {
    const t = turns();
    const fanOut: NodeFactory = () => ({
      input(_msg, send, done) {
        for (let i = 0; i < 2000; i++) send({ _msgid: `p${i}`, payload: i });
        done();
      },
    });
    const h = setUp({ turn: t.factory, fanOut });
    await h.engine.deploy(flow([node("src", "source"), node("split", "fanOut"), node("t", "turn"), node("out", "sink")], [["src", "split"], ["split", "t"], ["split", "out"], ["t", "out"]]));
    h.engine.inject("flw_engine", "src", {});
    await settle();
    for (let i = 0; i < 2000; i++) {
      expect(t.began).toHaveLength(i + 1);
      t.end();
      await Promise.resolve();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await settle();
    // Node-RED's order: the split queued every part for t and for out first; t's sends come after.
    const arrived = h.at("out").map((m) => m.payload);
    expect(arrived).toEqual([...Array.from({ length: 2000 }, (_, i) => i), ...Array.from({ length: 2000 }, (_, i) => `t(${i})`)]);
  });

  it("a turn holds its own flow only", async () => {
    const t = turns();
    const h = setUp({ turn: t.factory });
    await h.engine.deploy(flow([node("src", "source"), node("t", "turn"), node("p", "pass"), node("out", "sink")], [["src", "t"], ["src", "p"], ["p", "out"]], "flw_a"));
    await h.engine.deploy(flow([node("src", "source"), node("p", "pass"), node("out", "sink")], [["src", "p"], ["p", "out"]], "flw_b"));
    h.engine.inject("flw_a", "src", { payload: "a" });
    h.engine.inject("flw_b", "src", { payload: "b" });
    await settle();
    expect(h.at("out").map((m) => m.payload)).toEqual(["b"]);
    t.end();
    await settle();
    expect(h.at("out").map((m) => m.payload)).toEqual(["b", "a"]);
  });

  it("a stop lets go of what waited (nothing is delivered), and the next version starts with no turn", async () => {
    const t = turns();
    const h = setUp({ turn: t.factory });
    const spec = flow([node("src", "source"), node("t", "turn"), node("p", "pass"), node("out", "sink")], [["src", "t"], ["src", "p"], ["p", "out"]]);
    await h.engine.deploy(spec);
    h.engine.inject("flw_engine", "src", { payload: 1 });
    await settle();
    await h.engine.stop("flw_engine");
    // The stopped version's turn ends late: it changes nothing.
    t.end();
    await settle();
    expect(h.arrived).toEqual([]);
    expect(h.engine.isBusy("flw_engine")).toBe(false);
    await h.engine.deploy(spec);
    h.engine.inject("flw_engine", "src", { payload: 2 });
    await settle();
    expect(h.arrived).toEqual([]);
    // One end for the new version's one turn: nothing of the old one is counted.
    t.end();
    await settle();
    expect(h.at("out").map((m) => m.payload)).toEqual([2]);
  });
});
