/**
 * Spin-then-park for the round trip between the host and a sandbox worker (pool-worker.ts,
 * sandbox-worker.ts).
 *
 * A thread that has gone back to its event loop sleeps in epoll; waking it (the other side's
 * postMessage writes its eventfd) costs more than the sandbox call itself on a virtual machine:
 * about 20 µs of latency and as much CPU per direction, where a typical function body runs in
 * 10–20 µs (docs/BENCHMARKS.md, "Function round trips"). So each side, when it expects an answer
 * soon, first watches a shared counter for a few tens of microseconds before it goes back to its
 * loop: the host after posting a call to an idle worker, the worker after emptying its queue.
 *
 * Spinning is adaptive (a side that waited in vain spins less often, doubling up to
 * MAX_SKIP calls, and again at every one once it catches an answer), never happens with less than
 * two CPUs (cores or a container's CPU quota; FUNCTION_SPIN_US=0 turns it off), and the host's spinning is bounded per turn of its event loop (SpinBudget): a chain of
 * function nodes answered while the host spins continues in microtasks, and the budget makes the
 * host yield to its other work (HTTP, sockets, timers) at least every MAX_CAUGHT_PER_TURN answers
 * or MAX_SPIN_US_PER_TURN microseconds of spinning.
 */
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";

/** How long a side watches for the other's answer before going back to its event loop. */
export const DEFAULT_SPIN_US = 50;
const MAX_SKIP = 64;
const MAX_CAUGHT_PER_TURN = 32;
const MAX_SPIN_US_PER_TURN = 1_000;

/**
 * The CPUs this process may use: the cores it may run on, bounded by its cgroup's CPU quota where
 * one is set (a container's `limits.cpu`), as "<quota> <period>" (cgroup v2's cpu.max, where the
 * quota may be "max"; cgroup v1's cpu.cfs_quota_us and cpu.cfs_period_us, where it may be -1).
 * Node 22's availableParallelism() counts the quota already; Node 20's does not.
 */
export function usableCpus(cpuMax: string | null = readCpuQuota()): number {
  const cores = availableParallelism();
  const [quota, period] = (cpuMax ?? "").trim().split(/\s+/);
  const q = Number(quota);
  const p = Number(period);
  if (!Number.isFinite(q) || !Number.isFinite(p) || q <= 0 || p <= 0) return cores;
  return Math.min(cores, q / p);
}

function readCpuQuota(): string | null {
  const read = (path: string) => {
    try {
      return readFileSync(path, "utf8").trim();
    } catch {
      return null;
    }
  };
  const v2 = read("/sys/fs/cgroup/cpu.max");
  if (v2 !== null) return v2;
  for (const dir of ["/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"]) {
    const quota = read(`${dir}/cpu.cfs_quota_us`);
    const period = read(`${dir}/cpu.cfs_period_us`);
    if (quota !== null && period !== null) return `${quota} ${period}`;
  }
  return null;
}

/**
 * The spin window to use on this machine: none with less than two CPUs (the other thread could not
 * run meanwhile, and a spin would only burn the quota).
 */
export function spinWindowUs(requested = DEFAULT_SPIN_US, cpus = usableCpus()): number {
  return cpus < 2 ? 0 : Math.max(0, requested);
}

/** Whether to spin this time: after a spin that caught nothing, the next 1, 2, 4 … MAX_SKIP are skipped. */
export class SpinGate {
  private skip = 0;
  private penalty = 0;

  constructor(readonly windowUs: number) {}

  open(): boolean {
    if (this.windowUs <= 0) return false;
    if (this.skip > 0) {
      this.skip--;
      return false;
    }
    return true;
  }

  caught(): void {
    this.penalty = 0;
  }

  missed(): void {
    this.penalty = Math.min(MAX_SKIP, this.penalty === 0 ? 1 : this.penalty * 2);
    this.skip = this.penalty;
  }
}

/**
 * Spins until `done()` or `windowUs` has passed; true when done. `done` is called in a tight loop:
 * it should be an Atomics.load and a comparison.
 */
export function spinFor(windowUs: number, done: () => boolean): boolean {
  const until = performance.now() + windowUs / 1000;
  for (;;) {
    for (let i = 0; i < 16; i++) if (done()) return true;
    if (performance.now() >= until) return done();
  }
}

/**
 * The host's spinning per turn of its event loop (one per pool: its workers share the thread), and
 * what else the host has to do: it never spins while one of `busy` says it has work waiting (the
 * engine's delivery queue), which it would hold up.
 */
export class SpinBudget {
  private caughtThisTurn = 0;
  private spunUs = 0;
  private resetScheduled = false;
  private readonly busy = new Set<() => boolean>();

  /** Whether the host may spin now. */
  available(): boolean {
    if (this.caughtThisTurn >= MAX_CAUGHT_PER_TURN || this.spunUs >= MAX_SPIN_US_PER_TURN) return false;
    for (const busy of this.busy) if (busy()) return false;
    return true;
  }

  /** Registers work the host's spinning must not hold up; returns the function that removes it. */
  yieldTo(busy: () => boolean): () => void {
    this.busy.add(busy);
    return () => {
      this.busy.delete(busy);
    };
  }

  spent(us: number, caught: boolean): void {
    this.spunUs += us;
    if (caught) this.caughtThisTurn++;
    if (!this.resetScheduled) {
      this.resetScheduled = true;
      setImmediate(() => {
        this.resetScheduled = false;
        this.caughtThisTurn = 0;
        this.spunUs = 0;
      });
    }
  }
}
