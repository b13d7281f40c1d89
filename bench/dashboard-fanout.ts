import type { ChildProcess } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { signUp } from "@/test/accounts";
import { sessionCookie, startDashboardSockets } from "@/test/dashboard";
import { forkBench, nextMessage, stopChild } from "./lib/child";
import { fmt } from "./lib/stats";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";

const CLIENT_PROCESSES = 2;
const VIEWERS_PER_PROCESS = 100;
const RATES = [10, 50];
const PRODUCE_MS = 5000;
const TICK_MS = 10;
/** SPEC §21: 200 viewers of one page each get an update within 250 ms p95. */
const TARGET_P95_MS = 250;

interface Report {
  type: "report";
  updates: number;
  closed: number;
  latencies: number[];
}
const typed =
  <T>(type: string) =>
  (m: unknown): m is T =>
    (m as { type?: string })?.type === type;
const ask = <T>(clients: ChildProcess[], type: string, accept: (m: unknown) => m is T) =>
  Promise.all(
    clients.map((c) => {
      const answer = nextMessage(c, accept, 30_000);
      c.send({ type });
      return answer;
    }),
  );
const now = () => performance.timeOrigin + performance.now();
const percentile = (sorted: number[], p: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!);

/**
 * 12. Dashboard fan-out: 200 viewers of one page (2 processes × 100 dashboard sockets, one member's
 * session cookie) on the real dashboard socket; an inject → ui-text flow deployed through REST and
 * triggered through the flow runtime at a fixed rate; each viewer measures receipt − inject time
 * of every `dashboard.update`.
 */
export async function benchDashboardFanout(ctx: BenchContext): Promise<BenchOutcome> {
  const B = "14 Dashboard fan-out: 200 viewers of one page";
  const viewers = CLIENT_PROCESSES * VIEWERS_PER_PROCESS;
  const user = await signUp(ctx.request);
  const token = user.accessToken;
  const post = async (body: Record<string, unknown>) => (await ctx.request("POST", "/config-nodes", { token, body })).body.config_node.id as string;
  const base = await post({ type: "ui-base", name: "Bench", config: {} });
  const page = await post({ type: "ui-page", name: "Fan-out", config: { ui: base, path: "/fanout" } });
  const group = await post({ type: "ui-group", name: "Values", config: { page } });
  const created = await ctx.request("POST", "/flows", {
    token,
    body: {
      name: "dashboard fan-out bench",
      nodes: [
        { id: "dfan-inject", type: "inject", config: {} },
        { id: "dfan-text", type: "ui-text", config: { group, label: "Value" } },
      ],
      connections: [{ source: "dfan-inject", target: "dfan-text" }],
    },
  });
  const flowId = created.body.flow.id as string;
  await ctx.request("POST", `/flows/${flowId}/deploy`, { token });
  const slug = (await ctx.request("GET", "/auth/profile", { token })).body.organization.slug as string;
  const dash = await startDashboardSockets(ctx.services);
  const cookie = (await sessionCookie(ctx.services, user)).cookie!;
  const url = dash.url(slug, "/fanout");
  const clients = Array.from({ length: CLIENT_PROCESSES }, () => forkBench("dashboard-fanout-client.ts", [url, cookie, String(VIEWERS_PER_PROCESS), "dfan-text"]));
  const runtime = ctx.services.flowRuntime;
  const rows: Row[] = [];
  try {
    await Promise.all(clients.map((c) => nextMessage(c, typed<{ type: "ready" }>("ready"), 60_000)));
    ctx.log(`dashboard fan-out: ${viewers} viewers have their page`);
    for (const rate of RATES) {
      await ask(clients, "reset", typed<{ type: "reset" }>("reset"));
      ctx.log(`dashboard fan-out: ${rate} updates/s for ${PRODUCE_MS / 1000} s to ${viewers} viewers`);
      const started = performance.now();
      let produced = 0;
      await new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          const elapsed = performance.now() - started;
          const due = Math.min(rate * (PRODUCE_MS / 1000), Math.floor((elapsed * rate) / 1000));
          while (produced < due) void runtime.inject(flowId, "dfan-inject", { payload: { t: now(), seq: produced++ } });
          if (elapsed >= PRODUCE_MS) {
            clearInterval(timer);
            resolve();
          }
        }, TICK_MS);
      });
      await sleep(1500);
      const reports = await ask(clients, "report", typed<Report>("report"));
      const delivered = reports.reduce((s, r) => s + r.updates, 0);
      const closed = reports.reduce((s, r) => s + r.closed, 0);
      const sorted = reports.flatMap((r) => r.latencies).sort((a, b) => a - b);
      const p50 = percentile(sorted, 50);
      const p95 = percentile(sorted, 95);
      const p99 = percentile(sorted, 99);
      const expected = produced * viewers;
      rows.push({
        benchmark: B,
        measure: `${rate} updates/s for ${PRODUCE_MS / 1000} s: inject → viewer receipt (p50 / p95 / p99 / max)`,
        result: `${fmt.ms(p50)} / ${fmt.ms(p95)} / ${fmt.ms(p99)} / ${fmt.ms(sorted.at(-1) ?? Number.NaN)}`,
        nodeRed: "Dashboard 2.0: not measured (socket.io, one process)",
        notes: `target p95 < ${TARGET_P95_MS} ms: ${p95 < TARGET_P95_MS ? "met" : "NOT met"}; ${fmt.int(produced)} updates × ${viewers} viewers = ${fmt.int(expected)} expected, ${fmt.int(delivered)} received${closed > 0 ? `; ${closed} sockets closed` : ""}`,
      });
    }
    return {
      rows,
      notes: [
        `Benchmark 14: ${viewers} dashboard viewers (${CLIENT_PROCESSES} child processes × ${VIEWERS_PER_PROCESS} sockets at /ws/dashboard/{org}?path=/fanout, one member's session cookie) on the real dashboard socket; an inject → ui-text flow deployed through REST, triggered with flowRuntime.inject at a fixed rate (a ${TICK_MS} ms timer), ${PRODUCE_MS / 1000} s per rate. Each update goes through the widget's behaviour, the dashboard bus (the store's pub/sub: in-process or Redis), the write-behind of its state and the socket's fan-out (one JSON text per update for every viewer). The payload carries the inject time; each viewer parses every frame and records receipt − inject time (same machine, same clock). The bench process, the app and both viewer processes share the machine's cores.`,
      ],
    };
  } finally {
    for (const c of clients) if (c.connected) c.send({ type: "exit" });
    await Promise.all(clients.map((c) => stopChild(c)));
    await dash.close();
  }
}
