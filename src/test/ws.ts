import http from "node:http";
import { afterAll, beforeAll } from "vitest";
import type { FileApp } from "./set-up-test-app";
import type { AddressInfo } from "node:net";
import WebSocket from "ws";
import type { AppServices } from "@/server/app-services";
import { createRealtimeHub, type RealtimeHub } from "@/server/realtime/hub";
import { DeviceChannel } from "@/server/realtime/devices";
import { agentDeps } from "@/server/services/devices/agents";
import { actorName } from "@/server/services/flows/events";

/** The real hub on a real port (without Next), for WebSocket tests. */
export async function startHub(app: AppServices, options: { authTimeoutMs?: number } = {}) {
  const hub: RealtimeHub = createRealtimeHub({
    app,
    displayName: (userId) => actorName(app, userId),
    devices: new DeviceChannel(app.store, app.flowRuntime, agentDeps(app)),
    authTimeoutMs: options.authTimeoutMs,
  });
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  server.on("upgrade", (req, socket, head) => hub.handleUpgrade(req, socket, head));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`;
  return {
    url,
    hub,
    close: async () => {
      await hub.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The real hub for a whole test file, over its setUpTestApp: started in a beforeAll, closed in an
 * afterAll (before the app). Read `.url` inside tests.
 */
export function setUpTestHub(fileApp: FileApp, options: { authTimeoutMs?: number } = {}): { readonly url: string } {
  let hub: Awaited<ReturnType<typeof startHub>> | undefined;
  beforeAll(async () => {
    hub = await startHub(fileApp.app, options);
  });
  afterAll(async () => {
    await hub?.close();
  });
  return {
    get url() {
      if (!hub) throw new Error("setUpTestHub: the hub is not started yet (read it inside a test)");
      return hub.url;
    },
  };
}

export interface TestSocket {
  ws: WebSocket;
  frames: Array<Record<string, any>>;
  closed: Promise<{ code: number; reason: string }>;
  next(predicate: (f: Record<string, any>) => boolean, timeoutMs?: number): Promise<Record<string, any>>;
  send(frame: unknown): void;
}

export function connect(url: string, headers: Record<string, string> = {}): TestSocket {
  const ws = new WebSocket(url, { headers });
  const frames: Array<Record<string, any>> = [];
  const waiters: Array<{ predicate: (f: Record<string, any>) => boolean; resolve: (f: Record<string, any>) => void }> = [];
  ws.on("message", (data) => {
    const frame = JSON.parse(data.toString()) as Record<string, any>;
    frames.push(frame);
    for (const w of [...waiters]) {
      if (w.predicate(frame)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(frame);
      }
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })));
  ws.on("error", () => undefined);
  return {
    ws,
    frames,
    closed,
    next(predicate, timeoutMs = 5000) {
      const found = frames.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(frames).slice(0, 500)}`)), timeoutMs);
        waiters.push({ predicate, resolve: (f) => (clearTimeout(timer), resolve(f)) });
      });
    },
    send(frame) {
      const data = typeof frame === "string" ? frame : JSON.stringify(frame);
      if (ws.readyState === ws.OPEN) ws.send(data);
      else ws.once("open", () => ws.send(data));
    },
  };
}

/**
 * The app's upgrade routes on a real port (without Next): the hub at `/ws` and websocket-listener
 * nodes at `/ws/hooks/{slug}/{path}`, routed as the app server (src/server/http/app-server.ts) routes
 * them, with a test app of its own and limits a test may lower.
 */
export async function startUpgrades(app: AppServices, limits: Partial<import("@/server/http/socket-hooks").SocketHookLimits> = {}) {
  const { createSocketHooks } = await import("@/server/http/socket-hooks");
  const { routeUpgrade } = await import("@/server/http/upgrades");
  const hub: RealtimeHub = createRealtimeHub({ app, displayName: (userId) => actorName(app, userId), devices: new DeviceChannel(app.store, app.flowRuntime) });
  const socketHooks = createSocketHooks(app, { trustProxyHops: 0, maxFrameBytes: 1024 * 1024, maxSocketsPerOrganization: 1000, sendQueueBytes: 4 * 1024 * 1024, ...limits });
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  server.on(
    "upgrade",
    routeUpgrade([{ name: "hub", matches: (p) => p === "/ws", handle: (req, socket, head) => hub.handleUpgrade(req, socket, head) }, socketHooks.route], (_req, socket) => socket.destroy()),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    url: `${base}/ws`,
    hub,
    socketHooks,
    close: async () => {
      await socketHooks.close();
      await hub.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A plain WebSocket client of a listener: every frame it receives (text as strings, binary as Buffers). */
export function rawSocket(url: string, options: WebSocket.ClientOptions = {}) {
  const ws = new WebSocket(url, options);
  const frames: Array<string | Buffer> = [];
  const waiters: Array<() => void> = [];
  ws.on("message", (data, isBinary) => {
    const buf = Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
    frames.push(isBinary ? buf : buf.toString("utf8"));
    for (const w of waiters.splice(0)) w();
  });
  ws.on("error", () => undefined);
  const opened = new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("unexpected-response", (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    ws.once("error", reject);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })));
  return {
    ws,
    frames,
    opened,
    closed,
    /** Waits until `count` frames arrived (5 s). */
    async received(count: number, timeoutMs = 5000): Promise<Array<string | Buffer>> {
      const deadline = Date.now() + timeoutMs;
      while (frames.length < count) {
        if (Date.now() > deadline) throw new Error(`got ${frames.length} of ${count} frames: ${JSON.stringify(frames.map(String))}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 100);
          waiters.push(() => (clearTimeout(timer), resolve()));
        });
      }
      return frames.slice(0, count);
    },
  };
}

/** The status of a refused upgrade (or "open" when it was accepted). */
export function upgradeStatus(url: string): Promise<number | "open"> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on("open", () => {
      ws.close();
      resolve("open");
    });
    ws.on("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
    });
    ws.on("error", (err) => reject(err));
  });
}
