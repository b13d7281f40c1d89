/**
 * The host half of a function node's setTimeout/setInterval. The sandbox keeps the callbacks (and
 * their arguments); this keeps the clocks: each sandbox call reports the timers it set or cleared
 * (SandboxResult.timers), and this arms a plain Node timer per live one (cleared on close, like the
 * inject node's repeats: flows are the application's work, so they are not unref'd).
 *
 * When a timer comes due it waits for its turn, then for the flow (`ctx.whenReady`): a callback only
 * runs while the flow is not busy, so code that sends in batches and yields with setTimeout is paced
 * by the flow instead of flooding it; the engine's queue limit stays the last resort for code that
 * floods without yielding. This is a deliberate difference from Node-RED, where timers fire on time
 * whatever the flow holds. The node's due timers run one at a time, in the order they came due, so
 * one node overshoots the flow's high-water mark by at most what one callback sends. An interval's
 * next period is counted from the end of its run: its clock stops while it waits for its turn or
 * runs, so a waiting interval fires once, not once per missed period, and a node's thousand 1 ms
 * intervals cost the host nothing while the flow is busy (they cannot outrun the sandbox either).
 *
 * Ids come from the sandbox and are never reused by it (see TimerChanges): when the engine behind
 * the node is re-created (a fatal error, a lost worker) its timers are gone with it; the first result
 * from the new engine says where its ids start (`from`) and every older timer is disarmed here. A
 * timer that comes due before that news runs nothing in the new engine (an unknown id answers
 * "cleared"), so no callback ever runs twice or in place of another.
 */
import type { TimerChanges } from "../../runtime/sandbox/function-sandbox";
import type { NodeContext } from "../../runtime/types";

interface HostTimer {
  id: number;
  repeat: boolean;
  delay: number;
  handle: NodeJS.Timeout | undefined;
}

export class FunctionTimers {
  private readonly live = new Map<number, HostTimer>();
  /** Due timers, in the order they came due (a Set: a timer already waiting is not added twice). */
  private readonly due = new Set<HostTimer>();
  /** Ids below this belong to an engine that is gone. */
  private floor = 0;
  private started = false;
  private closed = false;
  /** A timer is waiting for the flow or running in the sandbox. */
  private firing = false;
  private cancelWait: (() => void) | undefined;

  /**
   * @param run runs timer `id` in the sandbox and handles what it did (sends, status, errors,
   *   further timer changes through apply()); never rejects.
   */
  constructor(
    private readonly ctx: Pick<NodeContext, "whenReady">,
    private readonly run: (id: number, repeat: boolean) => Promise<void>,
  ) {}

  /** Applies what a sandbox call reported. Ignored once closed. */
  apply(changes: TimerChanges | undefined): void {
    if (!changes || this.closed) return;
    if (changes.from !== undefined && changes.from > this.floor) {
      this.floor = changes.from;
      for (const timer of [...this.live.values()]) if (timer.id < this.floor) this.disarm(timer.id);
    }
    // Set before clear: a result may carry the timers of an `initialize` re-run that the call then cleared.
    if (changes.set) for (const [id, delay, repeat] of changes.set) this.arm(id, delay, repeat);
    if (changes.clear) for (const id of changes.clear) this.disarm(id);
  }

  /** Called once every node of the flow exists: due timers may run from now on (not before). */
  start(): void {
    this.started = true;
    this.pump();
  }

  /** Disarms everything; nothing runs afterwards. */
  close(): void {
    this.closed = true;
    this.cancelWait?.();
    this.cancelWait = undefined;
    for (const timer of this.live.values()) clearTimeout(timer.handle);
    this.live.clear();
    this.due.clear();
  }

  /** Timers armed here (for tests and monitoring). */
  get size(): number {
    return this.live.size;
  }

  private arm(id: number, delay: number, repeat: boolean): void {
    if (id < this.floor || this.live.has(id)) return;
    const timer: HostTimer = { id, repeat, delay, handle: undefined };
    this.live.set(id, timer);
    this.clock(timer);
  }

  /** One period of the timer's clock (an interval's next one starts when its run is over). */
  private clock(timer: HostTimer): void {
    timer.handle = setTimeout(() => this.expire(timer), timer.delay);
  }

  private disarm(id: number): void {
    const timer = this.live.get(id);
    if (!timer) return;
    clearTimeout(timer.handle);
    this.live.delete(id);
    this.due.delete(timer);
  }

  private expire(timer: HostTimer): void {
    if (this.live.get(timer.id) !== timer) return;
    this.due.add(timer);
    this.pump();
  }

  private pump(): void {
    if (!this.started || this.closed || this.firing || this.due.size === 0) return;
    this.firing = true;
    this.cancelWait = this.ctx.whenReady(() => {
      this.cancelWait = undefined;
      void this.runNext();
    });
  }

  private async runNext(): Promise<void> {
    const timer = this.due.values().next().value;
    try {
      if (!timer || this.closed) return;
      this.due.delete(timer);
      // A timeout runs once; an interval stays armed, its clock stopped until the run is over.
      if (!timer.repeat) this.disarm(timer.id);
      await this.run(timer.id, timer.repeat);
    } catch {
      // run() reports its own failures.
    } finally {
      // Still armed (not cleared by its own callback, not closed): the next period starts now.
      if (timer?.repeat && !this.closed && this.live.get(timer.id) === timer) this.clock(timer);
      this.firing = false;
      this.pump();
    }
  }
}
