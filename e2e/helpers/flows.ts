import fs from "node:fs";
import path from "node:path";
import { expect, type APIRequestContext, type Page } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import { gridFlow } from "../../bench/lib/grid-flow";
import { PASSWORD } from "./accounts";

export interface NodeSpec {
  id?: string;
  type: string;
  name?: string;
  position?: { x: number; y: number };
  config?: Record<string, unknown>;
  disabled?: boolean;
}

/** An access token for the REST API, for arranging data a test is not about. */
export async function accessToken(request: APIRequestContext, email: string): Promise<string> {
  const res = await request.post("/api/v1/auth/login", { data: { email, password: PASSWORD } });
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

export async function createFlowViaApi(
  request: APIRequestContext,
  token: string,
  body: { name: string; nodes?: NodeSpec[]; connections?: { source: string; source_port?: number; target: string }[] },
): Promise<{ id: string; revision: number }> {
  const res = await request.post("/api/v1/flows", { headers: { authorization: `Bearer ${token}` }, data: body });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { flow: { id: string; revision: number } }).flow;
}

export async function getFlowViaApi(request: APIRequestContext, token: string, id: string) {
  const res = await request.get(`/api/v1/flows/${id}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()) as { flow: { revision: number; name: string; nodes: Array<{ id: string; type: string; name: string; config: Record<string, unknown>; position: { x: number; y: number } }>; connections: Array<{ source: string; source_port: number; target: string }> } }).flow;
}

/** A grid of `count` nodes (the benchmark's big flows). */
export const bigFlow = (count: number, prefix: string) => {
  const { nodes, connections } = gridFlow(count, prefix);
  return { nodes, connections };
};

// Full-page screenshots kept after the run for a human to look at (outside Playwright's outputDir).
const SCREENSHOTS = path.resolve("test-results/screenshots");
export async function shot(page: Page, name: string, fullPage = false) {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage });
}

/** No serious or critical accessibility violations on the page as it is now. */
export async function expectAccessible(page: Page, exclude: string[] = []) {
  let builder = new AxeBuilder({ page });
  for (const selector of exclude) builder = builder.exclude(selector);
  const results = await builder.analyze();
  const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join("; ")})`)).toEqual([]);
}

export const canvasNode = (page: Page, id: string) => page.locator(`.react-flow__node[data-id="${id}"]`);
export const canvasNodes = (page: Page) => page.locator(".react-flow__node");
export const edges = (page: Page) => page.locator(".react-flow__edge");
