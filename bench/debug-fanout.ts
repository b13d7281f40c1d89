import type { ChildProcess } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { signUp } from "@/test/accounts";
import { startHub } from "@/test/ws";
import { forkBench, nextMessage, stopChild } from "./lib/child";
import { createFlow, deployFlow, injectDebugFlow } from "./lib/flows";
import { fmt, summarize } from "./lib/stats";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";

const CLIENT_PROCESSES = 2;
const CONNECTIONS_PER_PROCESS = 50;
const RATES = [200, 1000];
const PRODUCE_MS = 5000;
const TICK_MS = 10;
const DRAIN_LIMIT_MS = 20_000;

interface Counts {
  type: "count";
  debug: number;
  dropped: number;
  lastDebugAt: number;
  closed: number;
}
interface Report extends Omit<Counts, "type"> {
  type: "report";
  latencies: number[];
}
const typed =
  <T>(type: string) =>
  (m: unknown): m is T =>
    (m as { type?: string })?.type === type;
const isReady = typed<{ type: "ready" }>("ready");
const isReset = typed<{ type: "reset" }>("reset");
const isCount = typed<Counts>("count");
const isReport = typed<Report>("report");

const ask = <T>(clients: ChildProcess[], type: string, accept: (m: unknown) => m is T) =>
  Promise.all(
    clients.map((c) => {
      const answer = nextMessage(c, accept, 30_000);
      c.send({ type });
      return answer;
    }),
  );
const now = () => performance.timeOrigin + performance.now();

/**
 * 5b. Debug events fanned out to 100 WebSocket clients (2 processes × 50 connections, one user):
 * the real hub on a real port, an inject → debug flow deployed through REST and triggered through
 * the engine at a fixed offered rate; each client measures receive time − inject time.
 */
export async function benchDebugFanout(ctx: BenchContext): Promise<BenchOutcome> {
  const B = "5b Debug events to 100 WebSocket clients";
  const clientsTotal = CLIENT_PROCESSES * CONNECTIONS_PER_PROCESS;
  const user = await signUp(ctx.request);
  const flowId = await createFlow(ctx, user.accessToken, injectDebugFlow("debug fan-out bench", "dbgfan"));
  await deployFlow(ctx, user.accessToken, flowId);
  const hub = await startHub(ctx.services);
  const clients = Array.from({ length: CLIENT_PROCESSES }, () => forkBench("ws-fanout-client.ts", [hub.url, user.accessToken, String(CONNECTIONS_PER_PROCESS)]));
  const runtime = ctx.services.flowRuntime;
  const rows: Row[] = [];
  try {
    await Promise.all(clients.map((c) => nextMessage(c, isReady, 30_000)));
    ctx.log(`debug fan-out: ${clientsTotal} clients connected and subscribed`);
    for (const rate of RATES) {
      await ask(clients, "reset", isReset);
      ctx.log(`debug fan-out: ${rate} injects/s for ${PRODUCE_MS / 1000} s to ${clientsTotal} clients`);
      const started = performance.now();
      const startedAt = now();
      let produced = 0;
      await new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          const elapsed = performance.now() - started;
          const due = Math.min(rate * (PRODUCE_MS / 1000), Math.floor((elapsed * rate) / 1000));
          while (produced < due) void runtime.inject(flowId, "dbgfan-inject", { payload: { t: now(), seq: produced++ } });
          if (elapsed >= PRODUCE_MS) {
            clearInterval(timer);
            resolve();
          }
        }, TICK_MS);
      });
      const producedMs = performance.now() - started;
      const inWindow = (await ask(clients, "count", isCount)).reduce((s, c) => s + c.debug, 0);

      // Let the backlog arrive (or be dropped), then one flush event so that pending "dropped"
      // notices are sent (the hub reports drops with the next event that fits); clients skip it.
      let last = inWindow;
      const drainStart = performance.now();
      for (;;) {
        await sleep(300);
        const total = (await ask(clients, "count", isCount)).reduce((s, c) => s + c.debug, 0);
        if (total === last || performance.now() - drainStart > DRAIN_LIMIT_MS) break;
        last = total;
      }
      void runtime.inject(flowId, "dbgfan-inject", { payload: { flush: true } });
      await sleep(500);
      const reports = await ask(clients, "report", isReport);
      const delivered = reports.reduce((s, r) => s + r.debug, 0);
      const dropped = reports.reduce((s, r) => s + r.dropped, 0);
      const closed = reports.reduce((s, r) => s + r.closed, 0);
      const lastAt = Math.max(...reports.map((r) => r.lastDebugAt));
      const latency = summarize(reports.flatMap((r) => r.latencies));
      const expected = produced * clientsTotal;
      const lost = expected - delivered - dropped;
      const seconds = producedMs / 1000;
      const spanSeconds = Math.max(producedMs, lastAt - startedAt) / 1000;
      rows.push(
        {
          benchmark: B,
          measure: `${rate} injects/s offered for ${PRODUCE_MS / 1000} s: debug events delivered, sum over ${clientsTotal} clients`,
          result: `${fmt.int(inWindow / seconds)} events/s`,
          nodeRed: "~985 msg/s to one client (comms: 50 items per frame every 50 ms per connection; unbounded queue)",
          notes: `${fmt.int(produced)} injected (${fmt.int(produced / seconds)}/s) × ${clientsTotal} clients = ${fmt.int(expected)} expected; ${fmt.int(delivered)} delivered in all (${fmt.int(delivered / spanSeconds)}/s over ${fmt.s(spanSeconds * 1000)} to the last receipt), ${fmt.int(dropped)} dropped${lost !== 0 ? `, ${fmt.int(lost)} neither delivered nor reported dropped` : ""}${closed > 0 ? `; ${closed} sockets closed` : ""}`,
        },
        {
          benchmark: B,
          measure: `${rate} injects/s: latency inject → receipt (p50 / p99 / max)`,
          result: `${fmt.ms(latency.p50)} / ${fmt.ms(latency.p99)} / ${fmt.ms(latency.max)}`,
          nodeRed: "not in ANCHORS.md (its comms send one frame per 50 ms per connection)",
          notes: `${fmt.int(latency.count)} samples; dropped: ${fmt.int(dropped)} (${((dropped / Math.max(1, expected)) * 100).toFixed(1)} % of expected)`,
        },
      );
    }
    return {
      rows,
      notes: [
        `Benchmark 5b: ${clientsTotal} WebSocket clients (${CLIENT_PROCESSES} child processes × ${CONNECTIONS_PER_PROCESS} connections, all the same user) subscribed to \`debug\` on the real hub; an inject → debug flow deployed through REST and triggered with flowRuntime.inject at a fixed offered rate (a ${TICK_MS} ms timer injecting what is due), ${PRODUCE_MS / 1000} s per rate. The payload carries the inject time (performance.timeOrigin + performance.now(), ms since the epoch); each client parses every frame and records receive time − payload time (same machine, same clock). Delivered/s counts what arrived during the ${PRODUCE_MS / 1000} s of production; drops are the hub's \`{"type":"dropped"}\` notices (a client's send buffer above 1 MB). Everything — bench process, hub and both client processes — shares the 2 cores. Node-RED's figure is ANCHORS.md's (~985 debug msgs/s to one comms client), not measured side by side.`,
      ],
    };
  } finally {
    for (const c of clients) if (c.connected) c.send({ type: "exit" });
    await Promise.all(clients.map((c) => stopChild(c)));
    await hub.close();
  }
}
