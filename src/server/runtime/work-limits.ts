/**
 * Bounds on what one flow and one organization may hold in memory or keep busy at once (issue 40):
 * the size of the messages a flow holds waiting (the runaway guard counts bytes, not only
 * messages), the JSONata evaluations that run at once, and the response bytes http-request nodes
 * hold. Nothing here knows the engine: it counts, and makes work wait its turn.
 */

/** Past this many estimated bytes one message is counted as this many: the walk stops there. */
export const MESSAGE_BYTES_CAP = 1024 * 1024;

/**
 * An estimate of the memory a message holds, in bytes: strings at their length plus a header,
 * Buffers at their size, objects and arrays 16 bytes an entry. Walks at most `cap` bytes' worth
 * (counting a shared object each time it is reached, as a clone of the message would copy it), so
 * it costs a small message a few dozen property reads and a huge one no more than the cap.
 */
export function approxMessageBytes(value: unknown, cap = MESSAGE_BYTES_CAP): number {
  // Every message sent is measured: the walk's stack is kept between calls (a new one only if a
  // getter read on the way measures a message itself). A popped slot is cleared, so the kept
  // stack holds nothing once the walk ends; its length stays, not to be grown again each call.
  const stack = spareStack ?? [];
  spareStack = undefined;
  let top = 0;
  try {
    let total = 0;
    stack[top++] = value;
    while (top > 0) {
      const v = stack[--top];
      stack[top] = undefined;
      switch (typeof v) {
        case "string":
          total += 16 + v.length;
          break;
        case "object": {
          if (v === null) {
            total += 8;
            break;
          }
          if (ArrayBuffer.isView(v)) {
            total += 64 + v.byteLength;
            break;
          }
          if (Array.isArray(v)) {
            total += 32 + 8 * v.length;
            if (total >= cap) return cap;
            for (let i = v.length - 1; i >= 0; i--) stack[top++] = v[i];
          } else {
            total += 32;
            for (const k in v) {
              if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
              total += 16;
              if (total >= cap) return cap;
              stack[top++] = (v as Record<string, unknown>)[k];
            }
          }
          break;
        }
        default:
          total += 8;
      }
      if (total >= cap) return cap;
    }
    return total;
  } finally {
    while (top > 0) stack[--top] = undefined;
    // A stack grown by a huge array (the cap allows ~130,000 entries) is not kept.
    if (stack.length <= MAX_KEPT_STACK) spareStack = stack;
  }
}

/** The walk's stack, kept between calls while it is free (see approxMessageBytes). */
let spareStack: unknown[] | undefined;
const MAX_KEPT_STACK = 4096;

/** Counted slots with a FIFO of waiters. */
class Slots {
  used = 0;
  private readonly waiters: Array<() => void> = [];
  constructor(private readonly max: number) {}

  get idle(): boolean {
    return this.used === 0 && this.waiters.length === 0;
  }

  /** Resolves once a slot is taken (at once when one is free and nobody waits). */
  acquire(): Promise<void> {
    if (this.used < this.max && this.waiters.length === 0) {
      this.used++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    // The slot passes straight to the first waiter: nobody overtakes it.
    if (next) next();
    else this.used--;
  }
}

/** A bound on bytes held at once, taken in whole reservations, first come first served. */
export class ByteBudget {
  private used = 0;
  /** The most held at once (tests, metrics). */
  peak = 0;
  private readonly waiters: Array<{ bytes: number; grant: () => void }> = [];
  constructor(readonly max: number) {}

  get idle(): boolean {
    return this.used === 0 && this.waiters.length === 0;
  }

  /**
   * Calls `grant` once `bytes` fit (at once when they do and nobody waits; a reservation larger
   * than the whole budget is granted when nothing else is held). Returns a cancel for a caller that
   * stops waiting (its deadline); a granted reservation is given back with `give`.
   */
  reserve(bytes: number, grant: () => void): () => void {
    const entry = { bytes, grant };
    if (this.waiters.length === 0 && this.fits(bytes)) {
      this.take(bytes);
      grant();
      return () => undefined;
    }
    this.waiters.push(entry);
    return () => {
      const at = this.waiters.indexOf(entry);
      if (at !== -1) this.waiters.splice(at, 1);
      this.grantWaiting();
    };
  }

  give(bytes: number): void {
    this.used -= bytes;
    this.grantWaiting();
  }

  get held(): number {
    return this.used;
  }

  private take(bytes: number): void {
    this.used += bytes;
    if (this.used > this.peak) this.peak = this.used;
  }

  private fits(bytes: number): boolean {
    return this.used === 0 || this.used + bytes <= this.max;
  }

  private grantWaiting(): void {
    while (this.waiters.length > 0 && this.fits(this.waiters[0]!.bytes)) {
      const next = this.waiters.shift()!;
      this.take(next.bytes);
      next.grant();
    }
  }
}

export interface WorkLimitsOptions {
  /** JSONata evaluations running at once per flow, and per organization (the others wait their turn). */
  jsonataPerFlow: number;
  jsonataPerOrganization: number;
  /** Response bytes an organization's http-request nodes may hold while they download. */
  responseBytesPerOrganization: number;
}

/**
 * JSONata yields to the event loop every 10 ms, so each evaluation running at once adds up to
 * 10 ms to every turn (issue 40: 50 at once gave /health a median of 456 ms): 2 per flow and 4 per
 * organization keep a tenant's share of a turn near 40 ms. 64 MiB of downloads per organization:
 * six 10 MiB responses at once (50 of them added 822 MB).
 */
export const DEFAULT_WORK_LIMITS: WorkLimitsOptions = { jsonataPerFlow: 2, jsonataPerOrganization: 4, responseBytesPerOrganization: 64 * 1024 * 1024 };

/** What a JSONata evaluation waits on before it runs: its flow's and its organization's turn. */
export interface WorkGate {
  run<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * The bounds of one application instance, per flow and per organization. Work past a bound waits
 * (in order) instead of running: it stays an asynchronous input of its node, so the engine counts
 * its message as waiting, the flow goes busy at its high-water mark and the doors answer 429
 * (SPEC §17), rather than the process running out of time or memory for every tenant.
 */
export class WorkLimits {
  private readonly jsonataFlows = new Map<string, Slots>();
  private readonly jsonataOrgs = new Map<string, Slots>();
  private readonly budgets = new Map<string, ByteBudget>();

  constructor(readonly options: WorkLimitsOptions = DEFAULT_WORK_LIMITS) {}

  jsonataGate(organizationId: string, flowId: string): WorkGate {
    return {
      run: async (work) => {
        const flow = this.slots(this.jsonataFlows, flowId, this.options.jsonataPerFlow);
        await flow.acquire();
        const org = this.slots(this.jsonataOrgs, organizationId, this.options.jsonataPerOrganization);
        try {
          await org.acquire();
          try {
            return await work();
          } finally {
            org.release();
            if (org.idle) this.jsonataOrgs.delete(organizationId);
          }
        } finally {
          flow.release();
          if (flow.idle) this.jsonataFlows.delete(flowId);
        }
      },
    };
  }

  /** The organization's budget for bytes being downloaded: http-request response bodies, and what tcp-in holds. */
  responseBudget(organizationId: string): ByteBudget {
    let budget = this.budgets.get(organizationId);
    if (!budget) this.budgets.set(organizationId, (budget = new ByteBudget(this.options.responseBytesPerOrganization)));
    return budget;
  }

  /** Waiting and running work (GET /metrics, tests). */
  stats(): { jsonataRunning: number } {
    let jsonataRunning = 0;
    for (const slots of this.jsonataOrgs.values()) jsonataRunning += slots.used;
    return { jsonataRunning };
  }

  private slots(map: Map<string, Slots>, key: string, max: number): Slots {
    let slots = map.get(key);
    if (!slots) map.set(key, (slots = new Slots(max)));
    return slots;
  }
}
