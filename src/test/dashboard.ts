import http from "node:http";
import type { AddressInfo } from "node:net";
import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, expect } from "vitest";
import type { AppServices } from "@/server/app-services";
import type { FileApp } from "./set-up-test-app";
import type { restClient } from "./app";

type Request = ReturnType<typeof restClient>;
import { nextAuthSecret } from "@/server/auth/browser-session";
import { createDashboardSocketServer, dashboardSlugOf, type DashboardSocketOptions, type DashboardSocketServer } from "@/server/dashboards/socket";
import { DASHBOARD_SOCKET_PATH } from "@/shared/dashboard";

/** The dashboard socket on a real port (without Next), for tests: as src/server.ts mounts it. */
export async function startDashboardSockets(app: AppServices, options: DashboardSocketOptions = {}) {
  const sockets: DashboardSocketServer = createDashboardSocketServer(app, options);
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  server.on("upgrade", (req, socket, head) => {
    if (dashboardSlugOf(new URL(req.url ?? "/", "http://localhost").pathname) !== null) sockets.handleUpgrade(req, socket, head);
    else socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}${DASHBOARD_SOCKET_PATH}`;
  return {
    sockets,
    /** The socket URL of a page: `/ws/dashboard/{slug}?path=…[&share=…]`. */
    url: (slug: string, path: string, share?: string) => `${base}/${encodeURIComponent(slug)}?path=${encodeURIComponent(path)}${share ? `&share=${encodeURIComponent(share)}` : ""}`,
    close: async () => {
      await sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function setUpDashboardSockets(fileApp: FileApp, options: DashboardSocketOptions = {}) {
  let started: Awaited<ReturnType<typeof startDashboardSockets>> | undefined;
  beforeAll(async () => {
    started = await startDashboardSockets(fileApp.app, options);
  });
  afterAll(async () => {
    await started?.close();
  });
  return {
    url: (slug: string, path: string, share?: string) => started!.url(slug, path, share),
    get sockets() {
      return started!.sockets;
    },
  };
}

/** The browser's next-auth cookie for a session (as signed in through the UI). */
export async function sessionCookie(app: AppServices, user: { userId: string; sessionId: string }): Promise<Record<string, string>> {
  const token = await encode({ token: { sub: user.userId, sid: user.sessionId }, secret: nextAuthSecret(app) });
  return { cookie: `next-auth.session-token=${token}`, origin: new URL(app.config.publicUrl).origin };
}

/**
 * A dashboard over REST, as a user builds one: ui-base, ui-page at `path`, ui-group, and a flow
 * ui-button → function (payload "pressed by …") → ui-text, deployed.
 */
export async function buildButtonTextDashboard(request: Request, token: string, options: { path?: string; prefix?: string } = {}) {
  const p = options.prefix ?? "d";
  const post = async (body: Record<string, unknown>) => {
    const res = await request("POST", "/config-nodes", { token, body });
    expect(res.status, res.text).toBe(201);
    return res.body.config_node.id as string;
  };
  const base = await post({ type: "ui-base", name: "Plant", config: {} });
  const theme = await post({ type: "ui-theme", name: "Dark", config: { colors: { surface: "#111111", primary: "#ff8800", bgPage: "#000000", groupBg: "#222222", groupOutline: "#333333" } } });
  const page = await post({ type: "ui-page", name: "Home", config: { ui: base, path: options.path ?? "/home", theme, order: 1 } });
  const group = await post({ type: "ui-group", name: "Controls", config: { page, width: 6, order: 1 } });
  const created = await request("POST", "/flows", {
    token,
    body: {
      name: "dashboard flow",
      nodes: [
        { id: `${p}_btn`, type: "ui-button", position: { x: 0, y: 0 }, config: { group, label: "Press", payload: "button", payloadType: "str", topic: "press", topicType: "str", order: 1 } },
        // Output 1 keeps msg._client (the answer goes to the viewer who clicked); output 2 drops it (every viewer, kept).
        {
          id: `${p}_fn`,
          type: "function",
          position: { x: 200, y: 0 },
          config: {
            outputs: 2,
            code: "msg.payload = 'pressed: ' + msg.payload + ' by ' + (msg._client && msg._client.socketId ? 'a viewer' : 'nobody'); const all = Object.assign({}, msg); delete all._client; return [msg, all];",
          },
        },
        { id: `${p}_txt`, type: "ui-text", position: { x: 400, y: 0 }, config: { group, label: "Answer", order: 2 } },
        { id: `${p}_all`, type: "ui-text", position: { x: 400, y: 100 }, config: { group, label: "Last press", order: 3 } },
      ],
      connections: [
        { source: `${p}_btn`, target: `${p}_fn` },
        { source: `${p}_fn`, target: `${p}_txt`, source_port: 0 },
        { source: `${p}_fn`, target: `${p}_all`, source_port: 1 },
      ],
    },
  });
  expect(created.status, created.text).toBe(201);
  const flowId = created.body.flow.id as string;
  const deployed = await request("POST", `/flows/${flowId}/deploy`, { token });
  expect(deployed.status, deployed.text).toBe(200);
  return { base, theme, page, group, flowId, button: `${p}_btn`, fn: `${p}_fn`, text: `${p}_txt`, all: `${p}_all` };
}
