import { Worker } from "node:worker_threads";
import type { Logger } from "../logger";

/** Slots for leases renewed off the main thread; past them a flow's lease is renewed on the main thread, as before. */
const SLOTS = 4096;

/**
 * Renews this instance's flow leases from a worker thread with its own Redis connection
 * (lease-worker.ts), so that a main thread busy delivering a flood of messages never lets a lease
 * lapse: the renewal no longer waits behind the flow's work for its turn on the event loop. The
 * main thread reads how long each lease is proven from shared memory, synchronously, in the
 * engine's fence (`validUntil`), and keeps a heartbeat the worker checks: a main thread that has
 * not turned for `stallMs` gets no renewals, so its flows move to another instance as a dead
 * one's would.
 */
export class LeaseKeeper {
  private readonly worker: Worker;
  private readonly proven: Float64Array;
  private readonly free: number[] = [];
  private readonly heartbeat: NodeJS.Timeout;
  private closed = false;
  /**
   * Settles once the worker can renew: true when its Redis connection is up, false when it stopped
   * first. Nothing waits for it in the server (the main thread renews a lease the worker has not
   * renewed in time); a test that holds a 2 s lease waits, since the worker boots from TypeScript there.
   */
  readonly ready: Promise<boolean>;

  constructor(options: {
    connection: { url: string; keyPrefix: string };
    ttlMs: number;
    renewMs: number;
    stallMs: number;
    logger: Logger;
    /** The lease in `slot` was found to be someone else's (or gone): stop the flow here. */
    onLost: (slot: number, token: number) => void;
  }) {
    const shared = new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT * (SLOTS + 1));
    this.proven = new Float64Array(shared);
    for (let slot = SLOTS - 1; slot >= 0; slot--) this.free.push(slot);
    this.beat();
    const { url, execArgv } = workerEntry();
    this.worker = new Worker(url, {
      execArgv,
      workerData: { ...options.connection, ttlMs: options.ttlMs, renewMs: options.renewMs, stallMs: options.stallMs, shared },
      // It allocates a few renewals a second: a young generation of 2 MB instead of V8's default (up
      // to 32 MB, grown while ioredis loads and never given back) keeps it at ~12 MB instead of ~27.
      resourceLimits: { maxYoungGenerationSizeMb: 2 },
    });
    this.worker.unref();
    let settle: (up: boolean) => void = () => undefined;
    this.ready = new Promise<boolean>((resolve) => (settle = resolve));
    this.worker.on("message", (message: { op: "lost"; slot: number; token: number } | { op: "ready" }) => {
      if (message.op === "lost") options.onLost(message.slot, message.token);
      else if (message.op === "ready") settle(true);
    });
    this.worker.on("error", (err) => options.logger.error({ err }, "the lease keeper's worker failed; leases are renewed on the main thread"));
    this.worker.on("exit", () => {
      settle(false);
      if (!this.closed) {
        this.closed = true;
        options.logger.warn("the lease keeper's worker stopped; leases are renewed on the main thread");
      }
    });
    this.heartbeat = setInterval(() => this.beat(), Math.max(50, Math.floor(options.renewMs / 2)));
    this.heartbeat.unref();
  }

  /** Whether the worker renews leases (false once it stopped: the caller renews them itself). */
  get active(): boolean {
    return !this.closed;
  }

  /**
   * Hands a lease to the worker; `validUntil` is the main thread's performance.now() until which it
   * is proven already (from its acquisition). Returns the slot, or null when the keeper is full or stopped.
   */
  hold(key: string, token: number, validUntil: number): number | null {
    if (this.closed) return null;
    const slot = this.free.pop();
    if (slot === undefined) return null;
    this.proven[1 + slot] = performance.timeOrigin + validUntil;
    this.worker.postMessage({ op: "hold", slot, key, token });
    return slot;
  }

  /**
   * From now on the worker refreshes the instance's membership key with the leases (every renewal,
   * with the lease's TTL), so an instance whose main thread is busy stays a member.
   */
  member(key: string, value: string): void {
    if (!this.closed) this.worker.postMessage({ op: "member", key, value });
  }

  /** The membership is no longer refreshed (shutting down); the leases still are, until close(). */
  leave(): void {
    if (!this.closed) this.worker.postMessage({ op: "leave" });
  }

  /** The main thread's performance.now() until which the lease in `slot` is proven. */
  validUntil(slot: number): number {
    return this.proven[1 + slot]! - performance.timeOrigin;
  }

  drop(slot: number): void {
    this.proven[1 + slot] = 0;
    this.free.push(slot);
    if (!this.closed) this.worker.postMessage({ op: "drop", slot });
  }

  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    if (this.closed) return;
    this.closed = true;
    this.worker.postMessage({ op: "close" });
    await this.worker.terminate().catch(() => undefined);
  }

  private beat() {
    this.proven[0] = performance.timeOrigin + performance.now();
  }
}

function workerEntry(): { url: URL; execArgv: string[] | undefined } {
  const here = import.meta.url;
  // From source (tsx in development, vitest in tests) the worker is TypeScript too and needs the loader.
  if (/\.[cm]?tsx?$/.test(new URL(here).pathname)) return { url: new URL("./lease-worker-boot.mjs", here), execArgv: [] };
  // The built server: scripts/build.mjs writes the worker beside server.js.
  return { url: new URL("./lease-worker.js", here), execArgv: undefined };
}
