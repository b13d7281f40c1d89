import { expect, type APIRequestContext, type Page } from "@playwright/test";
import { gridFlow } from "../../bench/lib/grid-flow";

// Also here for the flow and editor specs, which import them from this file.
export { accessToken } from "./accounts";
export { expectAccessible, shot } from "./page";

export interface NodeSpec {
  id?: string;
  type: string;
  name?: string;
  position?: { x: number; y: number };
  config?: Record<string, unknown>;
  disabled?: boolean;
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

export const canvasNode = (page: Page, id: string) => page.locator(`.react-flow__node[data-id="${id}"]`);
/** The flow editor's toolbar (Deploy, Save, the state). */
export const editorToolbar = (page: Page) => page.getByRole("toolbar", { name: "Flow editor" });
/** The sidebar's Debug region and its messages. */
export const debugRegion = (page: Page) => page.getByRole("region", { name: "Debug" });
export const debugMessages = (page: Page) => debugRegion(page).getByTestId("debug-message");
/** Opens a sidebar panel (Debug, Configuration, Node …). */
export const openSidebarTab = (page: Page, name: string) => page.getByRole("tablist", { name: "Sidebar panels" }).getByRole("tab", { name }).click();
export const canvasNodes = (page: Page) => page.locator(".react-flow__node");
export const edges = (page: Page) => page.locator(".react-flow__edge");
