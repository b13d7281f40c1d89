/**
 * The function node's timers in a running flow (issue 26, item 3): setTimeout/setInterval with
 * Node-RED's semantics, cleared on close, and paced by the flow's backpressure.
 */
import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import { DEFAULT_HIGH_WATER_MARK } from "@/server/runtime/engine";
import type { NodeFactory } from "@/server/runtime/types";
import { functionConfig, functionNode } from "./definition";

const flow = closingTestFlows();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A function node `f` wired to a sink `s`. */
function fn(config: Record<string, unknown>) {
  return flow(
    [
      { id: "f", type: "function", config },
      { id: "s", type: "sink" },
    ],
    [{ source: "f", target: "s" }],
  );
}

describe("function node timers", () => {
  it("setTimeout runs its callback later with its arguments; node.send goes out of the node with a new _msgid", async () => {
    const h = await fn({
      code: "setTimeout(function (a, b) { node.send({ payload: [a, b, msg.payload, this === node] }); node.status({ text: 'fired' }); }, 30, 'x', 2); return null;",
    });
    const sentAt = Date.now();
    h.send("f", { _msgid: "input-1", payload: "in" });
    const [m] = await h.waitFor(1);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(25);
    // The callback closes over the input's msg, like any closure; what it sends gets its own id.
    expect(m!.payload).toEqual(["x", 2, "in", true]);
    expect(m!._msgid).not.toBe("input-1");
    expect(h.statuses.filter((s) => s.nodeId === "f").at(-1)!.status).toEqual({ fill: "grey", shape: "dot", text: "fired" });
    expect(h.errors).toEqual([]);
  });

  it("clearTimeout in a later call prevents the callback; a cleared id can be cleared again", async () => {
    const h = await fn({
      code: `if (msg.payload === 'set') { context.set('t', setTimeout(() => node.send({ payload: 'too late' }), 80)); return null; }
             clearTimeout(context.get('t')); clearTimeout(context.get('t')); clearTimeout('nonsense'); return { payload: 'cleared' };`,
    });
    h.send("f", { payload: "set" });
    h.send("f", { payload: "clear" });
    await h.waitFor(1);
    await sleep(200);
    expect(h.received.map((m) => m.payload)).toEqual(["cleared"]);
    expect(h.errors).toEqual([]);
  });

  it("setInterval repeats until clearInterval, keeping the node's context", async () => {
    const h = await fn({
      code: `const id = setInterval(() => {
               const n = (context.get('n') || 0) + 1;
               context.set('n', n);
               node.send({ payload: n });
               if (n === 3) clearInterval(id);
             }, 10);
             return null;`,
    });
    h.send("f", { payload: 0 });
    await h.waitFor(3);
    await sleep(150);
    expect(h.received.map((m) => m.payload)).toEqual([1, 2, 3]);
  });

  it("an error thrown in a callback is reported as the node's error; the other timers go on", async () => {
    const h = await fn({
      code: `setTimeout(() => {
               node.send({ payload: 'before' });
               null.boom;
             }, 5);
             let ticks = 0;
             setInterval(() => { ticks++; if (ticks <= 2) throw new Error('tick ' + ticks); node.send({ payload: 'tick ' + ticks }); }, 10);
             setTimeout(() => node.send({ payload: 'other' }), 40);
             return null;`,
    });
    h.send("f", { payload: 0 });
    await expect.poll(() => h.received.map((m) => m.payload), { timeout: 3000 }).toEqual(expect.arrayContaining(["before", "other", "tick 3"]));
    const errors = h.errors.filter((e) => e.nodeId === "f").map((e) => e.error);
    // Node-RED's words: the error's toString(), as its timer wrapper's node.error(err, {}) reports it.
    expect(errors).toContain("TypeError: Cannot read properties of null (reading 'boom')");
    expect(errors).toContain("Error: tick 1");
    expect(errors).toContain("Error: tick 2");
  });

  it("timers set by initialize run once the flow has started", async () => {
    const h = await fn({
      initialize: "context.set('n', 0); setTimeout((what) => node.send({ payload: what }), 1, 'from initialize');",
      code: "return msg;",
    });
    const [m] = await h.waitFor(1);
    expect(m!.payload).toBe("from initialize");
  });

  it("a body that awaits a timer sends what it returns when the timer has run", async () => {
    const h = await fn({
      code: "await new Promise((resolve) => setTimeout(resolve, 30)); msg.payload = 'awaited ' + msg.payload; return msg;",
    });
    h.send("f", { payload: 1 });
    const [m] = await h.waitFor(1);
    expect(m!.payload).toBe("awaited 1");
    expect(h.errors).toEqual([]);
  });

  it("a node holds at most 1,000 timers: past it setTimeout throws inside the sandbox", async () => {
    const h = await fn({
      code: `const ids = [];
             let error = null;
             try { for (let i = 0; i < 1001; i++) ids.push(setTimeout(() => {}, 60000)); } catch (e) { error = String(e); }
             const count = ids.length;
             clearTimeout(ids.pop());
             ids.push(setInterval(() => {}, 60000));
             return { payload: [count, error, ids.length] };`,
    });
    h.send("f", { payload: 0 });
    const [m] = await h.waitFor(1);
    expect(m!.payload).toEqual([1000, expect.stringMatching(/^Error: setTimeout: too many timers \(a function node may have at most 1000 set at once/), 1000]);
  });

  it("every timer is cleared when the flow stops; finalize still runs", async () => {
    const h = await fn({
      initialize: "setInterval(() => node.send({ payload: 'init tick' }), 10);",
      code: "setInterval(() => node.send({ payload: 'tick' }), 10); setTimeout(() => node.send({ payload: 'late' }), 400); return null;",
      finalize: "node.warn('finalized with ' + context.get('x'));",
    });
    const sent = performance.now();
    h.send("f", { payload: 0 });
    await expect.poll(() => h.received.filter((m) => m.payload === "tick").length).toBeGreaterThan(1);
    await h.engine.stop("flw_test");
    const stoppedAfterMs = performance.now() - sent;
    const count = h.received.length;
    await sleep(600);
    // Nothing after the stop: neither interval, nor the timeout still pending (due 400 ms after the input).
    expect(h.received.length, JSON.stringify(h.received.map((m) => m.payload))).toBe(count);
    // (A machine so loaded that the stop came after 400 ms has seen the timeout fire before it, rightly.)
    if (stoppedAfterMs < 400) expect(h.received.some((m) => m.payload === "late")).toBe(false);
    expect(h.errors).toEqual([{ nodeId: "f", error: "warn: finalized with undefined" }]);
  });

  it("a redeploy clears the old version's timers", async () => {
    const h = await fn({ code: "setInterval(() => node.send({ payload: 'old' }), 10); return null;" });
    h.send("f", { payload: 0 });
    await h.waitFor(2);
    // The same flow again, with a function that only answers its input.
    await h.engine.deploy({
      flowId: "flw_test",
      organizationId: "org_test",
      organizationSlug: "acme",
      revision: 2,
      nodes: [
        { id: "f", type: "function", name: "", config: { code: "return { payload: 'new' };", outputs: 1, timeout_ms: 1000, initialize: "", finalize: "" } },
        { id: "s", type: "sink", name: "", config: {} },
      ],
      connections: [{ source: "f", target: "s", source_port: 0 }],
    });
    const count = h.received.length;
    await sleep(150);
    expect(h.received.length).toBe(count);
    h.send("f", { payload: 1 });
    await h.waitFor(count + 1);
    expect(h.received.at(-1)!.payload).toBe("new");
  });

  it("a timer of a node whose worker was replaced runs nothing stale; initialize's timers come back", async () => {
    const h = await flow(
      [
        {
          id: "ticker",
          type: "function",
          config: { initialize: "context.set('n', 0); setInterval(() => { context.set('n', context.get('n') + 1); node.send({ payload: context.get('n') }); }, 20);", code: "return msg;" },
        },
        // Same flow, so same worker: its hard deadline terminates that worker.
        { id: "bomb", type: "function", config: { timeout_ms: 100, code: "const o = Object.assign({}, new Array(1e5).fill(1)); for (;;) ({ ...o });" } },
        { id: "s", type: "sink" },
      ],
      [{ source: "ticker", target: "s" }],
    );
    await h.waitFor(2);
    h.send("bomb", { payload: 0 });
    await expect.poll(() => h.errors.some((e) => e.nodeId === "bomb" && /timed out|time limit/.test(e.error)), { timeout: 10_000 }).toBe(true);
    const before = h.received.length;
    // The ticker's old interval is lost with its engine; the first tick after re-creates it (running
    // initialize again, which starts over at 1) and its new interval goes on.
    await expect.poll(() => h.received.slice(before).map((m) => m.payload), { timeout: 10_000 }).toEqual(expect.arrayContaining([1, 2, 3]));
    expect(h.errors.filter((e) => e.nodeId === "ticker")).toEqual([]);
  }, 20_000);
});

describe("function node timers and backpressure", () => {
  /**
   * A downstream slower than the generator, on no sandbox worker (a function node would share the
   * generator's worker queue, which paces by itself): each message is held until the node's own
   * clock lets it through, `perTick` every `tickMs`. It counts as waiting in the flow meanwhile.
   */
  function slowNode(perTick: number, tickMs: number, seen: number[], sample: () => void): NodeFactory {
    return () => {
      const held: Array<() => void> = [];
      let timer: NodeJS.Timeout | undefined;
      const tick = () => {
        for (const release of held.splice(0, perTick)) release();
        timer = held.length > 0 ? setTimeout(tick, tickMs) : undefined;
      };
      return {
        input(msg) {
          sample();
          seen.push(msg.payload as number);
          return new Promise<void>((resolve) => {
            held.push(resolve);
            timer ??= setTimeout(tick, tickMs);
          });
        },
        close() {
          clearTimeout(timer);
        },
      };
    };
  }

  it("a generator that yields with setTimeout is paced by the flow: never a batch over the mark, nothing lost", async () => {
    const n = 100_000;
    const batch = 1000;
    const seen: number[] = [];
    let peak = 0;
    let load = () => 0;
    const sample = () => {
      peak = Math.max(peak, load());
    };
    const h = await flow(
      [
        {
          id: "gen",
          type: "function",
          config: {
            code: `let i = 0; const n = msg.payload.n;
                   function batch() { const end = Math.min(i + ${batch}, n); for (; i < end; i++) node.send({ payload: i, seq: i, parity: i & 1 }); if (i < n) setTimeout(batch, 0); }
                   batch(); return null;`,
          },
        },
        { id: "slow", type: "slow" },
      ],
      [{ source: "gen", target: "slow" }],
      {},
      { slow: slowNode(100, 2, seen, sample) },
    );
    load = () => h.engine.load("flw_test");
    h.send("gen", { payload: { n } });
    await expect.poll(() => seen.length, { timeout: 60_000, interval: 50 }).toBe(n);
    // Each message once, in order.
    expect(seen.every((v, i) => v === i)).toBe(true);
    expect(peak).toBeGreaterThan(DEFAULT_HIGH_WATER_MARK / 2);
    expect(peak).toBeLessThanOrEqual(DEFAULT_HIGH_WATER_MARK + batch);
    expect(h.errors).toEqual([]);
  }, 90_000);
});

describe("function node turns (NodeRoles.inTurn)", () => {
  const inTurn = (code: string) => functionNode.roles!.inTurn!({ ...functionConfig.parse({ code }) });
  it("runs in the flow's turn when its code names the flow or global context, beside the flow otherwise", () => {
    expect(inTurn("flow.set('user', msg.payload); return msg;")).toBe(true);
    expect(inTurn("msg.payload = global.get('g'); return msg;")).toBe(true);
    expect(inTurn("context.flow.set('x', 1); return msg;")).toBe(true);
    expect(inTurn("msg.payload = msg.payload * 2; return msg;")).toBe(false);
    // The node's own context is its own: no other branch reads it.
    expect(inTurn("context.set('n', (context.get('n') || 0) + 1); return msg;")).toBe(false);
    // A name that merely contains the word is not the context.
    expect(inTurn("msg.overflow = msg.globalId; return msg;")).toBe(false);
    // On Start shares the code's scope: a helper it defines may set the context.
    expect(functionNode.roles!.inTurn!({ ...functionConfig.parse({ code: "save(msg.payload); return msg;", initialize: "globalThis.save = (v) => flow.set('u', v);" }) })).toBe(true);
  });
});
