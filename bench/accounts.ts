import { monitorEventLoopDelay } from "node:perf_hooks";
import bcrypt from "bcrypt";
import { signUp } from "@/test/accounts";
import { appJwtKeys } from "@/server/auth/principal";
import { verifyAccessToken } from "@/server/auth/jwt";
import { load, problems, type LoadResult } from "./lib/load";
import { fmt, summarize, throughputFor, timeSequential } from "./lib/stats";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";

const COST = 12;
const RAW_BCRYPT_MS = 3000;
const LOGIN_SECONDS = 6;
const PROFILE_SECONDS = 5;

/**
 * 1. Accounts: bcrypt at cost 12 on this machine, POST /auth/login throughput, and GET
 * /auth/profile latency alone and while logins saturate bcrypt (libuv's 4 threads).
 */
export async function benchAccounts(ctx: BenchContext): Promise<BenchOutcome> {
  const B = "1 Accounts";
  const rows: Row[] = [];
  const notes: string[] = [];
  const password = "correct horse battery staple";

  ctx.log("bcrypt.compare at cost 12");
  const hash = await bcrypt.hash(password, COST);
  const single = await timeSequential(3, async () => {
    await bcrypt.compare(password, hash);
  });
  const raw = await throughputFor(4, RAW_BCRYPT_MS, () => bcrypt.compare(password, hash));
  rows.push(
    { benchmark: B, measure: "bcrypt.compare, cost 12, one at a time", result: fmt.ms(single.p50), notes: "median of 3" },
    { benchmark: B, measure: "bcrypt.compare, cost 12, concurrency 4", result: `${raw.perSecond.toFixed(1)} compares/s`, notes: `${raw.completed} in ${raw.seconds.toFixed(1)} s; libuv pool of 4 threads` },
  );

  ctx.log("POST /auth/login");
  const user = await signUp(ctx.request);
  const stored = await ctx.services.db.prisma.user.findUniqueOrThrow({ where: { id: user.userId }, select: { passwordHash: true } });
  if (!stored.passwordHash.startsWith(`$2b$${COST}$`)) throw new Error(`the user's hash is not cost ${COST}: ${stored.passwordHash.slice(0, 7)}`);
  const loginUrl = `${ctx.baseUrl}/api/v1/auth/login`;
  const loginBody = { email: user.email, password };
  const login = await load({ url: loginUrl, method: "POST", body: loginBody, connections: 10, duration: LOGIN_SECONDS });
  rows.push({
    benchmark: B,
    measure: "POST /auth/login (10 connections)",
    result: `${login.rps.toFixed(1)} req/s`,
    notes: `p50 ${fmt.ms(login.p50)}, p99 ${fmt.ms(login.p99)}; ${login.requests} logins in ${login.seconds} s`,
  });

  ctx.log("GET /auth/profile alone, then during logins");
  const profileUrl = `${ctx.baseUrl}/api/v1/auth/profile`;
  const auth = { authorization: `Bearer ${user.accessToken}` };
  // The event loop's own delay, to tell a blocked loop from requests waiting elsewhere.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const alone = await load({ url: profileUrl, headers: auth, connections: 2, duration: PROFILE_SECONDS });
  const loopAlone = loopDelay.percentile(99) / 1e6;
  loopDelay.reset();
  const [busyLogin, busyProfile] = await Promise.all([
    load({ url: loginUrl, method: "POST", body: loginBody, connections: 8, duration: LOGIN_SECONDS }),
    load({ url: profileUrl, headers: auth, connections: 2, duration: LOGIN_SECONDS }),
  ]);
  const loopBusy = loopDelay.percentile(99) / 1e6;
  loopDelay.disable();
  const profileRow = (measure: string, r: LoadResult, extra: string): Row => ({
    benchmark: B,
    measure,
    result: `p50 ${fmt.ms(r.p50)}, p99 ${fmt.ms(r.p99)}`,
    notes: `${fmt.int(r.rps)} req/s${extra}`,
  });
  rows.push(
    profileRow("GET /auth/profile alone (2 connections)", alone, `; event-loop delay p99 ${fmt.ms(loopAlone)}`),
    profileRow(
      "GET /auth/profile while logins saturate bcrypt (2 + 8 connections)",
      busyProfile,
      `; logins meanwhile ${busyLogin.rps.toFixed(1)} req/s; event-loop delay p99 ${fmt.ms(loopBusy)}`,
    ),
  );
  // The access token's HS256 check must not wait behind bcrypt: it once ran through WebCrypto on
  // libuv's thread pool (the same 4 threads bcrypt uses); it is now a synchronous node:crypto HMAC.
  ctx.log("JWT verification alone and behind bcrypt");
  const keys = appJwtKeys(ctx.services);
  const verifyIdle = await timeSequential(20, async () => {
    await verifyAccessToken(keys, user.accessToken);
  });
  let stop = false;
  const lanes = Array.from({ length: 8 }, async () => {
    while (!stop) await bcrypt.compare(password, hash);
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  const verifyBusy = summarize(
    await Promise.all(
      Array.from({ length: 5 }, async () => {
        const t = performance.now();
        await verifyAccessToken(keys, user.accessToken);
        return performance.now() - t;
      }),
    ),
  );
  stop = true;
  await Promise.all(lanes);
  rows.push({
    benchmark: B,
    measure: "access-token verification (HS256, node:crypto): alone / with 8 bcrypt.compare in flight",
    result: `${fmt.ms(verifyIdle.p50)} / ${fmt.ms(verifyBusy.p50)}`,
    notes: "medians (20 sequential / 5 concurrent); both run on libuv's thread pool",
  });

  for (const [what, r] of [["login", login], ["profile alone", alone], ["login under load", busyLogin], ["profile under load", busyProfile]] as const) {
    const problem = problems(what, r);
    if (problem) notes.push(problem);
  }
  notes.push("Login ran with RATE_LIMIT_LOGIN_PER_IP and RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT set to 1000000 (otherwise the limiter answers 429 after 300 logins per IP per 15 min); the limiter is still consulted on every request.");
  return { rows, notes };
}
