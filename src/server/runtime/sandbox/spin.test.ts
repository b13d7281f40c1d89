import { availableParallelism } from "node:os";
import { afterAll, describe, expect, it } from "vitest";
import { SpinBudget, SpinGate, spinFor, spinWindowUs, usableCpus } from "./spin";
import { SandboxPool } from "./sandbox-pool";

const options = (code: string) => ({ code, outputs: 1, timeoutMs: 1000, flowContext: new Map(), nodeInfo: { id: "n1", name: "fn", flowId: "f1" } });
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("spin gate", () => {
  it("skips 1, 2, 4 … 64 chances after each spin that caught nothing, and spins every time again once one catches", () => {
    const gate = new SpinGate(50);
    const skippedAfterMiss = () => {
      gate.missed();
      let skipped = 0;
      while (!gate.open()) skipped++;
      return skipped;
    };
    expect(gate.open()).toBe(true);
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(skippedAfterMiss)).toEqual([1, 2, 4, 8, 16, 32, 64, 64]);
    gate.caught();
    expect(skippedAfterMiss()).toBe(1);
    gate.caught();
    expect([gate.open(), gate.open(), gate.open()]).toEqual([true, true, true]);
  });

  it("never opens with a window of 0", () => {
    expect(new SpinGate(0).open()).toBe(false);
  });

  it("spinFor ends when the condition holds, or after its window", () => {
    let n = 0;
    expect(spinFor(1_000_000, () => ++n === 100)).toBe(true);
    expect(n).toBe(100);
    const started = performance.now();
    expect(spinFor(2_000, () => false)).toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(2);
  });

  it("is off with less than two CPUs: cores, or a container's CPU quota", () => {
    expect(spinWindowUs(50, 1)).toBe(0);
    expect(spinWindowUs(50, 1.5)).toBe(0);
    expect(spinWindowUs(50, 2)).toBe(50);
    expect(spinWindowUs(-5, 4)).toBe(0);
    const cores = availableParallelism();
    expect(usableCpus("max 100000")).toBe(cores);
    expect(usableCpus(null)).toBe(cores);
    expect(usableCpus("100000 100000\n")).toBe(Math.min(cores, 1));
    expect(usableCpus("50000 100000")).toBe(Math.min(cores, 0.5));
    expect(usableCpus("1600000 100000")).toBe(cores);
    // cgroup v1's files, read as "<quota> <period>": -1 is no quota.
    expect(usableCpus("-1 100000")).toBe(cores);
  });
});

describe("spin budget: the host yields to its event loop", () => {
  it("allows 32 answers caught per turn, then none until the next turn", async () => {
    const budget = new SpinBudget();
    for (let i = 0; i < 32; i++) {
      expect(budget.available()).toBe(true);
      budget.spent(5, true);
    }
    expect(budget.available()).toBe(false);
    await nextTurn();
    expect(budget.available()).toBe(true);
  });

  it("allows 1 ms of spinning per turn", async () => {
    const budget = new SpinBudget();
    budget.spent(600, false);
    expect(budget.available()).toBe(true);
    budget.spent(600, false);
    expect(budget.available()).toBe(false);
    await nextTurn();
    expect(budget.available()).toBe(true);
  });

  it("does not spin while registered work waits, until it is removed", () => {
    const budget = new SpinBudget();
    let waiting = true;
    const remove = budget.yieldTo(() => waiting);
    expect(budget.available()).toBe(false);
    waiting = false;
    expect(budget.available()).toBe(true);
    waiting = true;
    remove();
    expect(budget.available()).toBe(true);
  });
});

describe("spinning in the pool", () => {
  const pool = new SandboxPool();
  afterAll(() => pool.close());

  it("answers every call of a chain in order while the host catches the answers", async () => {
    const sandbox = await pool.create(options("msg.payload = msg.payload + 1; return msg;"));
    let payload = 0;
    for (let i = 0; i < 640; i++) {
      const result = await sandbox.run({ _msgid: `m${i}`, payload });
      payload = result.outputs[0]![0]!.payload as number;
    }
    expect(payload).toBe(640);
    await sandbox.close();
  });

  it("answers calls in flight together, one after another in order", async () => {
    const sandbox = await pool.create(options("return msg;"));
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => sandbox.run({ _msgid: `p${i}`, payload: i })));
    expect(results.map((result) => result.outputs[0]![0]!.payload)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    await sandbox.close();
  });

  it.runIf(availableParallelism() > 1)("catches answers while it spins, also of code that calls the global context meanwhile", async () => {
    // A wide window, so a loaded machine (the whole suite runs at once) cannot make every spin miss;
    // calls until one is caught (a miss makes the next spins wait, spin.ts's gate).
    const wide = new SandboxPool({ spinUs: 20_000 });
    const wider = new SandboxPool({ spinUs: 200_000 });
    const caughtWithin = async (sandbox: Awaited<ReturnType<SandboxPool["create"]>>, prefix: string) => {
      const before = wide.diagnostics().spinsCaught;
      for (let i = 0; i < 300 && wide.diagnostics().spinsCaught === before; i++) {
        const result = await sandbox.run({ _msgid: `${prefix}${i}`, payload: i });
        expect(result.outputs[0]![0]!.payload).toBe(prefix === "g" ? "set" : i);
      }
      return wide.diagnostics().spinsCaught - before;
    };
    try {
      const plain = await wide.create(options("return msg;"));
      expect(await caughtWithin(plain, "c")).toBeGreaterThan(0);
      await plain.close();
      // The worker waits (Atomics.wait) for the host's answer to a global call: a host spinning
      // for the run's answer must answer it, or every spin ends empty.
      const reading = await wide.create({ ...options("msg.payload = global.get('k'); return msg;"), owner: "org-spin" });
      wide.defaultGlobal("org-spin").setJson("k", JSON.stringify("set"));
      expect(await caughtWithin(reading, "g")).toBeGreaterThan(0);
      await reading.close();
      // An increment is answered by a promise, which cannot settle while the host spins: the spin
      // stops at once, neither caught nor a miss (a miss would make the next spins wait for nothing).
      // A window of 200 ms: a host that spun on would spin it out and miss every time, while a
      // loaded machine (CI runs two suites at once) rarely keeps a call's global call from the
      // host that long; with 20 ms it did, three times in 40 calls.
      const counting = await wider.create({ ...options("msg.payload = global.increment('n', 1); return msg;"), owner: "org-spin" });
      expect((await counting.run({ _msgid: "i0", payload: 0 })).outputs[0]![0]!.payload).toBe(1);
      const before = wider.diagnostics();
      for (let i = 1; i <= 40; i++) expect((await counting.run({ _msgid: `i${i}`, payload: 0 })).outputs[0]![0]!.payload).toBe(i + 1);
      // Counted as misses, 40 calls would make 6 (the gate skips 1, 2, 4 … after each); a loaded
      // machine may make a call itself slower than the window once or twice.
      expect(wider.diagnostics().spinsMissed - before.spinsMissed).toBeLessThan(3);
      await counting.close();
    } finally {
      await wide.close();
      await wider.close();
    }
  });

  // The budget's limits per turn go through the same check (SpinBudget.available, tested above).
  it.runIf(availableParallelism() > 1)("spins for an idle worker's answer only while the host has nothing else waiting", async () => {
    const sandbox = await pool.create(options("return msg;"));
    let busy = true;
    const remove = pool.yieldTo(() => busy);
    const before = pool.diagnostics();
    for (let i = 0; i < 50; i++) await sandbox.run({ _msgid: `b${i}`, payload: i });
    const during = pool.diagnostics();
    expect(during.spinsCaught + during.spinsMissed).toBe(before.spinsCaught + before.spinsMissed);
    busy = false;
    for (let i = 0; i < 200; i++) await sandbox.run({ _msgid: `i${i}`, payload: i });
    const after = pool.diagnostics();
    expect(after.spinsCaught + after.spinsMissed).toBeGreaterThan(during.spinsCaught + during.spinsMissed);
    remove();
    await sandbox.close();
  });
});
