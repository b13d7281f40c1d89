import { describe, expect, it } from "vitest";
import { setImmediate as nextTurn } from "node:timers/promises";
import { inOrder } from "./in-order";

describe("inOrder", () => {
  it("starts each task once the one before it has settled, even when the first waits a turn of the event loop", async () => {
    const queue = inOrder();
    const log: string[] = [];
    const first = queue(async () => {
      log.push("first start");
      await nextTurn();
      log.push("first end");
      return 1;
    });
    const second = queue(() => {
      log.push("second");
      return 2;
    });
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(log).toEqual(["first start", "first end", "second"]);
  });

  it("a failing task rejects its own promise and the next still runs", async () => {
    const queue = inOrder();
    const failed = queue(() => {
      throw new Error("boom");
    });
    const next = queue(() => "ran");
    await expect(failed).rejects.toThrow("boom");
    expect(await next).toBe("ran");
  });
});
