import { signUp } from "@/test/accounts";
import { createApiKey, createFlow, injectDebugFlow } from "./lib/flows";
import { load, problems } from "./lib/load";
import { call } from "./lib/http";
import { fmt, summarize } from "./lib/stats";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";

const FLOWS = 20;
const SECONDS = 5;
/** Sequential requests, alternating blocks of each kind, so drifting load on the machine hits both alike. */
const ROUNDS = 4;
const PER_BLOCK = 100;

/** 2. What authentication costs: GET /flows (about 20 small flows) with a JWT, then with an API key. */
export async function benchAuthCost(ctx: BenchContext): Promise<BenchOutcome> {
  const B = "2 JWT vs API key";
  const notes: string[] = [];
  const user = await signUp(ctx.request);
  for (let i = 0; i < FLOWS; i++) await createFlow(ctx, user.accessToken, injectDebugFlow(`Flow ${i + 1}`, `auth${i}`));
  const apiKey = await createApiKey(ctx, user.accessToken);
  const url = `${ctx.baseUrl}/api/v1/flows`;

  ctx.log("GET /flows with a JWT");
  const jwt = await load({ url, headers: { authorization: `Bearer ${user.accessToken}` }, duration: SECONDS });
  ctx.log("GET /flows with an API key");
  const key = await load({ url, headers: { "x-api-key": apiKey }, duration: SECONDS });

  ctx.log("GET /flows sequentially, alternating JWT and API key");
  const samples = { jwt: [] as number[], key: [] as number[] };
  const timed = async (kind: "jwt" | "key") => {
    for (let i = 0; i < PER_BLOCK; i++) {
      const t = performance.now();
      if (kind === "jwt") await call(ctx.baseUrl, "GET", "/flows", { token: user.accessToken });
      else await call(ctx.baseUrl, "GET", "/flows", { headers: { "x-api-key": apiKey } });
      samples[kind].push(performance.now() - t);
    }
  };
  for (let round = 0; round < ROUNDS; round++) {
    await timed("jwt");
    await timed("key");
  }
  const seqJwt = summarize(samples.jwt);
  const seqKey = summarize(samples.key);

  const nodeRed = "4.0–5.9k req/s, p99 ≤ 8 ms (6.8 KB, no auth)";
  const rows: Row[] = [
    { benchmark: B, measure: `GET /flows, ${FLOWS} flows, Authorization: Bearer <jwt>`, result: `${fmt.int(jwt.rps)} req/s, p99 ${fmt.ms(jwt.p99)}`, nodeRed, notes: `p50 ${fmt.ms(jwt.p50)}; ${fmt.kb(jwt.bytesPerResponse)} per response incl. headers` },
    { benchmark: B, measure: `GET /flows, ${FLOWS} flows, X-API-Key: service_…`, result: `${fmt.int(key.rps)} req/s, p99 ${fmt.ms(key.p99)}`, nodeRed, notes: `p50 ${fmt.ms(key.p50)}` },
    {
      benchmark: B,
      measure: "GET /flows one at a time, JWT / API key",
      result: `p50 ${fmt.ms(seqJwt.p50)} / ${fmt.ms(seqKey.p50)}`,
      notes: `${ROUNDS} alternating blocks of ${PER_BLOCK} each; p99 ${fmt.ms(seqJwt.p99)} / ${fmt.ms(seqKey.p99)}`,
    },
  ];
  for (const [what, r] of [["GET /flows (jwt)", jwt], ["GET /flows (api key)", key]] as const) {
    const problem = problems(what, r);
    if (problem) notes.push(problem);
  }
  notes.push("REST benchmarks ran with RATE_LIMIT_API_PER_CREDENTIAL=100000000 (default 1200/min per credential would answer 429 within the first second); the limiter is still consulted on every request.");
  return { rows, notes };
}
