import { expect, type APIRequestContext, type Frame, type Page, type WebSocket } from "@playwright/test";
import { PASSWORD, registerViaApi, uniqueEmail } from "./accounts";
import { waitForMail } from "./outbox";

export interface ApiUser {
  email: string;
  token: string;
  organizationId: string;
  userId: string;
}

/** Logs in through the REST API (into `organizationId` when given) and returns a bearer token. */
export async function apiLogin(request: APIRequestContext, email: string, organizationId?: string): Promise<ApiUser> {
  const res = await request.post("/api/v1/auth/login", { data: { email, password: PASSWORD, ...(organizationId ? { organization_id: organizationId } : {}) } });
  expect(res.status(), await res.text()).toBe(200);
  const body = await res.json();
  return { email, token: body.access_token, organizationId: body.user.organization_id, userId: body.user.id };
}

export async function registerUser(request: APIRequestContext, label: string): Promise<ApiUser> {
  const email = uniqueEmail(label);
  await registerViaApi(request, email);
  return apiLogin(request, email);
}

/** A new user who joins `owner`'s organization with `role` (invitation by mail, accepted through the API). */
export async function joinAs(request: APIRequestContext, owner: ApiUser, role: "viewer" | "member", label: string): Promise<ApiUser> {
  const user = await registerUser(request, label);
  const invited = await request.post(`/api/v1/organizations/${owner.organizationId}/invitations`, { headers: auth(owner), data: { email: user.email, role } });
  expect(invited.status(), await invited.text()).toBe(201);
  const mail = await waitForMail(user.email, /invited you to/);
  const token = decodeURIComponent(/\/invitations\/accept\?token=([\w%-]+)/.exec(mail.text)![1]!);
  const accepted = await request.post("/api/v1/invitations/accept", { headers: auth(user), data: { token } });
  expect(accepted.status(), await accepted.text()).toBe(200);
  // Logging in to the organization makes it the one the next (browser) login lands in.
  return apiLogin(request, user.email, owner.organizationId);
}

export const auth = (user: ApiUser) => ({ authorization: `Bearer ${user.token}` });

/** inject → function (sets its status, tags the payload with `tag`) → debug, with ids unique to this run. */
export function liveFlow(tag: string) {
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const ids = { inject: `inj-${suffix}`, fn: `fn-${suffix}`, debug: `dbg-${suffix}` };
  return {
    ids,
    graph: (version: string) => ({
      nodes: [
        { id: ids.inject, type: "inject", name: "tick", position: { x: 80, y: 120 }, config: { payload_type: "string", payload: "hello", topic: "greeting" } },
        {
          id: ids.fn,
          type: "function",
          name: "tagger",
          position: { x: 330, y: 120 },
          config: { code: `node.status({ fill: "green", shape: "dot", text: "${version}: " + msg.payload }); msg.payload = { version: "${version}", said: msg.payload }; return msg;` },
        },
        { id: ids.debug, type: "debug", name: "out", position: { x: 580, y: 120 } },
      ],
      connections: [
        { source: ids.inject, target: ids.fn },
        { source: ids.fn, target: ids.debug },
      ],
    }),
    tag,
  };
}

export async function createFlow(request: APIRequestContext, user: ApiUser, name: string, graph: unknown): Promise<{ id: string; revision: number }> {
  const res = await request.post("/api/v1/flows", { headers: auth(user), data: { name, ...(graph as object) } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).flow;
}

export async function getFlow(request: APIRequestContext, user: ApiUser, id: string) {
  const res = await request.get(`/api/v1/flows/${id}`, { headers: auth(user) });
  expect(res.status()).toBe(200);
  return (await res.json()).flow;
}

/**
 * Reloads the page and resolves once the reloaded document's socket (/ws) has said `ready`. Only a
 * socket opened after the new document committed counts: the old document can still open one as
 * the reload starts (a page reached by a client-side link opens its socket late), and that one
 * dies with it, never ready (a CI run waited on it until the test's timeout).
 */
export async function reloadUntilLive(page: Page): Promise<void> {
  let committed = false;
  const onNavigated = (frame: Frame) => {
    if (frame === page.mainFrame()) committed = true;
  };
  let resolveReady = () => {};
  const ready = new Promise<void>((resolve) => (resolveReady = resolve));
  const onSocket = (ws: WebSocket) => {
    if (!committed || !ws.url().endsWith("/ws")) return;
    ws.on("framereceived", (f) => {
      if (String(f.payload).includes('"type":"ready"')) resolveReady();
    });
  };
  page.on("framenavigated", onNavigated);
  page.on("websocket", onSocket);
  try {
    await page.reload();
    await ready;
  } finally {
    page.off("framenavigated", onNavigated);
    page.off("websocket", onSocket);
  }
}
