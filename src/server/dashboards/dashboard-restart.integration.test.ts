/**
 * SPEC §21: widget state is durable. A chart fed points and a text set by a message are the same
 * after the process restarts on the same embedded database (the app closed and a new one opened
 * on the same DATA_DIR), and the chart goes on from its points: a new point joins them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import type { AppServices } from "@/server/app-services";
import { restClient, startEmbeddedApp } from "@/test/app";
import { signUp } from "@/test/accounts";
import { connect } from "@/test/ws";
import { sessionCookie, startDashboardSockets } from "@/test/dashboard";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "fp-dashboard-restart-"));
const open: Array<{ close(): Promise<void> }> = [];

async function start(): Promise<{ app: AppServices; dash: Awaited<ReturnType<typeof startDashboardSockets>> }> {
  const app = await startEmbeddedApp(dataDir);
  await app.flowRuntime.start();
  const dash = await startDashboardSockets(app);
  const both = {
    close: async () => {
      await dash.close();
      await app.close();
    },
  };
  open.push(both);
  return { app, dash };
}

afterAll(async () => {
  for (const o of open) await o.close().catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
});

it("a chart's points and a text's value survive a restart; new points join the kept ones", async () => {
  let { app, dash } = await start();
  let request = restClient(app);
  const owner = await signUp(request);
  const token = owner.accessToken;
  const post = async (body: Record<string, unknown>) => (await request("POST", "/config-nodes", { token, body })).body.config_node.id as string;
  const base = await post({ type: "ui-base", name: "Plant", config: {} });
  const page = await post({ type: "ui-page", name: "Trends", config: { ui: base, path: "/trends" } });
  const group = await post({ type: "ui-group", name: "Temperatures", config: { page } });
  const created = await request("POST", "/flows", {
    token,
    body: {
      name: "trend",
      nodes: [
        { id: "rs_in", type: "inject", config: { props: [{ p: "payload", v: "0", v_type: "num" }, { p: "topic", v: "oven", v_type: "str" }] } },
        { id: "rs_chart", type: "ui-chart", config: { group, label: "Oven", removeOlderPoints: 3 } },
        { id: "rs_text", type: "ui-text", config: { group, label: "Last" } },
      ],
      connections: [
        { source: "rs_in", target: "rs_chart" },
        { source: "rs_in", target: "rs_text" },
      ],
    },
  });
  expect(created.status, created.text).toBe(201);
  expect((await request("POST", `/flows/${created.body.flow.id}/deploy`, { token })).status).toBe(200);
  const slug = (await app.db.prisma.organization.findUniqueOrThrow({ where: { id: owner.organizationId } })).slug;
  const socket = connect(dash.url(slug, "/trends"), await sessionCookie(app, owner));
  await socket.next((f) => f.type === "dashboard.page");
  for (const v of [10, 20, 30, 40]) {
    expect((await request("POST", "/nodes/rs_in/inject", { token, body: { payload: v } })).status).toBe(200);
    await socket.next((f) => f.type === "dashboard.update" && f.widget_id === "rs_chart" && f.msg.payload === v);
  }
  const last = socket.frames.filter((f) => f.type === "dashboard.update" && f.widget_id === "rs_chart").at(-1)!;
  // Three points kept per series (removeOlderPoints), the newest.
  expect(last.state.points.map((p: { y: number; category: string }) => [p.category, p.y])).toEqual([
    ["oven", 20],
    ["oven", 30],
    ["oven", 40],
  ]);
  socket.ws.close();

  // A clean stop writes what is pending; a new process on the same database shows the same page.
  await open.pop()!.close();
  ({ app, dash } = await start());
  request = restClient(app);
  const login = await request("POST", "/auth/login", { body: { email: owner.email, password: owner.password } });
  const again = connect(dash.url(slug, "/trends"), await sessionCookie(app, { userId: owner.userId, sessionId: login.body.session_id }));
  const view = (await again.next((f) => f.type === "dashboard.page")).view;
  const byId = (id: string) => view.groups[0].widgets.find((w: { id: string }) => w.id === id);
  expect(byId("rs_chart").state.points.map((p: { y: number }) => p.y)).toEqual([20, 30, 40]);
  expect(byId("rs_text").state.msg).toMatchObject({ payload: 40, topic: "oven" });
  // The chart node read its points back as it started: a new point joins them.
  expect((await request("POST", "/nodes/rs_in/inject", { token: login.body.access_token, body: { payload: 50 } })).status).toBe(200);
  const next = await again.next((f) => f.type === "dashboard.update" && f.widget_id === "rs_chart" && f.msg.payload === 50);
  expect(next.state.points.map((p: { y: number }) => p.y)).toEqual([30, 40, 50]);
  again.ws.close();
});
