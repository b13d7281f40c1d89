import { setImmediate as nextTick } from "node:timers/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { signUp } from "@/test/accounts";
import { startHub } from "@/test/ws";
import { forkBench, nextMessage, stopChild } from "./lib/child";
import { createFlow, deployFlow, injectDebugFlow } from "./lib/flows";
import { fmt } from "./lib/stats";
import type { BenchContext, BenchOutcome } from "./lib/types";

const PRODUCE_MS = 5000;
/** Injects per event-loop turn: the engine drains up to 2,000 deliveries per turn, so this stays bounded. */
const PER_TURN = 200;
const DRAIN_LIMIT_MS = 15_000;

interface Counts {
  type: "count";
  debug: number;
  dropped: number;
  frames: number;
  lastDebugAt: number;
}
const isCounts = (m: unknown): m is Counts => (m as { type?: string })?.type === "count";
const isReady = (m: unknown): m is { type: "ready" } => (m as { type?: string })?.type === "ready";

/**
 * 5. Debug events delivered to one WebSocket client: the real hub on a real port, a client in its
 * own process, an inject → debug flow deployed through REST and triggered through the engine as
 * fast as the runtime takes it for 5 s.
 */
export async function benchDebugEvents(ctx: BenchContext): Promise<BenchOutcome> {
  const B = "5 Debug events to one WebSocket";
  const user = await signUp(ctx.request);
  const flowId = await createFlow(ctx, user.accessToken, injectDebugFlow("debug bench", "dbgbench"));
  await deployFlow(ctx, user.accessToken, flowId);
  const hub = await startHub(ctx.services);
  const client = forkBench("ws-client.ts", [hub.url, user.accessToken]);
  try {
    await nextMessage(client, isReady, 15_000);
    const count = async () => {
      client.send({ type: "count" });
      return nextMessage(client, isCounts);
    };
    const runtime = ctx.services.flowRuntime;

    ctx.log("producing debug events for 5 s");
    const before = await count();
    const started = performance.now();
    let produced = 0;
    while (performance.now() - started < PRODUCE_MS) {
      for (let i = 0; i < PER_TURN; i++) void runtime.inject(flowId, "dbgbench-inject", { payload: produced++ });
      await nextTick();
    }
    const producedMs = performance.now() - started;
    const producedUntil = Date.now();
    const atEnd = await count();

    // Let the backlog reach the client (or be dropped), then one more event so that a pending
    // "dropped" notice is sent (the hub reports drops with the next event that fits).
    let last = atEnd;
    const drainStart = performance.now();
    for (;;) {
      await sleep(300);
      const now = await count();
      if (now.debug === last.debug || performance.now() - drainStart > DRAIN_LIMIT_MS) break;
      last = now;
    }
    void runtime.inject(flowId, "dbgbench-inject", { payload: "flush" });
    produced++;
    await sleep(300);
    const final = await count();

    const seconds = producedMs / 1000;
    const inWindow = atEnd.debug - before.debug;
    const total = final.debug - before.debug;
    const lost = produced - total - final.dropped;
    return {
      rows: [
        {
          benchmark: B,
          measure: "debug events delivered to one client during 5 s of production",
          result: `${fmt.int(inWindow / seconds)} msg/s`,
          nodeRed: "~985 msg/s (50 items per frame every 50 ms; unbounded queue, nothing dropped)",
          notes: `${fmt.int(produced)} produced (${fmt.int(produced / seconds)}/s offered); one frame per event`,
        },
        {
          benchmark: B,
          measure: "debug events delivered in total / dropped (reported by `dropped` frames)",
          result: `${fmt.int(total)} delivered, ${fmt.int(final.dropped)} dropped`,
          notes: `the last backlogged event arrived ${fmt.s(Math.max(0, last.lastDebugAt - producedUntil))} after production stopped${lost !== 0 ? `; ${fmt.int(lost)} neither delivered nor reported as dropped` : ""}`,
        },
      ],
      notes: [
        `Benchmark 5: events flow debug node → runtime controller → ${ctx.services.store.kind} store pub/sub → hub → ws; the client runs in its own process and parses every frame. Triggered with flowRuntime.inject (${PER_TURN} per event-loop turn), not over REST.`,
      ],
    };
  } finally {
    client.send({ type: "exit" });
    await stopChild(client);
    await hub.close();
  }
}
