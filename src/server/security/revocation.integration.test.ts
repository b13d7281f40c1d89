/**
 * Issue 15 #7: revocations reach open WebSockets, and a deleted organization's flows and webhooks stop.
 */
import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { joinAs, signUp } from "@/test/accounts";
import { connect, setUpTestHub } from "@/test/ws";
import { handleWebhook } from "@/server/api/rest/webhook-handler";
import { WS_CLOSE } from "@/server/realtime/hub";
import { WS_LIMITS } from "@/shared/realtime";
import WebSocket from "ws";

const testApp = setUpTestApp();
const request = testApp.request;
const hub = setUpTestHub(testApp);

const ready = (f: Record<string, unknown>) => f.type === "ready";

describe("revoking an API key closes its sockets", () => {
  for (const kind of ["user", "device"] as const) {
    it(`a ${kind} key: the socket closes, other sockets of the organization stay`, async () => {
      const owner = await signUp(request);
      const created = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: `ws-${kind}`, kind } });
      expect(created.status, created.text).toBe(201);
      const keySocket = connect(hub.url, { "x-api-key": created.body.secret });
      await keySocket.next(ready);
      const ownerSocket = connect(hub.url, { authorization: `Bearer ${owner.accessToken}` });
      await ownerSocket.next(ready);

      expect((await request("DELETE", `/api-keys/${created.body.api_key.id}`, { token: owner.accessToken })).status).toBe(204);
      const closed = await Promise.race([keySocket.closed, new Promise<null>((r) => setTimeout(() => r(null), 3000))]);
      expect(closed).toEqual({ code: WS_CLOSE.unauthenticated, reason: "API key revoked" });
      expect(ownerSocket.ws.readyState).toBe(ownerSocket.ws.OPEN);
      ownerSocket.ws.close();
    });
  }
});

/** A running http-in → http-response flow of the owner's organization, and its webhook (answering 200). */
async function deployHookedFlow(owner: { accessToken: string; organizationId: string }) {
  const slug = (await testApp.app.db.prisma.organization.findUniqueOrThrow({ where: { id: owner.organizationId } })).slug;
  const [inId, outId] = [`in-${Date.now()}`, `out-${Date.now()}`];
  const flow = (await request("POST", "/flows", { token: owner.accessToken, body: { name: "hooked", nodes: [{ id: inId, type: "http-in", config: { method: "get", path: "/ping" } }, { id: outId, type: "http-response" }], connections: [{ source: inId, target: outId }] } })).body.flow;
  expect((await request("POST", `/flows/${flow.id}/deploy`, { token: owner.accessToken })).body.deployment.state).toBe("running");
  const webhook = () => handleWebhook(testApp.app, new Request(`http://app.test/hooks/${slug}/ping`), slug, ["ping"]);
  expect((await webhook()).status).toBe(200);
  return { flow, webhook };
}

describe("deleting an organization", () => {
  it("closes its sockets, stops its flows and makes its webhooks answer 404", async () => {
    const owner = await signUp(request);
    const bystander = await signUp(request);
    const { flow, webhook } = await deployHookedFlow(owner);

    const device = (await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "dev", kind: "device" } })).body.secret;
    const sockets = [connect(hub.url, { authorization: `Bearer ${owner.accessToken}` }), connect(hub.url, { "x-api-key": device })];
    for (const s of sockets) await s.next(ready);
    const other = connect(hub.url, { authorization: `Bearer ${bystander.accessToken}` });
    await other.next(ready);

    expect((await request("DELETE", `/organizations/${owner.organizationId}`, { token: owner.accessToken })).status).toBe(204);
    for (const s of sockets) {
      const closed = await Promise.race([s.closed, new Promise<null>((r) => setTimeout(() => r(null), 3000))]);
      expect(closed).toEqual({ code: WS_CLOSE.unauthenticated, reason: "organization deleted" });
    }
    expect(other.ws.readyState).toBe(other.ws.OPEN);
    expect(await testApp.app.flowRuntime.placement(flow.id)).toBeNull();
    expect((await webhook()).status).toBe(404);
    other.ws.close();
  });
});

describe("deleting the account of an organization's only member", () => {
  it("stops the organization's flows too: its webhooks answer 404", async () => {
    const owner = await signUp(request);
    const { flow, webhook } = await deployHookedFlow(owner);
    const socket = connect(hub.url, { authorization: `Bearer ${owner.accessToken}` });
    await socket.next(ready);

    const deleted = await request("DELETE", "/auth/profile", { token: owner.accessToken, body: { password: owner.password } });
    expect(deleted.status, deleted.text).toBe(204);
    expect(await testApp.app.flowRuntime.placement(flow.id)).toBeNull();
    expect((await webhook()).status).toBe(404);
    const closed = await Promise.race([socket.closed, new Promise<null>((r) => setTimeout(() => r(null), 3000))]);
    expect(closed?.code).toBe(WS_CLOSE.unauthenticated);
  });
});

describe("unauthenticated WebSocket upgrades are bounded per IP", () => {
  it(`past ${WS_LIMITS.maxUnauthenticatedPerIp} sockets waiting to authenticate, the upgrade answers 429; an authenticated one frees a slot`, async () => {
    const user = await signUp(request);
    const waiting = Array.from({ length: WS_LIMITS.maxUnauthenticatedPerIp }, () => connect(hub.url));
    await Promise.all(waiting.map((s) => new Promise<void>((resolve) => (s.ws.readyState === s.ws.OPEN ? resolve() : s.ws.once("open", () => resolve())))));
    const refused = new WebSocket(hub.url);
    const status = await new Promise<number>((resolve) => {
      refused.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      refused.on("open", () => resolve(101));
      refused.on("error", () => undefined);
    });
    expect(status).toBe(429);
    // A client that authenticates is no longer counted.
    waiting[0]!.send({ type: "auth", token: user.accessToken });
    await waiting[0]!.next(ready);
    const next = connect(hub.url);
    await new Promise<void>((resolve, reject) => {
      next.ws.once("open", () => resolve());
      next.ws.once("unexpected-response", () => reject(new Error("refused")));
    });
    for (const s of [...waiting, next]) s.ws.close();
  });
});

/** Resolves with the close, or null if the socket is still open after `ms`. */
const closedWithin = (socket: { closed: Promise<{ code: number; reason: string }> }, ms: number) =>
  Promise.race([socket.closed, new Promise<null>((r) => setTimeout(() => r(null), ms))]);

describe("access taken away reaches open sockets within a second (issue 28, finding 1)", () => {
  it("removing a member closes their bearer and API-key sockets; the owner's stays", async () => {
    const owner = await signUp(request);
    const member = await joinAs(testApp.app, request, owner, "member");
    const key = await request("POST", "/api-keys", { token: member.token, body: { name: "member-key" } });
    expect(key.status, key.text).toBe(201);
    const keySocket = connect(hub.url, { "x-api-key": key.body.secret });
    const bearerSocket = connect(hub.url, { authorization: `Bearer ${member.token}` });
    const ownerSocket = connect(hub.url, { authorization: `Bearer ${owner.accessToken}` });
    await Promise.all([keySocket.next(ready), bearerSocket.next(ready), ownerSocket.next(ready)]);

    const removed = await request("DELETE", `/organizations/${owner.organizationId}/members/${member.userId}`, { token: owner.accessToken });
    expect(removed.status, removed.text).toBe(204);
    const [keyClosed, bearerClosed] = await Promise.all([closedWithin(keySocket, 1500), closedWithin(bearerSocket, 1500)]);
    expect(keyClosed?.code).toBe(WS_CLOSE.unauthenticated);
    expect(bearerClosed?.code).toBe(WS_CLOSE.unauthenticated);
    // The removed member's key gets no more of the organization's events: its socket is gone.
    expect(ownerSocket.ws.readyState).toBe(ownerSocket.ws.OPEN);
    ownerSocket.ws.close();
  });

  it("demoting the admin who made a device key closes the device's socket (a member may not connect devices)", async () => {
    const owner = await signUp(request);
    const admin = await joinAs(testApp.app, request, owner, "admin");
    const device = await request("POST", "/api-keys", { token: admin.token, body: { name: "sensor", kind: "device" } });
    expect(device.status, device.text).toBe(201);
    const deviceSocket = connect(hub.url, { "x-api-key": device.body.secret });
    await deviceSocket.next(ready);
    const demoted = await request("PATCH", `/organizations/${owner.organizationId}/members/${admin.userId}`, { token: owner.accessToken, body: { role: "member" } });
    expect(demoted.status, demoted.text).toBe(200);
    expect((await closedWithin(deviceSocket, 1500))?.code).toBe(WS_CLOSE.unauthenticated);
  });

  it("a role change that keeps access updates the socket's principal instead of closing it", async () => {
    const owner = await signUp(request);
    const member = await joinAs(testApp.app, request, owner, "member");
    const socket = connect(hub.url, { authorization: `Bearer ${member.token}` });
    await socket.next(ready);
    const changed = await request("PATCH", `/organizations/${owner.organizationId}/members/${member.userId}`, { token: owner.accessToken, body: { role: "viewer" } });
    expect(changed.status, changed.text).toBe(200);
    // Viewers still read events: the socket stays, and keeps receiving them.
    expect(await closedWithin(socket, 800)).toBeNull();
    const flow = await request("POST", "/flows", { token: owner.accessToken, body: { name: "seen by a viewer" } });
    await socket.next((f) => f.type === "event" && f.topic === "flow.created" && f.flow_id === flow.body.flow.id);
    socket.ws.close();
  });

  it("an API key's socket closes when the key expires, by a timer at expires_at", async () => {
    const owner = await signUp(request);
    const key = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "brief", expires_at: new Date(Date.now() + 1500).toISOString() } });
    expect(key.status, key.text).toBe(201);
    const socket = connect(hub.url, { "x-api-key": key.body.secret });
    await socket.next(ready);
    const started = Date.now();
    const closed = await closedWithin(socket, 4000);
    expect(closed).toEqual({ code: WS_CLOSE.unauthenticated, reason: "TOKEN_EXPIRED" });
    expect(Date.now() - started).toBeLessThan(3500);
  });

  it("deleting the account closes its sockets opened with an API key", async () => {
    const owner = await signUp(request);
    const member = await joinAs(testApp.app, request, owner, "member");
    const key = await request("POST", "/api-keys", { token: member.token, body: { name: "mine" } });
    const socket = connect(hub.url, { "x-api-key": key.body.secret });
    await socket.next(ready);
    const deleted = await request("DELETE", "/auth/profile", { token: member.token, body: { password: member.password } });
    expect(deleted.status, deleted.text).toBe(204);
    expect((await closedWithin(socket, 1500))?.code).toBe(WS_CLOSE.unauthenticated);
  });
});

describe("a socket is one identity for its whole life", () => {
  it("re-authenticating with another key closes with 4403, so the first key's revocation cannot be escaped", async () => {
    const owner = await signUp(request);
    const [d1, d2] = await Promise.all(
      ["sensor-1", "sensor-2"].map((name) => request("POST", "/api-keys", { token: owner.accessToken, body: { name, kind: "device" } })),
    );
    const socket = connect(hub.url, { "x-api-key": d1!.body.secret });
    await socket.next(ready);
    socket.send({ type: "auth", token: d2!.body.secret });
    expect(await closedWithin(socket, 1500)).toEqual({ code: WS_CLOSE.forbidden, reason: "re-authentication must keep the same organization, user and key" });
  });

  it("re-authenticating with a fresh token of the same user keeps the socket", async () => {
    const owner = await signUp(request);
    const socket = connect(hub.url, { authorization: `Bearer ${owner.accessToken}` });
    await socket.next(ready);
    const refreshed = await request("POST", "/auth/refresh", { body: { refresh_token: owner.refreshToken } });
    expect(refreshed.status, refreshed.text).toBe(200);
    socket.send({ type: "auth", token: refreshed.body.access_token });
    await socket.next((f) => f.type === "ready" && socket.frames.filter((g) => g.type === "ready").length === 2);
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
    socket.ws.close();
  });
});
