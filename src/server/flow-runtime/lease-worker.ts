/**
 * The lease keeper's worker thread (lease-keeper.ts): renews this instance's flow leases on a
 * Redis connection and an event loop of its own, so a main thread busy with a flooded flow cannot
 * delay a renewal past the lease's TTL (which stopped that flow mid-delivery and moved it).
 *
 * Shared memory with the main thread (Float64Array, absolute epoch milliseconds):
 * - [0]: the main thread's last heartbeat. Renewals stop when it is older than `stallMs`: a main
 *   thread that stopped turning gives its flows up to the others, as a dead process would.
 * - [1 + slot]: until when the lease in that slot is proven (when its last successful renewal
 *   was sent, plus the TTL); 0 for a free slot.
 * Messages: in `{op: "hold", slot, key, token}`, `{op: "drop", slot}`, `{op: "member", key, value}`
 * (the instance's membership key, refreshed with the leases from then on), `{op: "close"}`; out
 * `{op: "lost", slot, token}` (the lease is someone else's now: the main thread stops the flow) and
 * `{op: "ready"}` once its Redis connection is up.
 */
import { parentPort, workerData } from "node:worker_threads";
import { Redis } from "ioredis";
import { LEASE_RENEW_SCRIPT } from "../store/redis";

interface Data {
  url: string;
  keyPrefix: string;
  ttlMs: number;
  renewMs: number;
  stallMs: number;
  shared: SharedArrayBuffer;
}

type In = { op: "hold"; slot: number; key: string; token: number } | { op: "drop"; slot: number } | { op: "member"; key: string; value: string } | { op: "leave" } | { op: "close" };

const data = workerData as Data;
const port = parentPort!;
const proven = new Float64Array(data.shared);
const held = new Map<number, { key: string; token: number }>();
let member: { key: string; value: string } | null = null;
const now = () => performance.timeOrigin + performance.now();

const redis = new Redis(data.url, {
  // A command issued while disconnected fails at once: the next round tries again.
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 2_000,
  lazyConnect: false,
});
redis.on("error", () => undefined);
redis.once("ready", () => port.postMessage({ op: "ready" }));
redis.defineCommand("fpLeaseRenew", { lua: LEASE_RENEW_SCRIPT, numberOfKeys: 1 });

let running = false;
async function round() {
  if (running || (held.size === 0 && !member)) return;
  // The main thread stopped turning: leave its leases to expire.
  if (now() - proven[0]! > data.stallMs) return;
  running = true;
  try {
    const entries = [...held.entries()];
    const sentAt = now();
    const pipeline = redis.pipeline();
    for (const [, { key, token }] of entries) (pipeline as unknown as { fpLeaseRenew(k: string, t: string, ms: number): void }).fpLeaseRenew(data.keyPrefix + key, String(token), data.ttlMs);
    if (member) pipeline.set(data.keyPrefix + member.key, member.value, "PX", data.ttlMs);
    const results = (await pipeline.exec()) ?? [];
    entries.forEach(([slot, lease], i) => {
      if (held.get(slot) !== lease) return;
      const [err, renewed] = results[i] ?? [new Error("no reply"), null];
      if (err) return;
      if (renewed === 1) proven[1 + slot] = Math.max(proven[1 + slot]!, sentAt + data.ttlMs);
      else {
        held.delete(slot);
        proven[1 + slot] = 0;
        port.postMessage({ op: "lost", slot, token: lease.token });
      }
    });
  } catch {
    // Redis did not answer: the leases stay proven until their time runs out; the next round tries again.
  } finally {
    running = false;
  }
}

const timer = setInterval(() => void round(), data.renewMs);

port.on("message", (message: In) => {
  if (message.op === "member") member = { key: message.key, value: message.value };
  else if (message.op === "leave") member = null;
  else if (message.op === "hold") held.set(message.slot, { key: message.key, token: message.token });
  else if (message.op === "drop") {
    held.delete(message.slot);
    proven[1 + message.slot] = 0;
  } else if (message.op === "close") {
    clearInterval(timer);
    held.clear();
    member = null;
    redis.disconnect();
    port.close();
  }
});
