import pg from "pg";
import { signUp } from "@/test/accounts";
import { forkBench, nextMessage, stopChild } from "./lib/child";
import { call } from "./lib/http";
import { fmt, percentile, summarize, type LatencySummary } from "./lib/stats";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";
import type { RuntimeResult } from "./runtime-child";

const B = "10 Executions";
/** Messages per throughput run, and runs per mode (off and on alternate: off, on, off, on, …). */
const N = 50_000;
const ROUNDS = 5;
const TIME_LIMIT_MS = 60_000;
/** Stored executions for the list's latency: a million on PostgreSQL (the issue's figure); embedded PGlite holds them in memory, so fewer. */
const SEED_POSTGRES = 1_000_000;
const SEED_EMBEDDED = 100_000;
const SEED_BATCH = 20_000;
const FLOWS = 100;
const SEQUENTIAL = 200;

const isResult = (m: unknown): m is RuntimeResult => (m as { type?: string })?.type === "result";

async function chain(record: boolean, scenario: "function-counter" | "function-counter-each" = "function-counter"): Promise<RuntimeResult> {
  const child = forkBench("runtime-child.ts", [scenario, String(N), String(TIME_LIMIT_MS), record ? "record" : "no-record"]);
  try {
    return await nextMessage(child, isResult, TIME_LIMIT_MS + 60_000);
  } finally {
    await stopChild(child);
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

// A million executions of 100 flows, built by the database: one in twenty of each flow's failed, half a second
// apart, the newest first (all younger than the 7 days retention keeps successes), four steps each (inject → function → change → debug) whose inputs carry a
// message of about 250 bytes with per-row text that compresses as poorly as real payloads do.
const SEED_SQL = `
INSERT INTO executions (id, organization_id, flow_id, deployment_id, trigger_node_id, status, started_at, duration_ms,
  replay_of, error, trigger_message, steps, steps_omitted, instance_id, sampled)
SELECT 'exe_bench' || lpad(i::text, 8, '0'), $1, 'flw_exbench' || lpad((i % ${FLOWS})::text, 6, '0'), 'dep_bench', 'inject-1',
  CASE WHEN (i / ${FLOWS}) % 20 = 0 THEN 'error' ELSE 'success' END,
  now() - make_interval(secs => i * 0.5), 3 + i % 40, NULL,
  CASE WHEN (i / ${FLOWS}) % 20 = 0 THEN 'function error: Error: order ' || i || ' has no customer (line 4)' END,
  m.msg,
  jsonb_build_array(
    jsonb_build_object('node_id', 'inject-1', 'input', m.msg, 'input_recorded', true, 'outputs', jsonb_build_array(jsonb_build_object('port', 0, 'count', 1)), 'started_at', now() - make_interval(secs => i * 0.5), 'duration_ms', 0),
    jsonb_build_object('node_id', 'function-1', 'input', m.msg, 'input_recorded', true, 'outputs', CASE WHEN (i / ${FLOWS}) % 20 = 0 THEN '[]'::jsonb ELSE jsonb_build_array(jsonb_build_object('port', 0, 'count', 1)) END, 'started_at', now() - make_interval(secs => i * 0.5), 'duration_ms', 1.234)
      || CASE WHEN (i / ${FLOWS}) % 20 = 0 THEN jsonb_build_object('error', 'function error: Error: order ' || i || ' has no customer (line 4)') ELSE '{}'::jsonb END,
    jsonb_build_object('node_id', 'change-1', 'input', m.msg || jsonb_build_object('total', i * 3), 'input_recorded', true, 'outputs', jsonb_build_array(jsonb_build_object('port', 0, 'count', 1)), 'started_at', now() - make_interval(secs => i * 0.5), 'duration_ms', 0.051),
    jsonb_build_object('node_id', 'debug-1', 'input', m.msg || jsonb_build_object('total', i * 3, 'status', 'ok'), 'input_recorded', true, 'outputs', '[]'::jsonb, 'started_at', now() - make_interval(secs => i * 0.5), 'duration_ms', 0.02)
  ),
  0, 'bench-instance', true
FROM generate_series($2::int, $3::int) i,
LATERAL (SELECT jsonb_build_object('_msgid', md5(i::text), 'topic', 'orders',
  'payload', jsonb_build_object('order_id', i, 'customer', md5((i * 7)::text), 'email', substr(md5((i * 13)::text), 1, 12) || '@example.com',
    'items', jsonb_build_array(jsonb_build_object('sku', substr(md5((i * 17)::text), 1, 8), 'qty', 1 + i % 5), jsonb_build_object('sku', substr(md5((i * 19)::text), 1, 8), 'qty', 2)),
    'amount', (i % 10000) / 100.0)) AS msg) m`;

/**
 * 10. Executions (SPEC §15, issue 25): what recording costs the sandboxed-function chain (the same
 * child process as benchmark 4's function-counter scenario, beside the same database, recording
 * off and on in turn), the list of a flow's failed executions with many stored, and the size of
 * the table per million executions.
 */
export async function benchExecutions(ctx: BenchContext): Promise<BenchOutcome> {
  const rows: Row[] = [];
  const notes: string[] = [];
  const backend = ctx.services.db.kind === "embedded" ? "embedded PGlite" : "PostgreSQL";

  // --- Throughput, recording off and on, alternating.
  const off: RuntimeResult[] = [];
  const on: RuntimeResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    ctx.log(`executions: function chain, N = ${N}, recording off (${round + 1}/${ROUNDS})`);
    off.push(await chain(false));
    ctx.log(`executions: function chain, N = ${N}, recording on (${round + 1}/${ROUNDS})`);
    on.push(await chain(true));
  }
  const incomplete = [...off, ...on].filter((r) => !r.complete).length;
  const rate = (rs: RuntimeResult[]) => median(rs.map((r) => r.msgPerSec));
  const perCpu = (rs: RuntimeResult[]) => median(rs.map((r) => r.n / (r.cpuMs / 1000)));
  const kept = rate(on) / rate(off);
  const keptCpu = perCpu(on) / perCpu(off);
  const recorded = on.map((r) => r.executions!);
  rows.push(
    {
      benchmark: B,
      measure: `sandboxed-function chain (inject → function (generate) → change → switch → function (count)), N = ${fmt.int(N)}, recording off`,
      result: `${fmt.int(rate(off))} msg/s`,
      notes: `median of ${ROUNDS} runs (${off.map((r) => fmt.int(r.msgPerSec)).join(", ")}); ${fmt.int(perCpu(off))} msg per CPU-second; peak RSS ${fmt.mb(median(off.map((r) => r.peakRss)))}`,
    },
    {
      benchmark: B,
      measure: "  … recording on (same run, alternating with off)",
      result: `${fmt.int(rate(on))} msg/s`,
      notes: `median of ${ROUNDS} runs (${on.map((r) => fmt.int(r.msgPerSec)).join(", ")}); ${fmt.int(perCpu(on))} msg per CPU-second; peak RSS ${fmt.mb(median(on.map((r) => r.peakRss)))}; per run ${recorded.map((e) => `${fmt.int(e.stored)} executions stored, ${fmt.int(e.unrecorded)} unrecorded`).join("; ")}`,
    },
    {
      benchmark: B,
      measure: "target (issue 25): recording keeps at least 85 % of the chain's throughput",
      result: kept >= 0.85 ? "met" : keptCpu >= 0.85 ? "met per CPU-second, not in wall time" : "NOT met",
      notes: `${(kept * 100).toFixed(0)} % of the rate (wall time), ${(keptCpu * 100).toFixed(0)} % per CPU-second of the process${incomplete ? `; ${incomplete} run(s) did not finish` : ""}`,
    },
  );
  notes.push(
    `Benchmark 10, throughput: benchmark 4's function-counter chain (N = ${fmt.int(N)}; the generator's batches of 1,000 messages, each sent from one timer with its input's _msgid, are one execution each, so every execution here has 100 steps kept and about 1,900 counted) in a fresh child process, beside a createTestApp on the run's backend (${backend}) in both modes; "on" gives the engine the real tracker and writer (default sampling: every execution up to 100 per second per flow, then one in 100; every error), writing to that database. The modes alternate (${ROUNDS} runs each) and the medians are compared; msg per CPU-second counts the process's own CPU (engine, sandbox workers, writer; the PostgreSQL server's work is not in it), which moves less than wall time on a shared machine.`,
  );

  // --- The list with many stored executions.
  const embedded = ctx.services.db.kind === "embedded";
  const total = embedded ? SEED_EMBEDDED : SEED_POSTGRES;
  const { prisma } = ctx.services.db;
  const user = await signUp(ctx.request);
  await prisma.$executeRawUnsafe(
    `INSERT INTO flows (id, organization_id, name, created_by_id, updated_at)
     SELECT 'flw_exbench' || lpad(f::text, 6, '0'), $1, 'Executions bench ' || f, $2, now() FROM generate_series(0, ${FLOWS - 1}) f`,
    user.organizationId,
    user.userId,
  );
  ctx.log(`executions: seeding ${fmt.int(total)} executions`);
  // On PostgreSQL through a connection of its own: the app's pool cancels statements after 3 s.
  let seedClient: pg.Client | undefined;
  if (!embedded) {
    const current = await prisma.$queryRawUnsafe<Array<{ schema: string }>>("SELECT current_schema() AS schema");
    const schema = current[0]!.schema;
    seedClient = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await seedClient.connect();
    await seedClient.query(`SET search_path TO "${schema.replace(/"/g, "")}"`);
  }
  const seedStarted = performance.now();
  try {
    for (let from = 1; from <= total; from += SEED_BATCH) {
      const args = [user.organizationId, from, Math.min(total, from + SEED_BATCH - 1)];
      if (seedClient) await seedClient.query(SEED_SQL, args);
      else await prisma.$executeRawUnsafe(SEED_SQL, ...args);
      if ((from - 1) % 100_000 === 0) ctx.log(`executions: seeded ${fmt.int(Math.min(total, from + SEED_BATCH - 1))}`);
    }
    if (seedClient) await seedClient.query("ANALYZE executions");
    else await prisma.$executeRawUnsafe("ANALYZE executions");
  } finally {
    await seedClient?.end();
  }
  const seedMs = performance.now() - seedStarted;
  const [size] = await prisma.$queryRawUnsafe<Array<{ n: bigint; total: bigint; heap: bigint; toast: bigint; indexes: bigint; row: number }>>(
    `SELECT (SELECT count(*) FROM executions) AS n, pg_total_relation_size('executions') AS total, pg_relation_size('executions') AS heap,
            coalesce(pg_total_relation_size(NULLIF((SELECT reltoastrelid FROM pg_class WHERE oid = 'executions'::regclass), 0)), 0) AS toast,
            pg_indexes_size('executions') AS indexes,
            (SELECT avg(pg_column_size(e.*))::float8 FROM (SELECT * FROM executions LIMIT 1000) e) AS row`,
  );
  const count = Number(size!.n);
  const perMillion = (bytes: bigint) => (Number(bytes) * 1_000_000) / count;
  rows.push(
    { benchmark: B, measure: `seed: ${fmt.int(count)} executions of ${FLOWS} flows (INSERT … SELECT generate_series)`, result: fmt.s(seedMs), notes: `4 steps each, ${fmt.int(size!.row)} bytes a row on average (pg_column_size, compressed); one in 20 failed` },
    {
      benchmark: B,
      measure: "database size per million executions (pg_total_relation_size('executions'))",
      result: fmt.mb(perMillion(size!.total)),
      notes: `${fmt.mb(Number(size!.total))} for ${fmt.int(count)}: heap ${fmt.mb(perMillion(size!.heap))}, TOAST ${fmt.mb(perMillion(size!.toast))}, indexes ${fmt.mb(perMillion(size!.indexes))} per million${embedded ? " (embedded: measured on 100,000, scaled)" : ""}`,
    },
  );

  const token = user.accessToken;
  const flowIds = Array.from({ length: FLOWS }, (_, f) => `flw_exbench${String(f).padStart(6, "0")}`);
  const timed = async (path: (i: number) => string): Promise<{ s: LatencySummary & { p95: number }; bytes: number }> => {
    const samples: number[] = [];
    let bytes = 0;
    for (let i = 0; i < SEQUENTIAL; i++) {
      const t = performance.now();
      const res = await call(ctx.baseUrl, "GET", path(i), { token });
      samples.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`${path(i)} answered ${res.status}: ${res.text.slice(0, 200)}`);
      bytes = res.text.length;
    }
    return { s: { ...summarize(samples), p95: percentile([...samples].sort((a, b) => a - b), 95) }, bytes };
  };
  const latency = (measure: string, r: { s: LatencySummary & { p95: number }; bytes: number }, extra = ""): Row => ({
    benchmark: B,
    measure,
    result: `p95 ${fmt.ms(r.s.p95)}`,
    notes: `p50 ${fmt.ms(r.s.p50)}, p99 ${fmt.ms(r.s.p99)}; ${SEQUENTIAL} sequential requests over ${FLOWS} flows; ${fmt.kb(r.bytes)} per answer${extra}`,
  });
  const probe = await call(ctx.baseUrl, "GET", `/flows/${flowIds[1]}/executions?status=error&limit=50`, { token });
  const probed = (JSON.parse(probe.text) as { executions?: unknown[] }).executions?.length ?? 0;
  if (probed !== 50) throw new Error(`the error list of a seeded flow answered ${probed} executions, not 50: ${probe.text.slice(0, 200)}`);
  ctx.log("executions: GET /flows/{id}/executions?status=error&limit=50");
  const errors = await timed((i) => `/flows/${flowIds[i % FLOWS]}/executions?status=error&limit=50`);
  rows.push(latency(`GET /flows/{id}/executions?status=error&limit=50, ${fmt.int(count)} stored`, errors));
  rows.push({
    benchmark: B,
    measure: "target (issue 25): that list under 200 ms at p95 with a million stored",
    result: !embedded && errors.s.p95 < 200 ? "met" : embedded ? "(PostgreSQL only)" : "NOT met",
    notes: embedded ? `embedded: ${fmt.int(count)} stored, p95 ${fmt.ms(errors.s.p95)}` : `p95 ${fmt.ms(errors.s.p95)}`,
  });
  ctx.log("executions: GET /flows/{id}/executions?limit=50");
  rows.push(latency("GET /flows/{id}/executions?limit=50 (all statuses)", await timed((i) => `/flows/${flowIds[i % FLOWS]}/executions?limit=50`)));
  const deep = await prisma.$queryRawUnsafe<Array<{ id: string; started_at: Date }>>(
    `SELECT id, started_at FROM executions WHERE flow_id = $1 AND status = 'error' ORDER BY started_at DESC, id DESC OFFSET 400 LIMIT 1`,
    flowIds[0],
  );
  if (deep[0]) {
    const cursor = Buffer.from(JSON.stringify([deep[0].started_at.getTime(), deep[0].id])).toString("base64url");
    rows.push(latency("  … status=error, page 9 (cursor)", await timed(() => `/flows/${flowIds[0]}/executions?status=error&limit=50&cursor=${cursor}`)));
  }
  ctx.log("executions: GET /executions/{id}");
  rows.push(latency("GET /executions/{id} (with its steps)", await timed((i) => `/executions/exe_bench${String(1 + ((i * 4999) % count)).padStart(8, "0")}`)));
  notes.push(
    `Benchmark 10, list: ${fmt.int(count)} executions seeded in SQL into ${FLOWS} flows of one organization (${fmt.int(count / FLOWS)} each, more than the retention keeps by default, one in 20 failed), ANALYZE, then sequential requests over HTTP from the bench process through the small REST server (REST core, no Next), rotating over the flows. The list reads the index (flow_id, status, started_at DESC, id DESC) with a keyset cursor; without a status, (flow_id, started_at DESC, id DESC).`,
  );
  return { rows, notes };
}

/**
 * 10b. Executions, one per message: the chain of benchmark 10 with a generator that sends each
 * message as a new one (an id of its own, from a timer, as a webhook or a device starts them), so
 * the engine begins and ends an execution per message and the tracker's per-execution work (begin,
 * sampling, end, the writer's batches) is what is measured. Off and on alternate in the same run.
 */
export async function benchExecutionsEach(ctx: BenchContext): Promise<BenchOutcome> {
  const backend = ctx.services.db.kind === "embedded" ? "embedded PGlite" : "PostgreSQL";
  const off: RuntimeResult[] = [];
  const on: RuntimeResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    ctx.log(`executions-each: one execution per message, N = ${N}, recording off (${round + 1}/${ROUNDS})`);
    off.push(await chain(false, "function-counter-each"));
    ctx.log(`executions-each: one execution per message, N = ${N}, recording on (${round + 1}/${ROUNDS})`);
    on.push(await chain(true, "function-counter-each"));
  }
  const incomplete = [...off, ...on].filter((r) => !r.complete).length;
  const rate = (rs: RuntimeResult[]) => median(rs.map((r) => r.msgPerSec));
  const perCpu = (rs: RuntimeResult[]) => median(rs.map((r) => r.n / (r.cpuMs / 1000)));
  const kept = rate(on) / rate(off);
  const keptCpu = perCpu(on) / perCpu(off);
  const recorded = on.map((r) => r.executions!);
  const sum = (f: (e: NonNullable<RuntimeResult["executions"]>) => number) => recorded.reduce((a, e) => a + f(e), 0);
  const B10 = "10b Executions, one per message";
  const rows: Row[] = [
    {
      benchmark: B10,
      measure: `chain (inject → generator (a new message each, from a timer) → change → switch → function (count)), N = ${fmt.int(N)}, one execution per message, recording off`,
      result: `${fmt.int(rate(off))} msg/s`,
      notes: `median of ${ROUNDS} runs (${off.map((r) => fmt.int(r.msgPerSec)).join(", ")}); ${fmt.int(perCpu(off))} msg per CPU-second; peak RSS ${fmt.mb(median(off.map((r) => r.peakRss)))}`,
    },
    {
      benchmark: B10,
      measure: "  … recording on (same run, alternating with off)",
      result: `${fmt.int(rate(on))} msg/s`,
      notes: `median of ${ROUNDS} runs (${on.map((r) => fmt.int(r.msgPerSec)).join(", ")}); ${fmt.int(perCpu(on))} msg per CPU-second; peak RSS ${fmt.mb(median(on.map((r) => r.peakRss)))}; per run (stored / unrecorded): ${recorded.map((e) => `${fmt.int(e.stored)} / ${fmt.int(e.unrecorded)}`).join(", ")}; ${fmt.int(sum((e) => e.stored + e.unrecorded))} executions in all, ${fmt.int(sum((e) => e.errors))} errors`,
    },
    {
      benchmark: B10,
      measure: "target (issue 25): recording keeps at least 85 % of the chain's throughput, one execution per message",
      result: kept >= 0.85 ? "met" : keptCpu >= 0.85 ? "met per CPU-second, not in wall time" : "NOT met",
      notes: `${(kept * 100).toFixed(0)} % of the rate (wall time), ${(keptCpu * 100).toFixed(0)} % per CPU-second of the process${incomplete ? `; ${incomplete} run(s) did not finish` : ""}`,
    },
  ];
  const notes = [
    `Benchmark 10b (\`npm run bench -- executions-each\`): benchmark 10's chain and child process (N = ${fmt.int(N)}, ${backend} beside it in both modes, default sampling: every execution up to 100 per second per flow, then one in 100; every error), except the generator: a native node that sends the N messages in batches of 1,000 from a timer (waiting while the flow is over its high-water mark, as the sandbox's timers do), each a new message with an id of its own (ctx.send outside an input, as a webhook or a device node starts one), so every message is an execution of 4 steps (generator, change, switch, function) that begins, is sampled and ends on its own; at these rates most are counted as unrecorded, not stored. A sandboxed generator cannot do this: the function node gives every message it sends its input's _msgid (as Node-RED's), which continues one execution per batch (benchmark 10). The modes alternate (${ROUNDS} runs each) and the medians are compared; msg per CPU-second counts the child process's own CPU.`,
  ];
  return { rows, notes };
}
