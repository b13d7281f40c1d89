import { setTimeout as sleep } from "node:timers/promises";
import { signUp } from "@/test/accounts";
import { createTestApp, restClient } from "@/test/app";
import { startRestServer } from "./lib/rest-server";
import { createApiKey, createFlow, deployFlow } from "./lib/flows";
import { load } from "./lib/load";
import { fmt } from "./lib/stats";
import type { BenchContext, Row } from "./lib/types";

const CONNECTIONS = 20;
const SECONDS = 10;
/** CPU per message in the function node: slower than the injects arrive, so the flow must push back. */
const WORK_MS = 5;
/**
 * The flood's own app has a lower mark than the default 10,000, so that the flow fills it within
 * seconds on two cores (the mechanism is the same at any mark) and its backlog drains in seconds.
 */
const HIGH_WATER = 1000;

/**
 * A flood of injects through the REST door (the bench's REST server, over HTTP) into a flow slower
 * than the flood: inject → function (1 ms of work per message) → debug. With backpressure the flow
 * answers 429 past its high-water mark instead of queueing without bound or dropping messages
 * inside the flow: every accepted inject must come out of the debug node, and no node may report
 * dropped messages.
 */
export async function benchInjectFlood(parent: BenchContext, benchmark: string): Promise<{ rows: Row[]; notes: string[] }> {
  const app = await createTestApp({ BCRYPT_COST: "4", RATE_LIMIT_API_PER_CREDENTIAL: "100000000", FLOW_HIGH_WATER_MARK: String(HIGH_WATER) });
  // As the server does at boot: on Redis the clustered runtime then renews its leases every second.
  await app.flowRuntime.start();
  const server = await startRestServer(app);
  const ctx: BenchContext = { services: app, baseUrl: server.url, request: restClient(app), log: parent.log };
  try {
    return await flood(ctx, benchmark);
  } finally {
    await server.close();
    await app.close();
  }
}

async function flood(ctx: BenchContext, benchmark: string): Promise<{ rows: Row[]; notes: string[] }> {
  const user = await signUp(ctx.request);
  const key = await createApiKey(ctx, user.accessToken);
  const flowId = await createFlow(ctx, user.accessToken, {
    name: "flood",
    nodes: [
      { id: "flood-inject", type: "inject" },
      { id: "flood-work", type: "function", config: { code: `const t = Date.now(); while (Date.now() - t < ${WORK_MS}) {} return msg;` } },
      { id: "flood-debug", type: "debug" },
    ],
    connections: [
      { source: "flood-inject", target: "flood-work" },
      { source: "flood-work", target: "flood-debug" },
    ],
  });
  await deployFlow(ctx, user.accessToken, flowId);

  let delivered = 0;
  /** Injects the server accepted, counted by their `inject` events (autocannon does not count the answers in flight when it stops). */
  let accepted = 0;
  let nodeErrors = 0;
  let firstError: string | undefined;
  const unsubscribe = await ctx.services.store.subscribe(`org:${user.organizationId}:events`, (raw) => {
    for (const line of raw.split("\n")) {
      if (!line) continue;
      const event = JSON.parse(line) as { topic: string; data: { error?: string } };
      if (event.topic === "debug") delivered++;
      else if (event.topic === "inject") accepted++;
      else if (event.topic === "node.status" && event.data.error) {
        nodeErrors++;
        firstError ??= event.data.error;
      }
    }
  });
  try {
    ctx.log(`runtime: a flood of injects, ${CONNECTIONS} connections for ${SECONDS} s`);
    const r = await load({
      url: `${ctx.baseUrl}/api/v1/nodes/flood-inject/inject`,
      method: "POST",
      connections: CONNECTIONS,
      duration: SECONDS,
      headers: { "x-api-key": key },
      body: { payload: "x" },
    });
    const answered200 = r.statusCodes["200"] ?? 0;
    const refused = r.statusCodes["429"] ?? 0;
    const other = r.requests - answered200 - refused;
    // The backlog drains at about 1,000 messages a second.
    const deadline = Date.now() + 30_000;
    let last = -1;
    while (delivered < accepted && Date.now() < deadline && delivered !== last) {
      last = delivered;
      await sleep(1000);
    }
    const ok = delivered === accepted && nodeErrors === 0 && other === 0 && r.errors === 0;
    const rows: Row[] = [
      {
        benchmark,
        measure: `a flood of injects: REST, ${CONNECTIONS} connections for ${SECONDS} s, into inject → function (${WORK_MS} ms per message) → debug, FLOW_HIGH_WATER_MARK ${fmt.int(HIGH_WATER)}`,
        result: `${fmt.int(accepted)} accepted (200), ${fmt.int(refused)} refused (429), ${fmt.int(delivered)} delivered`,
        notes: `${ok ? "every accepted message delivered once, none dropped" : `MISMATCH: ${fmt.int(delivered)} delivered of ${fmt.int(accepted)} accepted; other answers ${other}, errors ${r.errors}, node errors ${nodeErrors}${firstError ? ` (${firstError})` : ""}`}; ${fmt.int(r.requests / r.seconds)} answers/s, p99 ${r.p99} ms`,
      },
    ];
    return { rows, notes: [] };
  } finally {
    await unsubscribe();
  }
}
