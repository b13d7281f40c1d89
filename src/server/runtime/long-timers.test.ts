import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { longInterval, longTimeout, MAX_TIMEOUT_MS } from "./long-timers";

const DAY = 86_400_000;

describe("timers past setTimeout's 24.8 days (a delay node's rate of one message per 30 days)", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("longTimeout waits the whole time (a plain setTimeout would fire after 1 ms)", () => {
    const fn = vi.fn();
    longTimeout(fn, 30 * DAY);
    vi.advanceTimersByTime(1);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(MAX_TIMEOUT_MS);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(30 * DAY - MAX_TIMEOUT_MS - 2);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it("longTimeout cleared in its first or a later leg never fires", () => {
    const early = vi.fn();
    longTimeout(early, 30 * DAY).clear();
    const late = vi.fn();
    const timer = longTimeout(late, 30 * DAY);
    vi.advanceTimersByTime(26 * DAY);
    timer.clear();
    vi.advanceTimersByTime(10 * DAY);
    expect(early).not.toHaveBeenCalled();
    expect(late).not.toHaveBeenCalled();
  });

  it("longInterval repeats every period past the limit, and a short one is a plain setInterval", () => {
    const fn = vi.fn();
    const timer = longInterval(fn, 30 * DAY);
    vi.advanceTimersByTime(30 * DAY);
    expect(fn).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(30 * DAY);
    expect(fn).toHaveBeenCalledTimes(2);
    timer.clear();
    vi.advanceTimersByTime(90 * DAY);
    expect(fn).toHaveBeenCalledTimes(2);
    const short = vi.fn();
    const every = longInterval(short, 1000);
    vi.advanceTimersByTime(3000);
    expect(short).toHaveBeenCalledTimes(3);
    every.clear();
  });
});

describe("longTimeout's order", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("waits of the same length fire in the order they were made, whatever Date.now() says when they fire", () => {
    // Timers run by the event loop's clock; Date.now() can be a millisecond either side of it.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const now = vi.spyOn(Date, "now");
    const order: string[] = [];
    now.mockReturnValue(1_000);
    longTimeout(() => order.push("a"), 100);
    now.mockReturnValue(1_001);
    longTimeout(() => order.push("b"), 100);
    now.mockReturnValueOnce(1_099).mockReturnValue(1_101);
    vi.advanceTimersByTime(100);
    vi.advanceTimersByTime(5);
    expect(order).toEqual(["a", "b"]);
  });
});
