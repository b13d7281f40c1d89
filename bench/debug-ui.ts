import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { AddressInfo } from "node:net";
import { build } from "esbuild";
import { chromium } from "@playwright/test";
import { signUp } from "@/test/accounts";
import { startHub } from "@/test/ws";
import { orgEventsChannel } from "@/shared/realtime";
import { fmt } from "./lib/stats";
import type { BenchContext, BenchOutcome, Row } from "./lib/types";

const B = "9 Debug region in Chromium";
const RATES = [1000, 5000];
const PRODUCE_MS = 15_000;
const TICK_MS = 10;
const here = path.dirname(fileURLToPath(import.meta.url));

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The page: the real DebugPanel and live socket, bundled as the browser gets them in production. */
async function bundlePage(): Promise<{ dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fp-debug-ui-"));
  await build({
    entryPoints: [path.join(here, "debug-ui/page.tsx")],
    bundle: true,
    minify: !process.env.BENCH_PROFILE,
    format: "esm",
    platform: "browser",
    target: "es2022",
    jsx: "automatic",
    outdir: dir,
    entryNames: "page",
    loader: { ".css": "css" },
    define: { "process.env.NODE_ENV": '"production"' },
    tsconfig: path.join(here, "../tsconfig.json"),
    logLevel: "error",
  });
  const globals = fs.readFileSync(path.join(here, "../src/app/globals.css"), "utf8");
  fs.writeFileSync(
    path.join(dir, "index.html"),
    `<!doctype html><html><head><meta charset="utf-8"><style>${globals}</style><link rel="stylesheet" href="/page.css"></head><body><div id="root"></div><script type="module" src="/page.js"></script></body></html>`,
  );
  return { dir };
}

function serve(dir: string): Promise<{ url: string; close: () => Promise<void> }> {
  const types: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" };
  const server = http.createServer((req, res) => {
    const name = new URL(req.url ?? "/", "http://x").pathname.replace(/^\/$/, "/index.html");
    const file = path.join(dir, path.basename(name));
    if (!fs.existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" }).end(fs.readFileSync(file));
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())) }),
    ),
  );
}

/** Debug events as the runtime publishes them, with payloads of a realistic shape and size. */
function debugEvent(flowId: string, i: number): string {
  return JSON.stringify({
    type: "event",
    topic: "debug",
    flow_id: flowId,
    data: { node_id: "bench-debug", name: "bench debug", property: "payload", format: "object", topic: `sensors/${i % 17}`, msg: { seq: i, temperature: 20 + (i % 100) / 10, tags: ["a", "b"], at: Date.now() } },
    ts: new Date().toISOString(),
  });
}

/**
 * 7. The Debug region in Chromium under 1,000 and 5,000 debug messages a second: the real page
 * code (DebugPanel, DebugStore, LiveSocket, bundled for production), the real hub, events published
 * into the organization's channel as the runtime does. Measured in the page: long tasks
 * (PerformanceObserver `longtask`, ≥ 50 ms by definition), frame intervals (requestAnimationFrame),
 * and the JS heap over time (CDP, after a forced GC at start and end). The page asks for
 * `debug.batch` frames as the app does; BENCH_DEBUG_BATCH=0 runs it with one frame per event.
 */
export async function benchDebugUi(ctx: BenchContext): Promise<BenchOutcome> {
  // BENCH_DEBUG_BATCH=0: the page as it was before debug batches, for comparison.
  const batched = process.env.BENCH_DEBUG_BATCH !== "0";
  const user = await signUp(ctx.request);
  const flowId = "flw_debugbench0001";
  const hub = await startHub(ctx.services);
  const { dir } = await bundlePage();
  const site = await serve(dir);
  const browser = await chromium.launch({
    executablePath: process.env.PLAYWRIGHT_CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--enable-precise-memory-info"],
  });
  const rows: Row[] = [];
  const notes: string[] = [];
  try {
    const page = await browser.newPage({ viewport: { width: 480, height: 700 } });
    // A string, not a function: tsx would wrap named functions in a helper the page does not have.
    await page.addInitScript(`
      window.__perf = { longtasks: [], frames: [] };
      new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__perf.longtasks.push(e.duration); }).observe({ type: "longtask" });
      let last = performance.now();
      const frame = (t) => { window.__perf.frames.push(t - last); last = t; requestAnimationFrame(frame); };
      requestAnimationFrame(frame);
    `);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("HeapProfiler.enable");
    const heap = async () => ((await cdp.send("Runtime.getHeapUsage")) as { usedSize: number }).usedSize;
    const gcHeap = async () => {
      await cdp.send("HeapProfiler.collectGarbage");
      return heap();
    };
    await page.goto(`${site.url}/?ws=${encodeURIComponent(hub.url)}&token=${encodeURIComponent(user.accessToken)}&flow=${flowId}&batch=${batched ? "1" : "0"}`);
    await page.waitForFunction(() => (window as unknown as { __bench: { ready: boolean } }).__bench.ready, null, { timeout: 15_000 });

    for (const rate of RATES) {
      await page.getByRole("button", { name: "Clear" }).click();
      await page.evaluate(() => {
        const w = window as unknown as { __perf: { longtasks: number[]; frames: number[] }; __bench: { frames: number; wsFrames: number } };
        w.__perf.longtasks = [];
        w.__perf.frames = [];
        w.__bench.frames = 0;
        w.__bench.wsFrames = 0;
      });
      const heapStart = await gcHeap();
      if (process.env.BENCH_PROFILE) { await cdp.send("Profiler.enable"); await cdp.send("Profiler.start"); }
      const samples: number[] = [];
      const sampler = setInterval(() => void heap().then((h) => samples.push(h), () => undefined), 1000);
      ctx.log(`debug-ui: ${rate}/s for ${PRODUCE_MS / 1000} s`);
      const started = performance.now();
      let sent = 0;
      while (performance.now() - started < PRODUCE_MS) {
        const due = Math.floor(((performance.now() - started) / 1000) * rate);
        const channel = orgEventsChannel(user.organizationId);
        const batch: Promise<unknown>[] = [];
        for (; sent < due; sent++) batch.push(ctx.services.store.publish(channel, debugEvent(flowId, sent)));
        await Promise.all(batch);
        await new Promise((r) => setTimeout(r, TICK_MS));
      }
      const producedMs = performance.now() - started;
      if (process.env.BENCH_PROFILE) {
        const { profile } = (await cdp.send("Profiler.stop")) as { profile: { nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }>; samples: number[]; timeDeltas: number[] } };
        const self = new Map<string, number>();
        const byId = new Map(profile.nodes.map((n) => [n.id, n]));
        profile.samples.forEach((id, i) => { const n = byId.get(id)!; const k = `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + (profile.timeDeltas[i] ?? 0)); });
        console.error([...self].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${(v / 1000).toFixed(0).padStart(7)} ms  ${k}`).join("\n"));
      }
      await new Promise((r) => setTimeout(r, 1500));
      clearInterval(sampler);
      const heapEnd = await gcHeap();
      const result = await page.evaluate(() => {
        const w = window as unknown as {
          __perf: { longtasks: number[]; frames: number[] };
          __bench: { frames: number; wsFrames: number; store: { messages(): unknown[]; getSnapshot(): { droppedByServer: number } } };
        };
        return { longtasks: w.__perf.longtasks, frames: w.__perf.frames, received: w.__bench.frames, wsFrames: w.__bench.wsFrames, kept: w.__bench.store.messages().length, dropped: w.__bench.store.getSnapshot().droppedByServer, rows: document.querySelectorAll("[data-testid=debug-message]").length };
      });
      const third = Math.max(1, Math.floor(samples.length / 3));
      const early = samples.slice(0, third);
      const late = samples.slice(-third);
      const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
      const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
      const achieved = Math.round((sent / producedMs) * 1000);
      rows.push(
        {
          benchmark: B,
          measure: `${rate}/s: messages sent / received by the page / dropped by the hub; WebSocket frames that carried them`,
          result: `${fmt.int(sent)} / ${fmt.int(result.received)} / ${fmt.int(result.dropped)} (${fmt.int(achieved)}/s achieved); ${fmt.int(result.wsFrames)} frames`,
          notes: batched ? "debug.batch frames" : "one frame per event (BENCH_DEBUG_BATCH=0)",
        },
        {
          benchmark: B,
          measure: `${rate}/s: long tasks (≥ 50 ms): count, p95, max`,
          result: `${result.longtasks.length}, ${percentile(result.longtasks, 95).toFixed(0)} ms, ${Math.max(0, ...result.longtasks).toFixed(0)} ms`,
          notes: "target p95 < 50 ms",
        },
        { benchmark: B, measure: `${rate}/s: frame interval p50 / p95 / max`, result: `${percentile(result.frames, 50).toFixed(1)} / ${percentile(result.frames, 95).toFixed(1)} / ${Math.max(0, ...result.frames).toFixed(0)} ms` },
        {
          benchmark: B,
          measure: `${rate}/s: JS heap after GC start → end; mean first third → last third`,
          result: `${mb(heapStart)} → ${mb(heapEnd)}; ${mb(avg(early))} → ${mb(avg(late))}`,
          notes: `kept ${result.kept} messages, ${result.rows} rows in the DOM`,
        },
      );
    }
    notes.push(
      `Debug region: ${PRODUCE_MS / 1000} s per rate; events published into the organization's channel in ${TICK_MS} ms batches, delivered by the real hub to Chromium ${await browser.version()} ${batched ? "in debug.batch frames (LiveSocket's default)" : "one frame per event (BENCH_DEBUG_BATCH=0)"}.`,
    );
  } finally {
    await browser.close();
    await site.close();
    await hub.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { rows, notes };
}
