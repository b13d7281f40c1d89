import { signUp } from "@/test/accounts";
import { createFlow, deployFlow, injectDebugFlow } from "./lib/flows";
import { load, problems } from "./lib/load";
import { fmt } from "./lib/stats";
import type { BenchContext, BenchOutcome } from "./lib/types";

const SECONDS = 5;

/** 6. POST /nodes/{id}/inject on a deployed inject → debug flow, 10 connections. */
export async function benchInject(ctx: BenchContext): Promise<BenchOutcome> {
  const B = "6 Inject over REST";
  const user = await signUp(ctx.request);
  const flowId = await createFlow(ctx, user.accessToken, injectDebugFlow("inject bench", "injbench"));
  await deployFlow(ctx, user.accessToken, flowId);
  ctx.log("POST /nodes/{id}/inject");
  const r = await load({
    url: `${ctx.baseUrl}/api/v1/nodes/injbench-inject/inject`,
    method: "POST",
    headers: { authorization: `Bearer ${user.accessToken}` },
    body: { payload: "x" },
    duration: SECONDS,
  });
  const notes: string[] = [];
  const problem = problems("inject", r);
  if (problem) notes.push(problem);
  return {
    rows: [
      {
        benchmark: B,
        measure: "POST /nodes/{id}/inject (inject → debug deployed, 10 connections)",
        result: `${fmt.int(r.rps)} req/s, p99 ${fmt.ms(r.p99)}`,
        nodeRed: "4.5–6.6k req/s, p99 ≤ 11 ms (no auth)",
        notes: `p50 ${fmt.ms(r.p50)}; each request also publishes an inject and a debug event to the store`,
      },
    ],
    notes,
  };
}
