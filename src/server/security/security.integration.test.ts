/**
 * Issue 15: each finding, through the door an attacker uses (REST, /hooks, a deployed flow).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { joinAs, signUp } from "@/test/accounts";
import { handleWebhook } from "@/server/api/rest/webhook-handler";
import { createTrpcHandler } from "@/server/api/trpc-handler";
import { SessionStore } from "@/server/auth/session-store";
import { orgEventsChannel } from "@/shared/realtime";
import { eventLines } from "@/server/realtime/org-events";

const testApp = setUpTestApp();
const request = testApp.request;
let user: Awaited<ReturnType<typeof signUp>>;

beforeAll(async () => {
  user = await signUp(request);
});

const trpcPost = (req: Request) => createTrpcHandler(async () => testApp.app)(req);

let seq = 0;
const uid = (p: string) => `${p}-${Date.now().toString(36)}-${++seq}`;

async function slugOf(organizationId: string): Promise<string> {
  return (await testApp.app.db.prisma.organization.findUniqueOrThrow({ where: { id: organizationId } })).slug;
}

/** Creates and deploys a flow; returns its id. */
async function deploy(token: string, nodes: unknown[], connections: unknown[] = []): Promise<string> {
  const created = await request("POST", "/flows", { token, body: { name: uid("flow"), nodes, connections } });
  expect(created.status, created.text).toBe(201);
  const dep = await request("POST", `/flows/${created.body.flow.id}/deploy`, { token });
  expect(dep.status, dep.text).toBe(200);
  expect(dep.body.deployment.state).toBe("running");
  return created.body.flow.id as string;
}

function webhook(slug: string, path: string, init: RequestInit = {}) {
  const segments = path.split("/").filter(Boolean);
  return handleWebhook(testApp.app, new Request(`http://app.test/hooks/${slug}/${segments.join("/")}`, init), slug, segments);
}

describe("1. prototype pollution", () => {
  it("a change node `delete __proto__.hasOwnProperty` is refused at save with 400, in every path field", async () => {
    const bad = [
      { type: "change", config: { rules: [{ t: "delete", p: "__proto__.hasOwnProperty" }] } },
      { type: "change", config: { rules: [{ t: "set", p: "payload.constructor.prototype.x", to: "1" }] } },
      { type: "change", config: { rules: [{ t: "move", p: "payload", to: "__proto__" }] } },
      { type: "switch", config: { property: "__proto__" } },
      { type: "json", config: { property: "constructor" } },
      { type: "template", config: { field: "prototype" } },
    ];
    for (const node of bad) {
      const res = await request("POST", "/flows", { token: user.accessToken, body: { name: uid("evil"), nodes: [{ id: uid("n"), ...node }] } });
      expect(res.status, JSON.stringify(node)).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
    }
    expect(({} as Record<string, unknown>).hasOwnProperty).toBe(Object.prototype.hasOwnProperty);
  });
});

describe("2. webhooks cannot act on the app's origin", () => {
  it("an HTML answer with a script and Set-Cookie is sandboxed, keeps no cookie and never sniffs", async () => {
    const [inId, outId] = [uid("in"), uid("out")];
    const slug = await slugOf(user.organizationId);
    await deploy(
      user.accessToken,
      [
        { id: inId, type: "http-in", config: { method: "get", path: "/page" } },
        { id: uid("chg"), type: "change", config: { rules: [
          { t: "set", p: "payload", to: "<script>fetch('/api/trpc/apiKeys.create',{method:'POST'})</script>" },
          { t: "set", p: "headers", to: JSON.stringify({ "Content-Type": "text/html", "Set-Cookie": "next-auth.session-token=evil; Path=/", "Access-Control-Allow-Credentials": "true", "Access-Control-Allow-Origin": "https://evil.example", "Content-Security-Policy": "default-src *", "Clear-Site-Data": "\"cookies\"", "X-Custom": "ok", "X-Accel-Redirect": "/internal/secret", "X-Accel-Buffering": "no", "X-Sendfile": "/etc/passwd", "X-LiteSpeed-Location": "/internal", "X-Price": "10 €" }), to_type: "json" },
        ] } },
        { id: outId, type: "http-response", config: {} },
      ],
      [],
    ).then(async (flowId) => {
      // Wire in → change → out (ids known only now).
      const flow = (await request("GET", `/flows/${flowId}`, { token: user.accessToken })).body.flow;
      const [a, b, c] = flow.nodes.map((n: { id: string }) => n.id);
      const put = await request("PUT", `/flows/${flowId}`, { token: user.accessToken, body: { connections: [{ source: a, target: b }, { source: b, target: c }] } });
      expect(put.status, put.text).toBe(200);
      expect((await request("POST", `/flows/${flowId}/deploy`, { token: user.accessToken })).status).toBe(200);
    });
    const res = await webhook(slug, "/page");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("<script>");
    expect(res.headers.get("content-type")).toBe("text/html");
    expect(res.headers.get("content-security-policy")).toMatch(/^sandbox;.*default-src 'none'/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(res.headers.get("clear-site-data")).toBeNull();
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    expect(res.headers.get("access-control-allow-origin")).toBe("https://evil.example");
    expect(res.headers.get("x-custom")).toBe("ok");
    // Headers a reverse proxy would act on (nginx's internal redirects, sendfile) never leave, and
    // a value that is not Latin-1 is dropped rather than answered with a 500.
    for (const name of ["x-accel-redirect", "x-accel-buffering", "x-sendfile", "x-litespeed-location", "x-price"]) expect(res.headers.get(name), name).toBeNull();
  });

  it("an http-response node configured with a proxy header or a value that is not Latin-1 is refused at save", async () => {
    for (const headers of [{ "X-Accel-Redirect": "/internal" }, { "x-sendfile": "/etc/passwd" }, { "X-LiteSpeed-Location": "/x" }, { "X-Price": "10 €" }, { "X-Emoji": "🙂" }]) {
      const res = await request("POST", "/flows", { token: user.accessToken, body: { name: uid("proxy"), nodes: [{ id: uid("out"), type: "http-response", config: { headers } }] } });
      expect(res.status, JSON.stringify(headers)).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
    }
    const latin1 = await request("POST", "/flows", { token: user.accessToken, body: { name: uid("latin1"), nodes: [{ id: uid("out"), type: "http-response", config: { headers: { "X-Price": "10 £" } } }] } });
    expect(latin1.status, latin1.text).toBe(201);
  });

  it("an http-response node configured with Set-Cookie is refused at save", async () => {
    const res = await request("POST", "/flows", { token: user.accessToken, body: { name: uid("cookie"), nodes: [{ id: uid("out"), type: "http-response", config: { headers: { "Set-Cookie": "a=b" } } }] } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_FAILED");
  });

  it("the caller's Cookie, Authorization and X-API-Key never reach the flow", async () => {
    const [inId, dbgId] = [uid("in"), uid("dbg")];
    const slug = await slugOf(user.organizationId);
    await deploy(user.accessToken, [
      { id: inId, type: "http-in", config: { method: "post", path: "/echo-headers" } },
      { id: dbgId, type: "debug", config: { property: "req.headers" } },
    ], [{ source: inId, target: dbgId }]);
    const events: Array<{ topic: string; data: Record<string, unknown> }> = [];
    const unsubscribe = await testApp.app.store.subscribe(orgEventsChannel(user.organizationId), (m) => events.push(...eventLines(m).map((line) => JSON.parse(line))));
    void webhook(slug, "/echo-headers", { method: "POST", headers: { cookie: "next-auth.session-token=secret", authorization: "Bearer secret", "x-api-key": "fp_secret", "x-other": "kept" }, body: "{}" });
    await expect.poll(() => events.filter((e) => e.topic === "debug" && e.data.node_id === dbgId).length).toBe(1);
    const headers = events.find((e) => e.topic === "debug" && e.data.node_id === dbgId)!.data.msg as Record<string, string>;
    expect(headers["x-other"]).toBe("kept");
    expect(headers).not.toHaveProperty("cookie");
    expect(headers).not.toHaveProperty("authorization");
    expect(headers).not.toHaveProperty("x-api-key");
    await unsubscribe();
  });

  it("msg.req.cookies is always empty, whatever cookies the caller sends", async () => {
    const [inId, dbgId] = [uid("in"), uid("dbg")];
    const slug = await slugOf(user.organizationId);
    await deploy(user.accessToken, [
      { id: inId, type: "http-in", config: { method: "post", path: "/echo-cookies" } },
      { id: dbgId, type: "debug", config: { property: "req.cookies" } },
    ], [{ source: inId, target: dbgId }]);
    const events: Array<{ topic: string; data: Record<string, unknown> }> = [];
    const unsubscribe = await testApp.app.store.subscribe(orgEventsChannel(user.organizationId), (m) => events.push(...eventLines(m).map((line) => JSON.parse(line))));
    void webhook(slug, "/echo-cookies", { method: "POST", headers: { cookie: "next-auth.session-token=secret; theme=dark" }, body: "{}" });
    await expect.poll(() => events.filter((e) => e.topic === "debug" && e.data.node_id === dbgId).length).toBe(1);
    expect(events.find((e) => e.topic === "debug" && e.data.node_id === dbgId)!.data.msg).toEqual({});
    await unsubscribe();
  });
});

describe("3. pending webhook responses are bound to their flow and organization", () => {
  it("a flow of organization B cannot answer organization A's pending request, even knowing its id", async () => {
    const other = await signUp(request);
    const slug = await slugOf(user.organizationId);
    const [inId, dbgId] = [uid("in"), uid("dbg")];
    await deploy(user.accessToken, [
      { id: inId, type: "http-in", config: { method: "post", path: "/slow" } },
      { id: dbgId, type: "debug", config: { property: "res._id" } },
    ], [{ source: inId, target: dbgId }]);
    const events: Array<{ topic: string; data: Record<string, unknown> }> = [];
    const unsubscribe = await testApp.app.store.subscribe(orgEventsChannel(user.organizationId), (m) => events.push(...eventLines(m).map((line) => JSON.parse(line))));
    let answered: Response | undefined;
    void webhook(slug, "/slow", { method: "POST", body: "x" }).then((r) => (answered = r));
    await expect.poll(() => events.find((e) => e.topic === "debug" && e.data.node_id === dbgId)).toBeTruthy();
    const resId = events.find((e) => e.topic === "debug" && e.data.node_id === dbgId)!.data.msg as string;
    expect(resId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    await unsubscribe();

    // Organization B forges msg.res._id and sends it to its own http-response.
    const [injId, chgId, outId] = [uid("inj"), uid("chg"), uid("out")];
    const bEvents: Array<{ topic: string; data: Record<string, unknown> }> = [];
    const unsubscribeB = await testApp.app.store.subscribe(orgEventsChannel(other.organizationId), (m) => bEvents.push(...eventLines(m).map((line) => JSON.parse(line))));
    await deploy(other.accessToken, [
      { id: injId, type: "inject" },
      { id: chgId, type: "change", config: { rules: [{ t: "set", p: "res._id", to: resId }, { t: "set", p: "payload", to: "pwned" }] } },
      { id: outId, type: "http-response", config: {} },
    ], [{ source: injId, target: chgId }, { source: chgId, target: outId }]);
    expect((await request("POST", `/nodes/${injId}/inject`, { token: other.accessToken, body: {} })).status).toBe(200);
    await expect.poll(() => bEvents.some((e) => e.topic === "node.status" && e.data.node_id === outId && JSON.stringify(e.data).includes("no HTTP request"))).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    expect(answered).toBeUndefined();
    await unsubscribeB();
  });
});

describe("5. webhook bodies are limited while streaming", () => {
  it("no listener: 404 without reading the body", async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const res = await webhook(await slugOf(user.organizationId), "/nobody-here", { method: "POST", body, duplex: "half" } as RequestInit);
    expect(res.status).toBe(404);
    expect(pulled).toBeLessThanOrEqual(1);
    expect(res.headers.get("content-security-policy")).toMatch(/^sandbox/);
  });

  it("a chunked body past 1 MiB answers 413 early, without reading the rest", async () => {
    const inId = uid("in");
    const slug = await slugOf(user.organizationId);
    await deploy(user.accessToken, [{ id: inId, type: "http-in", config: { method: "post", path: "/upload" } }, { id: uid("out"), type: "http-response" }]);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 64 * 1024;
        if (sent > 200 * 1024 * 1024) controller.close();
        else controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const res = await webhook(slug, "/upload", { method: "POST", body, duplex: "half" } as RequestInit);
    expect(res.status).toBe(413);
    expect(sent).toBeLessThan(2 * 1024 * 1024);
  });
});

describe("5. /api/trpc bodies are limited while streaming", () => {
  function endless(counter: { sent: number }) {
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        counter.sent += 64 * 1024;
        if (counter.sent > 100 * 1024 * 1024) controller.close();
        else controller.enqueue(new TextEncoder().encode(" ".repeat(64 * 1024)));
      },
    });
  }

  it("past 1 MiB on an ordinary procedure: 413 early", async () => {
    const counter = { sent: 0 };
    const res = await trpcPost(new Request("http://app.test/api/trpc/apiKeys.create", { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${user.accessToken}` }, body: endless(counter), duplex: "half" } as RequestInit));
    expect(res.status).toBe(413);
    expect(counter.sent).toBeLessThan(2 * 1024 * 1024);
  });

  it("flows get 5 MiB: 2 MiB passes the limit on flows.create, and 6 MiB does not", async () => {
    const big = (n: number) => JSON.stringify({ name: "big", description: "x".repeat(n) });
    const call = (body: string) =>
      trpcPost(new Request("http://app.test/api/trpc/flows.create", { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${user.accessToken}` }, body }));
    expect((await call(big(2 * 1024 * 1024))).status).not.toBe(413);
    expect((await call(big(6 * 1024 * 1024))).status).toBe(413);
  });
});

describe("6. compare-and-set session renewal", () => {
  it("a renewal racing a revocation never brings the session back", async () => {
    const victim = await signUp(request);
    const sessions = new SessionStore(testApp.app.store);
    const inFlight = await sessions.get(victim.sessionId);
    expect(inFlight).not.toBeNull();
    // The session is revoked (logout elsewhere, password change) while a request holding `inFlight` still runs.
    expect((await request("POST", "/auth/logout", { token: victim.accessToken })).status).toBe(204);
    expect(await sessions.touch(inFlight!)).toBeNull();
    expect(await sessions.get(victim.sessionId)).toBeNull();
    expect((await request("GET", "/auth/profile", { token: victim.accessToken })).status).toBe(401);
    expect((await request("GET", "/auth/sessions", { token: victim.accessToken })).status).toBe(401);
  });
});

describe("8. races and 500s", () => {
  it("two owners demoting each other at once leave exactly one owner", async () => {
    const owner = await signUp(request);
    const second = await joinAs(testApp.app, request, owner, "owner");
    const [a, b] = await Promise.all([
      request("PATCH", `/organizations/${owner.organizationId}/members/${second.userId}`, { token: owner.accessToken, body: { role: "admin" } }),
      request("PATCH", `/organizations/${owner.organizationId}/members/${owner.userId}`, { token: second.token, body: { role: "admin" } }),
    ]);
    expect([a.status, b.status].filter((s) => s === 200)).toHaveLength(1);
    const refused = [a, b].find((r) => r.status !== 200)!;
    expect([403, 409]).toContain(refused.status);
    expect(["LAST_OWNER", "FORBIDDEN"]).toContain(refused.body.error.code);
    const owners = await testApp.app.db.prisma.membership.count({ where: { organizationId: owner.organizationId, role: "owner" } });
    expect(owners).toBe(1);
  });

  it("malformed percent-encoding in a path answers 400", async () => {
    const res = await request("GET", "/flows/%E0%A4%A", { token: user.accessToken });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_FAILED");
  });

  it("crafted cursors answer 400 on flows, deployments and the audit log", async () => {
    const flowId = await deploy(user.accessToken, [{ id: uid("inj"), type: "inject" }]);
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
    const cursors = [b64([1e20, "a"]), b64(["x", 1]), b64([1, "a", 3]), b64({}), "!!!not-base64!!!", Buffer.from("garbage").toString("base64url"), b64([1.5, "a"])];
    for (const cursor of cursors) {
      for (const path of ["/flows?limit=2&cursor=", `/flows/${flowId}/deployments?limit=2&cursor=`, "/audit-log?limit=2&cursor="]) {
        const res = await request("GET", `${path}${encodeURIComponent(cursor)}`, { token: user.accessToken });
        expect(res.status, `${path}${cursor}: ${res.text}`).toBe(400);
        expect(res.body.error.code).toBe("VALIDATION_FAILED");
      }
    }
  });

  it("U+0000 anywhere in any input is refused with 400 VALIDATION_FAILED before anything is stored", async () => {
    const key = await request("POST", "/api-keys", { token: user.accessToken, body: { name: "\u0000" } });
    expect(key.status).toBe(400);
    expect(key.body.error).toMatchObject({ code: "VALIDATION_FAILED", details: [{ path: "name" }] });
    const flow = await request("POST", "/flows", { token: user.accessToken, body: { name: "ok", nodes: [{ id: uid("fn"), type: "function", config: { code: "return msg;\u0000" } }] } });
    expect(flow.status).toBe(400);
    expect(flow.body.error.details[0].path).toBe("nodes.0.config.code");
    const login = await request("POST", "/auth/login", { body: { email: "a\u0000@example.com", password: "x" } });
    expect(login.status).toBe(400);
    expect((await request("GET", "/flows/flw_%00", { token: user.accessToken })).status).toBe(400);
    const viaTrpc = await trpcPost(new Request("http://app.test/api/trpc/apiKeys.create", { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${user.accessToken}` }, body: JSON.stringify({ name: "a\u0000b" }) }));
    expect(viaTrpc.status).toBe(400);
  });
});

describe("round 3: input that used to answer 500 or commit half (issue 28, findings 4 and 6)", () => {
  const trpc = (path: string, body: unknown, token?: string) =>
    trpcPost(new Request(`http://app.test/api/trpc/${path}`, { method: "POST", headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: typeof body === "string" ? body : JSON.stringify(body) }));
  const flowCount = async (organizationId: string) => testApp.app.db.prisma.flow.count({ where: { organizationId } });

  it("a /api/trpc path that is not valid percent-encoding answers 400 in the error envelope, with or without credentials", async () => {
    const inits: RequestInit[] = [{ method: "POST", body: "{}", headers: { "content-type": "application/json" } }, { method: "GET" }, { method: "GET", headers: { authorization: `Bearer ${user.accessToken}` } }];
    for (const init of inits) {
      const res = await trpcPost(new Request("http://app.test/api/trpc/%E0%A4%A", init));
      expect(res.status, init.method).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("VALIDATION_FAILED");
    }
  });

  it("JSON nested deeper than 64 levels is refused with 400 at every door, before it is parsed", async () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const rest = await request("POST", "/flows", { token: user.accessToken, rawBody: `{"name":"deep","description":${deep}}`, headers: { "content-type": "application/json" } });
    expect(rest.status, rest.text).toBe(400);
    expect(rest.body.error).toEqual({ code: "VALIDATION_FAILED", message: "JSON values may nest at most 64 levels deep" });
    // 70 levels hiding a NUL: once past the NUL check's reach, now refused at the door.
    let nul: unknown = "a\u0000b";
    for (let i = 0; i < 70; i++) nul = { k: nul };
    const hidden = await request("POST", "/nodes/nope/inject", { token: user.accessToken, body: { payload: nul } });
    expect(hidden.status, hidden.text).toBe(400);
    expect((await trpc("flows.create", `{"name":"deep","description":${deep}}`, user.accessToken)).status).toBe(400);
    const getDeep = await trpcPost(new Request(`http://app.test/api/trpc/flows.list?input=${encodeURIComponent("[".repeat(200) + "]".repeat(200))}`, { headers: { authorization: `Bearer ${user.accessToken}` } }));
    expect(getDeep.status).toBe(400);
    const slug = await slugOf(user.organizationId);
    const inId = uid("in");
    await deploy(user.accessToken, [{ id: inId, type: "http-in", config: { method: "post", path: "/deep" } }]);
    const hook = await webhook(slug, "/deep", { method: "POST", headers: { "content-type": "application/json" }, body: deep });
    expect(hook.status).toBe(400);
    // At the limit it is still fine.
    const ok = await request("POST", "/flows", { token: user.accessToken, body: { name: uid("ok"), nodes: [{ type: "inject", config: { payload_type: "json", payload: "[".repeat(60) + "]".repeat(60) } }] } });
    expect(ok.status, ok.text).toBe(201);
  });

  it("import checks every flow exactly as create does and writes nothing when it answers 400", async () => {
    const owner = await signUp(request);
    const before = await flowCount(owner.organizationId);
    const tab = (id: string) => ({ id, type: "tab", label: id });
    const cases: Array<[string, string, RegExp]> = [
      ["2,500 nodes", JSON.stringify({ flows: [tab("big"), ...Array.from({ length: 2500 }, (_, i) => ({ id: `c${i}`, type: "comment", z: "big", x: 1, y: 1, wires: [] }))] }), /^flows\[0\]\.nodes: a flow holds at most 2,000 nodes/],
      ["a 1 MB node name", JSON.stringify({ flows: [tab("named"), { id: "n1", type: "comment", z: "named", name: "n".repeat(1_000_000), x: 1, y: 1, wires: [] }] }), /^flows\[0\]\.nodes\[0\]\.name:/],
      ["101 flows", JSON.stringify({ flows: Array.from({ length: 101 }, (_, i) => tab(`t${i}`)) }), /^flows: one import creates at most 100 flows/],
      // 1e999 is JSON for a number too large for a double: Infinity once parsed.
      ["an infinite position, after a valid tab", `{"flows":[{"id":"ok","type":"tab","label":"ok"},{"id":"fine","type":"comment","z":"ok","x":1,"y":1,"wires":[]},{"id":"inf","type":"tab","label":"inf"},{"id":"n2","type":"comment","z":"inf","x":1e999,"y":1,"wires":[]}]}`, /^flows\[1\]\.nodes\[0\]\.position\.x:/],
    ];
    for (const [what, body, message] of cases) {
      const res = await request("POST", "/flows/import", { token: owner.accessToken, rawBody: body, headers: { "content-type": "application/json" } });
      expect(res.status, `${what}: ${res.text.slice(0, 200)}`).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
      expect(res.body.error.message, what).toMatch(message);
    }
    expect(await flowCount(owner.organizationId)).toBe(before);
    expect((await request("GET", "/flows", { token: owner.accessToken })).status).toBe(200);
  });

  it("the clipboard: copySelection of a config its schema refuses and parseSelection of odd Node-RED JSON answer 400 or a warning, never 500", async () => {
    const flowId = await deploy(user.accessToken, [{ id: uid("inj"), type: "inject" }]);
    const copy = await trpc("flows.copySelection", { id: flowId, nodes: [{ id: "c1", type: "switch", name: "", position: { x: 0, y: 0 }, config: { rules: "not a list" }, disabled: false }], connections: [] }, user.accessToken);
    expect(copy.status).toBe(400);
    const nameTooLong = await trpc("flows.parseSelection", { flows: [{ id: "p1", type: "comment", name: "n".repeat(10_001), x: 1, y: 1, wires: [] }] }, user.accessToken);
    expect(nameTooLong.status).toBe(400);
    const odd = await trpc("flows.parseSelection", { flows: [{ id: "p2", type: "switch", rules: "not a list", x: 1, y: 1, wires: [] }, { id: "p3", type: "change", rules: { t: 5 }, x: 1, y: 1, wires: [] }] }, user.accessToken);
    expect(odd.status).toBe(200);
    const body = (await odd.json()) as { result: { data: { nodes: Array<{ type: string }>; warnings: string[] } } };
    expect(body.result.data.nodes.map((n) => n.type)).toEqual(["unknown", "unknown"]);
    expect(body.result.data.warnings.join(" ")).toMatch(/kept as an unknown node/);
  });

  it("a node's status, warning and error text are cut before they reach any listener (finding 2)", async () => {
    const [injId, fnId] = [uid("inj"), uid("fn")];
    const flowId = await deploy(user.accessToken, [
      { id: injId, type: "inject" },
      { id: fnId, type: "function", config: { code: `node.status({ fill: "red", shape: "dot", text: "s".repeat(4000000) }); node.warn("w".repeat(100000)); throw new Error("e".repeat(100000));` } },
    ], [{ source: injId, target: fnId }]);
    const events: Array<{ topic: string; data: Record<string, any> }> = [];
    const unsubscribe = await testApp.app.store.subscribe(orgEventsChannel(user.organizationId), (m) => events.push(...eventLines(m).map((line) => JSON.parse(line))));
    expect((await request("POST", `/nodes/${injId}/inject`, { token: user.accessToken, body: {} })).status).toBe(200);
    await expect.poll(() => events.filter((e) => e.topic === "node.status" && e.data.node_id === fnId && e.data.error?.startsWith("Error: eee")).length).toBe(1);
    await unsubscribe();
    const texts = events.filter((e) => e.topic === "node.status" && e.data.node_id === fnId);
    const status = texts.find((e) => e.data.status?.text?.startsWith("sss"))!;
    expect(status.data.status.text).toHaveLength(256);
    expect(status.data.status.text.endsWith("…")).toBe(true);
    for (const e of texts) if (e.data.error) expect(e.data.error.length).toBeLessThanOrEqual(4096);
    expect(texts.some((e) => e.data.error?.includes("wwww"))).toBe(true);
    const nodes = (await request("GET", `/flows/${flowId}/nodes`, { token: user.accessToken })).body.nodes as Array<{ id: string; status: { text: string } | null }>;
    expect(nodes.find((n) => n.id === fnId)!.status!.text.length).toBeLessThanOrEqual(256);
  });
});
