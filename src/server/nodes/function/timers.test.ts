import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FunctionTimers } from "./timers";

/** A flow stub: whenReady runs at once unless busy, else when released. */
function flowStub() {
  let busy = false;
  const waiters = new Set<() => void>();
  return {
    ctx: {
      whenReady(fn: () => void) {
        if (!busy) {
          queueMicrotask(fn);
          return () => undefined;
        }
        waiters.add(fn);
        return () => waiters.delete(fn);
      },
    },
    setBusy(value: boolean) {
      busy = value;
      if (!value) {
        const list = [...waiters];
        waiters.clear();
        list.forEach((fn) => fn());
      }
    },
    get waiting() {
      return waiters.size;
    },
  };
}

describe("FunctionTimers (host clocks of the function node)", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function setup() {
    const flow = flowStub();
    const fired: number[] = [];
    let release: (() => void) | undefined;
    let hold = false;
    const timers = new FunctionTimers(flow.ctx, async (id) => {
      fired.push(id);
      if (hold) await new Promise<void>((resolve) => (release = resolve));
    });
    return {
      flow,
      fired,
      timers,
      hold(value: boolean) {
        hold = value;
      },
      release: () => release?.(),
    };
  }

  it("arms a Node timer per timer, runs it when due, and leaves none after close", async () => {
    const { timers, fired } = setup();
    timers.start();
    timers.apply({ set: [[1, 10, false], [2, 20, true], [3, 1000, false]], from: 1 });
    expect(vi.getTimerCount()).toBe(3);
    await vi.advanceTimersByTimeAsync(10);
    expect(fired).toEqual([1]);
    // The timeout is gone; the interval and the long timeout stay.
    expect(timers.size).toBe(2);
    await vi.advanceTimersByTimeAsync(40);
    expect(fired).toEqual([1, 2, 2]);
    timers.apply({ clear: [2] });
    await vi.advanceTimersByTimeAsync(100);
    expect(fired).toEqual([1, 2, 2]);
    timers.close();
    expect(vi.getTimerCount()).toBe(0);
    expect(timers.size).toBe(0);
    // Nothing is armed after close.
    timers.apply({ set: [[4, 1, false]] });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("due timers wait until the flow has started", async () => {
    const { timers, fired } = setup();
    timers.apply({ set: [[1, 1, false]] });
    await vi.advanceTimersByTimeAsync(50);
    expect(fired).toEqual([]);
    timers.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(fired).toEqual([1]);
  });

  it("a due timer waits while the flow is busy; an interval that missed periods fires once", async () => {
    const { timers, fired, flow } = setup();
    timers.start();
    flow.setBusy(true);
    timers.apply({ set: [[1, 10, true], [2, 15, false]] });
    await vi.advanceTimersByTimeAsync(100);
    expect(fired).toEqual([]);
    // One waiter for the node, not one per due timer.
    expect(flow.waiting).toBe(1);
    flow.setBusy(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(fired).toEqual([1, 2]);
    await vi.advanceTimersByTimeAsync(10);
    expect(fired).toEqual([1, 2, 1]);
    timers.close();
  });

  it("runs one timer at a time: the next waits for the previous call to finish", async () => {
    const s = setup();
    s.timers.start();
    s.hold(true);
    s.timers.apply({ set: [[1, 5, false], [2, 5, false]] });
    await vi.advanceTimersByTimeAsync(20);
    expect(s.fired).toEqual([1]);
    s.hold(false);
    s.release();
    await vi.advanceTimersByTimeAsync(0);
    expect(s.fired).toEqual([1, 2]);
    s.timers.close();
  });

  it("close cancels a timer waiting for the flow", async () => {
    const { timers, fired, flow } = setup();
    timers.start();
    flow.setBusy(true);
    timers.apply({ set: [[1, 1, false]] });
    await vi.advanceTimersByTimeAsync(5);
    expect(flow.waiting).toBe(1);
    timers.close();
    expect(flow.waiting).toBe(0);
    flow.setBusy(false);
    await vi.advanceTimersByTimeAsync(5);
    expect(fired).toEqual([]);
  });

  it("a new engine (`from`) disarms the timers of the old one; their late news is ignored", async () => {
    const { timers, fired } = setup();
    timers.start();
    timers.apply({ set: [[1, 50, true], [2, 50, false]], from: 1 });
    // The engine was re-created: its ids start at 3, and its initialize set timer 3.
    timers.apply({ set: [[3, 50, true]], from: 3 });
    expect(timers.size).toBe(1);
    timers.apply({ set: [[2, 1, false]] });
    expect(timers.size).toBe(1);
    await vi.advanceTimersByTimeAsync(50);
    expect(fired).toEqual([3]);
    // Set then cleared in one merged result (initialize's timer, cleared by the call it came with).
    timers.apply({ set: [[4, 1, false]], clear: [4] });
    await vi.advanceTimersByTimeAsync(5);
    expect(fired).toEqual([3]);
    timers.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("an interval's clock stops while it waits for a busy flow: a thousand 1 ms intervals arm nothing meanwhile", async () => {
    const { flow, fired, timers } = setup();
    timers.start();
    flow.setBusy(true);
    timers.apply({ set: Array.from({ length: 1000 }, (_, i) => [i + 1, 1, true] as [number, number, boolean]) });
    await vi.advanceTimersByTimeAsync(5);
    // Every interval came due once; none has a clock running while they wait.
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(vi.getTimerCount()).toBe(0);
    expect(fired).toEqual([]);
    flow.setBusy(false);
    await vi.advanceTimersByTimeAsync(0);
    // Each runs once for all the periods it missed, then its clock starts again.
    expect(fired.length).toBeGreaterThan(0);
    expect(new Set(fired).size).toBe(fired.length);
    timers.close();
    expect(vi.getTimerCount()).toBe(0);
  });
});
