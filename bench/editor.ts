import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Page } from "@playwright/test";
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
  if (!fs.existsSync(path.resolve(".next/BUILD_ID"))) throw new Error("no production build: run `npm run build` first");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "fp-bench-editor-"));
  const origin = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ["--import", "tsx", "src/server.ts"], {
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

/** Frame-to-frame times (requestAnimationFrame) while the pointer drags a node 300 px and back. */
async function dragFrames(page: Page): Promise<number[]> {
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
  await page.mouse.down();
  for (let i = 1; i <= 60; i++) await page.mouse.move(start.x + i * 5, start.y + i * 3);
  for (let i = 59; i >= 0; i--) await page.mouse.move(start.x + i * 5, start.y + i * 3);
  await page.mouse.up();
  return (await page.evaluate("(() => { window.__stop = true; return window.__frames.slice(1); })()")) as number[];
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

    for (const [count, target] of [
      [500, { open: 1000, frame: 20 }],
      [2000, { open: 3000, frame: 33 }],
    ] as const) {
      const { flow } = (await api(server.origin, "POST", "/flows", gridFlow(count, `b${count}n`), token)) as { flow: { id: string } };
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
      const frames = (await dragFrames(page)).sort((a, b) => a - b);
      const p95 = percentile(frames, 95);
      ctx.log(`${count} nodes: open ${fmt.ms(open)} (${drawn} drawn), drag p95 frame ${fmt.ms(p95)} over ${frames.length} frames`);
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
        notes: `target < ${fmt.ms(target.frame)}; ${frames.length} frames, median ${fmt.ms(percentile(frames, 50))}, max ${fmt.ms(frames[frames.length - 1]!)}`,
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
