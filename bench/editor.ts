import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type CDPSession, type Page } from "@playwright/test";
import { gridFlow } from "./lib/grid-flow";
import { fmt, percentile } from "./lib/stats";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";

/**
 * 8. The flow editor in Chromium: opening a 500- and a 2,000-node flow (time from navigation until
 * every node React Flow draws is visible) and the p95 frame time while a node is dragged across
 * the canvas. Needs the production build (`npm run build`): it starts the built server the way
 * Playwright does, on BENCH_EDITOR_PORT (default 3420), with a fresh data directory.
 */
const B = "8 Editor (Chromium)";
const PASSWORD = "Tangerine-Rocket-42";

async function startServer(port: number, log: (m: string) => void) {
  if (!fs.existsSync(path.resolve(".next/BUILD_ID")) || !fs.existsSync(path.resolve("dist/server/server.js"))) throw new Error("no production build: run `npm run build` first");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "fp-bench-editor-"));
  const origin = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ["dist/server/server.js"], {
    env: { ...process.env, NODE_ENV: "production", PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, PUBLIC_URL: origin, LOG_LEVEL: "warn", NEXT_TELEMETRY_DISABLED: "1", RATE_LIMIT_LOGIN_PER_IP: "100000" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  child.stderr.on("data", (d: Buffer) => log(`server: ${d.toString().trim().slice(0, 300)}`));
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`${origin}/api/v1/health`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    origin,
    async close() {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function api(origin: string, method: string, pathname: string, body: unknown, token?: string) {
  const res = await fetch(`${origin}/api/v1${pathname}`, {
    method,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${pathname} → ${res.status} ${JSON.stringify(json).slice(0, 200)}`);
  return json;
}

/** Milliseconds from navigation start until the editor shows nodes and none is still hidden (unmeasured). */
async function openAndTime(page: Page, url: string): Promise<{ ms: number; drawn: number }> {
  await page.goto(url, { waitUntil: "commit" });
  const handle = await page.waitForFunction(
    () => {
      const nodes = document.querySelectorAll<HTMLElement>(".react-flow__node");
      if (nodes.length === 0) return false;
      for (const n of nodes) if (getComputedStyle(n).visibility === "hidden") return false;
      return { ms: performance.now(), drawn: nodes.length };
    },
    undefined,
    { polling: "raf", timeout: 60_000 },
  );
  return (await handle.jsonValue()) as { ms: number; drawn: number };
}

/** Main-thread CPU the renderer spent (CDP Performance metrics, seconds → ms), by kind. */
interface CpuUse {
  thread: number;
  script: number;
  layout: number;
  style: number;
}

async function cpuUse(cdp: CDPSession): Promise<CpuUse> {
  const { metrics } = (await cdp.send("Performance.getMetrics")) as { metrics: Array<{ name: string; value: number }> };
  const get = (name: string) => (metrics.find((m) => m.name === name)?.value ?? 0) * 1000;
  return { thread: get("ThreadTime"), script: get("ScriptDuration"), layout: get("LayoutDuration"), style: get("RecalcStyleDuration") };
}

/** The functions that spent the most self time in a CPU profile (a rough bottom-up view for the log). */
function topSelf(profile: { nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number } }>; samples: number[]; timeDeltas: number[] }, n: number): string[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const f = byId.get(id)!.callFrame;
    const key = `${f.functionName || "(anonymous)"} ${f.url.split("/").pop()}:${f.lineNumber + 1}:${f.columnNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...self].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, ms]) => `${ms.toFixed(1).padStart(7)} ms  ${k}`);
}

/** Pointer moves per drag: 60 steps out and 60 back. */
const MOVES = 120;

/**
 * Frame-to-frame times (requestAnimationFrame) while the pointer drags a node 300 px and back, and
 * the renderer's main-thread CPU time over the drag (less sensitive to other load on the machine
 * than frame times). With BENCH_PROFILE=<dir>, also a CPU profile of the drag (<dir>/editor-<label>.cpuprofile);
 * with BENCH_TRACE=<dir>, a Chromium trace of it (<dir>/editor-<label>.json, for chrome://tracing or DevTools).
 */
async function dragFrames(page: Page, label: string, log: (m: string) => void): Promise<{ frames: number[]; cpu: CpuUse }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable", { timeDomain: "threadTicks" });
  const profileDir = process.env.BENCH_PROFILE;
  if (profileDir) {
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
  }
  const node = page.locator(".react-flow__node .fp-node-label").nth(3);
  const box = (await node.boundingBox())!;
  const start = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  // A string, not a function: tsx's name-keeping helpers do not exist in the page.
  await page.evaluate(`(() => {
    window.__frames = [];
    window.__stop = false;
    let last = 0;
    const tick = (t) => {
      window.__frames.push(t - last);
      last = t;
      if (!window.__stop) requestAnimationFrame(tick);
    };
    requestAnimationFrame((t) => {
      last = t;
      requestAnimationFrame(tick);
    });
  })()`);
  await page.mouse.move(start.x, start.y);
  const before = await cpuUse(cdp);
  if (profileDir) await cdp.send("Profiler.start");
  const traceDir = process.env.BENCH_TRACE;
  if (traceDir) {
    fs.mkdirSync(traceDir, { recursive: true });
    await page.context().browser()!.startTracing(page, { path: path.join(traceDir, `editor-${label}.json`), categories: ["devtools.timeline", "disabled-by-default-devtools.timeline", "toplevel"] });
  }
  await page.mouse.down();
  for (let i = 1; i <= MOVES / 2; i++) await page.mouse.move(start.x + i * 5, start.y + i * 3);
  for (let i = MOVES / 2 - 1; i >= 0; i--) await page.mouse.move(start.x + i * 5, start.y + i * 3);
  await page.mouse.up();
  const frames = (await page.evaluate("(() => { window.__stop = true; return window.__frames.slice(1); })()")) as number[];
  const after = await cpuUse(cdp);
  if (traceDir) {
    await page.context().browser()!.stopTracing();
    log(`trace of the ${label} drag: ${path.join(traceDir, `editor-${label}.json`)}`);
  }
  if (profileDir) {
    const { profile } = (await cdp.send("Profiler.stop")) as { profile: Parameters<typeof topSelf>[0] };
    fs.mkdirSync(profileDir, { recursive: true });
    const file = path.join(profileDir, `editor-${label}.cpuprofile`);
    fs.writeFileSync(file, JSON.stringify(profile));
    log(`CPU profile of the ${label} drag: ${file}; top self time:\n${topSelf(profile, 25).join("\n")}`);
  }
  await cdp.detach();
  const cpu = { thread: after.thread - before.thread, script: after.script - before.script, layout: after.layout - before.layout, style: after.style - before.style };
  return { frames, cpu };
}

export async function benchEditor(ctx: BenchContext): Promise<BenchOutcome> {
  const port = Number(process.env.BENCH_EDITOR_PORT ?? 3420);
  ctx.log(`starting the built server on port ${port}`);
  const server = await startServer(port, ctx.log);
  const browser = await chromium.launch({ executablePath: process.env.PLAYWRIGHT_CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
  const rows: Row[] = [];
  const notes: string[] = [];
  try {
    const email = `bench-editor-${Date.now()}@example.com`;
    await api(server.origin, "POST", "/auth/register", { email, password: PASSWORD, organization_name: "Editor bench", accept_terms: true, first_name: "Bench", last_name: "Editor" });
    const { access_token: token } = (await api(server.origin, "POST", "/auth/login", { email, password: PASSWORD })) as { access_token: string };
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${server.origin}/login`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL((u) => u.pathname === "/account/security");

    // BENCH_EDITOR_GROUPS=20: the flows carry that many groups (SPEC §16), so the group boxes' layer is measured too.
    const groupCount = Number(process.env.BENCH_EDITOR_GROUPS ?? 0);
    if (groupCount > 0) ctx.log(`with ${groupCount} groups in each flow`);
    for (const [count, target] of [
      [500, { open: 1000, frame: 20 }],
      [2000, { open: 3000, frame: 33 }],
    ] as const) {
      const { flow } = (await api(server.origin, "POST", "/flows", gridFlow(count, `b${count}n`, `${count} nodes`, groupCount), token)) as { flow: { id: string } };
      // One warm-up visit (route code cached in the server and the browser), then three timed opens.
      await openAndTime(page, `${server.origin}/flows/${flow.id}`);
      const opens: number[] = [];
      let drawn = 0;
      for (let i = 0; i < 3; i++) {
        const r = await openAndTime(page, `${server.origin}/flows/${flow.id}`);
        opens.push(r.ms);
        drawn = r.drawn;
      }
      opens.sort((a, b) => a - b);
      const open = opens[1]!;
      const drag = await dragFrames(page, `${count}`, ctx.log);
      // Which frames (in order, of how many) took longer than one vsync: the press and the drop re-render the editor once each.
      const lateAt = drag.frames.flatMap((f, i) => (f > 25 ? [i] : []));
      const frames = [...drag.frames].sort((a, b) => a - b);
      const p95 = percentile(frames, 95);
      const perMove = (ms: number) => fmt.ms(ms / MOVES);
      const cpuNote = `main-thread CPU ${perMove(drag.cpu.thread)} per pointer move (script ${perMove(drag.cpu.script)}, style ${perMove(drag.cpu.style)}, layout ${perMove(drag.cpu.layout)})`;
      ctx.log(`${count} nodes: open ${fmt.ms(open)} (${drawn} drawn), drag p95 frame ${fmt.ms(p95)} over ${frames.length} frames (median ${fmt.ms(percentile(frames, 50))}; longer than one vsync: ${lateAt.length}, frames #${lateAt.join(", #")}); ${cpuNote}`);
      rows.push({
        benchmark: B,
        measure: `open a ${count.toLocaleString("en-US")}-node flow: navigation → visible nodes drawn (median of 3)`,
        result: fmt.ms(open),
        notes: `target < ${fmt.ms(target.open)}; ${drawn} nodes drawn (only the visible ones); runs ${opens.map((o) => fmt.ms(o)).join(", ")}`,
      });
      rows.push({
        benchmark: B,
        measure: `drag a node in the ${count.toLocaleString("en-US")}-node flow: p95 frame time`,
        result: fmt.ms(p95),
        notes: `target < ${fmt.ms(target.frame)}; ${frames.length} frames, median ${fmt.ms(percentile(frames, 50))}, max ${fmt.ms(frames[frames.length - 1]!)}; ${cpuNote}`,
        nodeRed: count === 500 ? "~100 ms/frame at 782 nodes (node-red#4563)" : undefined,
      });
    }
    notes.push("Editor: Debian's Chromium headless (no GPU), viewport 1440×900; frame times are requestAnimationFrame deltas, so a frame that keeps up reads as one vsync (16.7 ms).");
  } finally {
    await browser.close();
    await server.close();
  }
  return { rows, notes };
}
