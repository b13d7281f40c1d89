/**
 * Benchmarks 4f and 4g in a fresh process, ours: inject → function (generate N) → function (the
 * statement or its parameters) → mysql or postgresql → change → counter, on the machine's database
 * (the parent made the database and table: bench/db-inserts.ts). Usage: db-insert-child.ts
 * <mysql|postgresql> <N> <time limit ms>; the result goes to the parent over IPC.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import type { FlowSpec } from "@/server/runtime/engine";
import { createOutboundRules } from "@/server/runtime/outbound";
import { SandboxPool } from "@/server/runtime/sandbox/sandbox-pool";
import { benchApp, benchEngine, countingNode, finishChild, insertChain, timedChainRun } from "./lib/chain";
import { DB_INSERT_KINDS, type DbInsertKind } from "./lib/db-insert-kinds";

export type DbInsertBenchResult = { type: "result" } & Awaited<ReturnType<typeof timedChainRun>>;

async function main() {
  const [kindArg, nArg, limitArg] = process.argv.slice(2);
  const n = Number(nArg);
  const limitMs = Number(limitArg ?? 60_000);
  if (!Object.hasOwn(DB_INSERT_KINDS, kindArg ?? "") || !Number.isInteger(n) || n <= 0) throw new Error("usage: db-insert-child.ts <mysql|postgresql> <N> [time limit ms]");
  const kind = DB_INSERT_KINDS[kindArg as DbInsertKind];
  const { app, owner, flowId } = await benchApp(`${kindArg} bench`);
  const target = kind.target();
  const configNode = kind.configNode(target);

  const counting = countingNode(n);
  const pool = new SandboxPool();
  const plain = (v: string) => `plain:${v}`;
  // The database is on this machine: the outbound rules allow private addresses, as OUTBOUND_ALLOW_PRIVATE does.
  const { engine, errors, node, configOf } = benchEngine(counting.factory, { sandboxes: pool, outbound: createOutboundRules({ allowPrivate: true }), openCredential: (sealed: string) => sealed.slice("plain:".length) });
  const spec: FlowSpec = {
    flowId,
    organizationId: owner.organizationId,
    organizationSlug: "bench",
    revision: 1,
    configNodes: {
      db: {
        id: "db",
        type: configNode.type,
        name: "bench",
        revision: 1,
        config: configOf(configNode.type, configNode.config),
        sealed_credentials: { user: plain(target.user), ...(target.password ? { password: plain(target.password) } : {}) },
      },
    },
    ...insertChain(node, kind.code, kind.node),
  };
  if ((await engine.deploy(spec)) !== "running") throw new Error(`the bench flow did not start: ${errors.join("; ")}`);
  // As Node-RED's side: half a second for the database's connection test.
  await new Promise((r) => setTimeout(r, 500));
  await nextTurn();

  const result: DbInsertBenchResult = { type: "result", ...(await timedChainRun(engine, flowId, counting, n, limitMs, errors)) };
  await finishChild(result, async () => {
    await engine.close();
    await pool.close();
    await app.close();
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
