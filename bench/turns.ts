/**
 * 4d. Function turns (`npm run bench -- turns`): what running a function node in the flow's turn
 * costs (NodeRoles.inTurn: code that names the flow or global context), with messages in flight, beside
 * Node-RED 5.0 running the same flow. A closed loop keeps C messages in the flow: change → function
 * → change → sink ("chain"), and the same with the first change also wired to the sink ("branch",
 * where each message's other branch waits for the function's turn). The function's code names the
 * flow context ("context": it runs in turn) or not ("plain": beside the flow). Each row in a fresh
 * child process (bench/turns-child.ts), ours then Node-RED's. It runs only when named and writes
 * nothing (its figures are quoted in docs/BENCHMARKS.md, "Findings").
 */
import { forkBench, nextMessage, stopChild } from "./lib/child";
import { fmt } from "./lib/stats";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";
import { ensureNodeRed } from "./node-red";
import type { TurnsResult } from "./turns-child";

const B = "4d Function turns";
const isResult = (m: unknown): m is TurnsResult => (m as { type?: string })?.type === "turns";

async function measure(args: string[]): Promise<number> {
  const child = forkBench("turns-child.ts", args);
  try {
    return (await nextMessage(child, isResult, 60_000)).perSec;
  } finally {
    await stopChild(child);
  }
}

export async function benchTurns(ctx: BenchContext): Promise<BenchOutcome> {
  const rows: Row[] = [];
  const notes: string[] = [];
  const availability = await ensureNodeRed(ctx.log);
  if (!availability.ok) notes.push(`Benchmark 4d: Node-RED not measured: ${availability.reason}`);
  for (const shape of ["chain", "branch"] as const) {
    for (const code of ["plain", "context"] as const) {
      for (const inFlight of [1, 10]) {
        const label = `${shape === "chain" ? "change → function → change → sink" : "the same, the first change also wired to the sink"}, function ${code === "context" ? "naming flow context (in turn)" : "naming no context"}, ${inFlight} in flight`;
        ctx.log(`turns: ${label}`);
        const ours = await measure(["ours", shape, code, String(inFlight)]);
        const theirs = availability.ok ? await measure(["node-red", shape, code, String(inFlight)]) : Number.NaN;
        rows.push({
          benchmark: B,
          measure: label,
          result: `${fmt.int(ours)} msg/s`,
          nodeRed: Number.isFinite(theirs) ? `${fmt.int(theirs)} msg/s (${availability.ok ? availability.version : ""}, same run)` : undefined,
          notes: Number.isFinite(theirs) ? `**${(ours / theirs).toFixed(2)}× Node-RED**` : "",
        });
      }
    }
  }
  return { rows, notes };
}
