import type { AppServices } from "@/server/app-services";
import { validateGraph } from "@/server/services/flows/validate-graph";
import type { Connection, FlowNode } from "@/shared/flow-graph";
import { signUp } from "@/test/accounts";
import { call } from "./lib/http";
import { fmt, summarize, timeSequential, type LatencySummary } from "./lib/stats";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";

const FLOWS = 10_000;
const NODES_PER_FLOW = 50;
const FLOW_BATCH = 1000;
/** Index rows: calibrate on this many flows, then keep the whole seed of flow_nodes under the budget. */
const CALIBRATION_FLOWS = 500;
const INDEX_BUDGET_MS = 60_000;
const SEQUENTIAL = 200;
const FULL_LIST_REQUESTS = 5;

const flowId = (f: number) => `flw_bench${String(f).padStart(6, "0")}`;

/** A small deterministic PRNG, so both backends touch the same flows. */
function mulberry32(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The node configs, filled with their schema's defaults, as the API would store them. */
function templates(app: AppServices): [string, string, string] {
  const parse = (type: string, config: Record<string, unknown>) => JSON.stringify(app.nodes.get(type)!.configSchema.parse(config));
  return [
    parse("inject", { payload_type: "string", payload: "tick" }),
    parse("change", { rules: [{ t: "set", p: "payload", to: "done", to_type: "str" }] }),
    parse("debug", {}),
  ];
}

// Flow f: nodes n<f>-0 … n<f>-49, types inject, change, debug repeating; wires inject → change → debug
// within each triple. Built inside the database so 10,000 × 50 nodes never cross the driver.
const INSERT_FLOWS = `
WITH t(k, type, config) AS (VALUES (0, 'inject', $1::jsonb), (1, 'change', $2::jsonb), (2, 'debug', $3::jsonb))
INSERT INTO flows (id, organization_id, name, description, enabled, revision, nodes, connections, node_count, created_by_id, created_at, updated_at)
SELECT 'flw_bench' || lpad(f::text, 6, '0'), $4, 'Scale flow ' || f, '', true, 1,
  (SELECT jsonb_agg(jsonb_build_object('id', 'n' || f || '-' || i, 'type', t.type, 'name', '',
          'position', jsonb_build_object('x', (i % 3) * 200, 'y', (i / 3) * 80), 'config', t.config, 'disabled', false) ORDER BY i)
     FROM generate_series(0, $5::int - 1) i JOIN t ON t.k = i % 3),
  (SELECT coalesce(jsonb_agg(jsonb_build_object('source', 'n' || f || '-' || i, 'source_port', 0, 'target', 'n' || f || '-' || (i + 1)) ORDER BY i), '[]'::jsonb)
     FROM generate_series(0, $5::int - 2) i WHERE i % 3 <> 2),
  $5::int, $6, now() - make_interval(secs => $7::int - f), now() - make_interval(secs => $7::int - f)
FROM generate_series($8::int, $9::int) f`;

const INSERT_INDEX = `
INSERT INTO flow_nodes (organization_id, node_id, flow_id, type)
SELECT $1, 'n' || f || '-' || i, 'flw_bench' || lpad(f::text, 6, '0'), (ARRAY['inject', 'change', 'debug'])[i % 3 + 1]
FROM generate_series($2::int, $3::int) f, generate_series(0, $4::int - 1) i`;

/**
 * 3. Flows at scale: 10,000 flows of 50 nodes in one organization, then sequential latency of the
 * list (first page), one flow, and a rename with revision.
 */
export async function benchFlowsAtScale(ctx: BenchContext): Promise<BenchOutcome> {
  const B = "3 Flows at scale";
  const rows: Row[] = [];
  const notes: string[] = [];
  const { prisma } = ctx.services.db;
  const embedded = ctx.services.db.kind === "embedded";
  const user = await signUp(ctx.request);
  const org = user.organizationId;
  const [inject, change, debug] = templates(ctx.services);

  ctx.log(`seeding ${FLOWS} flows × ${NODES_PER_FLOW} nodes`);
  const flowsStarted = performance.now();
  for (let from = 1; from <= FLOWS; from += FLOW_BATCH) {
    const to = Math.min(FLOWS, from + FLOW_BATCH - 1);
    await prisma.$executeRawUnsafe(INSERT_FLOWS, inject, change, debug, org, NODES_PER_FLOW, user.userId, FLOWS, from, to);
  }
  const flowsMs = performance.now() - flowsStarted;

  ctx.log("seeding flow_nodes");
  const indexStarted = performance.now();
  await prisma.$executeRawUnsafe(INSERT_INDEX, org, 1, CALIBRATION_FLOWS, NODES_PER_FLOW);
  const calibrationMs = performance.now() - indexStarted;
  const projectedMs = (calibrationMs * FLOWS) / CALIBRATION_FLOWS;
  let indexedPerFlow = NODES_PER_FLOW;
  if (embedded && projectedMs > INDEX_BUDGET_MS) {
    indexedPerFlow = Math.max(1, Math.floor((NODES_PER_FLOW * INDEX_BUDGET_MS) / projectedMs));
    await prisma.$executeRawUnsafe(`DELETE FROM flow_nodes WHERE organization_id = $1`, org);
    await prisma.$executeRawUnsafe(INSERT_INDEX, org, 1, CALIBRATION_FLOWS, indexedPerFlow);
    notes.push(
      `Embedded seed of flow_nodes: ${CALIBRATION_FLOWS} flows × ${NODES_PER_FLOW} index rows took ${fmt.s(calibrationMs)}, projecting ${fmt.s(projectedMs)} for all ${FLOWS}; so flow_nodes holds only the first ${indexedPerFlow} nodes of each flow (n<f>-0 … n<f>-${indexedPerFlow - 1}), ${fmt.int(FLOWS * indexedPerFlow)} rows. The flows' nodes JSON still has all ${NODES_PER_FLOW} nodes.`,
    );
  }
  for (let from = CALIBRATION_FLOWS + 1; from <= FLOWS; from += FLOW_BATCH) {
    await prisma.$executeRawUnsafe(INSERT_INDEX, org, from, Math.min(FLOWS, from + FLOW_BATCH - 1), indexedPerFlow);
  }
  const indexMs = performance.now() - indexStarted;
  // Seeded behind the services' back: every instance reads this organization's flows again.
  await ctx.services.flowReads.changed(org);
  const [counts] = await prisma.$queryRawUnsafe<Array<{ flows: bigint; flow_nodes: bigint; nodes_bytes: number; table_bytes: bigint; index_bytes: bigint }>>(
    `SELECT (SELECT count(*) FROM flows WHERE organization_id = $1) AS flows,
            (SELECT count(*) FROM flow_nodes WHERE organization_id = $1) AS flow_nodes,
            (SELECT avg(length(nodes::text))::float8 FROM flows WHERE id = 'flw_bench000001') AS nodes_bytes,
            pg_total_relation_size('flows') AS table_bytes,
            pg_total_relation_size('flow_nodes') AS index_bytes`,
    org,
  );
  rows.push({
    benchmark: B,
    measure: "seed: flows (nodes JSON built in SQL)",
    result: fmt.s(flowsMs),
    notes: `${fmt.int(Number(counts!.flows))} flows × ${NODES_PER_FLOW} nodes, ${fmt.kb(counts!.nodes_bytes)} of nodes JSON each; flows table ${fmt.mb(Number(counts!.table_bytes))}`,
  });
  rows.push({
    benchmark: B,
    measure: "seed: flow_nodes index rows",
    result: fmt.s(indexMs),
    notes: `${fmt.int(Number(counts!.flow_nodes))} rows (${indexedPerFlow} per flow); ${fmt.mb(Number(counts!.index_bytes))}`,
  });

  // The seeded graph is what the API would have stored.
  const sample = await prisma.flow.findUniqueOrThrow({ where: { id: flowId(1) } });
  validateGraph(ctx.services.nodes, { nodes: sample.nodes as unknown as FlowNode[], connections: sample.connections as unknown as Connection[] });

  const token = user.accessToken;
  const random = mulberry32(42);
  const picks = new Set<number>();
  while (picks.size < SEQUENTIAL) picks.add(1 + Math.floor(random() * FLOWS));
  const ids = [...picks].map(flowId);
  const row = (measure: string, s: LatencySummary, extra = ""): Row => ({
    benchmark: B,
    measure,
    result: `p50 ${fmt.ms(s.p50)}, p99 ${fmt.ms(s.p99)}`,
    notes: `${s.count} sequential requests${extra}`,
  });

  ctx.log("GET /flows?limit=50");
  let firstPageBytes = 0;
  const firstPage = await timeSequential(SEQUENTIAL, async () => {
    firstPageBytes = (await call(ctx.baseUrl, "GET", "/flows?limit=50", { token })).text.length;
  });
  rows.push(row("GET /flows?limit=50 (first page)", firstPage, `; ${fmt.kb(firstPageBytes)}`));

  ctx.log("GET /flows?limit=50&cursor=… (middle)");
  const middle = await prisma.flow.findUniqueOrThrow({ where: { id: flowId(FLOWS / 2) }, select: { createdAt: true, id: true } });
  const cursor = Buffer.from(JSON.stringify([middle.createdAt.getTime(), middle.id])).toString("base64url");
  const middlePage = await timeSequential(SEQUENTIAL, async () => {
    await call(ctx.baseUrl, "GET", `/flows?limit=50&cursor=${cursor}`, { token });
  });
  rows.push(row("GET /flows?limit=50&cursor=… (page 101 of 200)", middlePage));

  ctx.log("GET /flows/{id}");
  let flowBytes = 0;
  const getOne = await timeSequential(SEQUENTIAL, async (i) => {
    flowBytes = (await call(ctx.baseUrl, "GET", `/flows/${ids[i]}`, { token })).text.length;
  });
  rows.push(row("GET /flows/{id} (random flows)", getOne, `; ${fmt.kb(flowBytes)} each`));

  ctx.log("PUT /flows/{id}");
  const put = await timeSequential(SEQUENTIAL, async (i) => {
    await call(ctx.baseUrl, "PUT", `/flows/${ids[i]}`, { token, body: { name: `Renamed ${i}`, revision: 1 } });
  });
  rows.push(row("PUT /flows/{id} (rename with revision, random flows)", put));

  // PGlite runs no autovacuum, so nothing ever analyzes its tables; on PostgreSQL autovacuum may or
  // may not have got to them yet. Measure the list again with fresh statistics.
  ctx.log("ANALYZE, then the list pages again");
  await prisma.$executeRawUnsafe("ANALYZE flows, flow_nodes");
  const firstAnalyzed = await timeSequential(SEQUENTIAL, async () => {
    await call(ctx.baseUrl, "GET", "/flows?limit=50", { token });
  });
  const middleAnalyzed = await timeSequential(SEQUENTIAL, async () => {
    await call(ctx.baseUrl, "GET", `/flows?limit=50&cursor=${cursor}`, { token });
  });
  // Shown next to the same requests before ANALYZE.
  const firstRow = rows.findIndex((r) => r.measure.startsWith("GET /flows?limit=50 (first page)"));
  rows.splice(firstRow + 1, 0, row("  … the same after ANALYZE flows, flow_nodes", firstAnalyzed));
  const middleRow = rows.findIndex((r) => r.measure.startsWith("GET /flows?limit=50&cursor="));
  rows.splice(middleRow + 1, 0, row("  … the same after ANALYZE flows, flow_nodes", middleAnalyzed));

  ctx.log("GET /flows without limit");
  let allBytes = 0;
  const samples: number[] = [];
  for (let i = 0; i < FULL_LIST_REQUESTS; i++) {
    const started = performance.now();
    allBytes = (await call(ctx.baseUrl, "GET", "/flows", { token })).text.length;
    samples.push(performance.now() - started);
  }
  const all = summarize(samples);
  rows.push({
    benchmark: B,
    measure: "GET /flows without limit (returns all 10,000)",
    result: `p50 ${fmt.ms(all.p50)}, max ${fmt.ms(all.max)}`,
    notes: `${all.count} sequential requests; ${fmt.mb(allBytes)} per response`,
  });
  notes.push(
    `Benchmark 3: ${FLOWS} flows seeded with raw SQL (the nodes JSON and connections built by the database from node configs parsed by their schemas; flow 1 re-validated with validateGraph), created_at one second apart; requests sequential over HTTP from the bench process (fetch, keep-alive); PUTs go to ${SEQUENTIAL} distinct random flows at revision 1. All rows but the two "after ANALYZE" ones ran on the tables as seeded: without planner statistics, unless PostgreSQL's autovacuum had analyzed them meanwhile (PGlite has no autovacuum).`,
  );
  return { rows, notes };
}
