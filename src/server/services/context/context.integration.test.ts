/**
 * Flow and global context through the doors a user uses (issue 23, SPEC §13): webhooks into flows
 * whose function nodes count with flow/global context, and REST to read, set and delete keys. Runs
 * on embedded PGlite, or on DATABASE_URL / REDIS_URL when they are set.
 */
import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { joinAs, signUp } from "@/test/accounts";
import { handleWebhook } from "@/server/api/rest/webhook-handler";

const LIMIT = 4096;
const testApp = setUpTestApp({ CONTEXT_MAX_BYTES: String(LIMIT) });
const request = testApp.request;

type Owner = Awaited<ReturnType<typeof signUp>>;
let seq = 0;

async function slugOf(owner: Owner): Promise<string> {
  return (await testApp.app.db.prisma.organization.findUniqueOrThrow({ where: { id: owner.organizationId } })).slug;
}

/** A webhook flow: GET /hooks/<slug>/<path> runs `code` in a function node and answers its msg.payload. */
async function webhookFlow(owner: Owner, path: string, code: string, extra: { nodes?: unknown[]; connections?: unknown[] } = {}) {
  const p = `ctx${++seq}`;
  const created = await request("POST", "/flows", {
    token: owner.accessToken,
    body: {
      name: `context ${p}`,
      nodes: [
        { id: `${p}-in`, type: "http-in", config: { method: "get", path: `/${path}` } },
        { id: `${p}-fn`, type: "function", config: { code } },
        { id: `${p}-out`, type: "http-response" },
        ...(extra.nodes ?? []),
      ],
      connections: [{ source: `${p}-in`, target: `${p}-fn` }, { source: `${p}-fn`, target: `${p}-out` }, ...(extra.connections ?? [])],
    },
  });
  expect(created.status, created.text).toBe(201);
  const flowId = created.body.flow.id as string;
  await deploy(owner, flowId);
  const slug = await slugOf(owner);
  const call = async (query = "") => {
    const res = await handleWebhook(testApp.app, new Request(`http://app.test/hooks/${slug}/${path}${query}`), slug, [path]);
    return { status: res.status, body: (await res.text()) as string };
  };
  return { flowId, call, prefix: p };
}

async function deploy(owner: Owner, flowId: string) {
  const deployed = await request("POST", `/flows/${flowId}/deploy`, { token: owner.accessToken });
  expect(deployed.body.deployment?.state, deployed.text).toBe("running");
}

async function storedValue(organizationId: string, scope: string, key: string): Promise<unknown> {
  const row = await testApp.app.db.prisma.contextEntry.findUnique({ where: { organizationId_scope_key: { organizationId, scope, key } } });
  return row?.value == null ? undefined : JSON.parse(row.value);
}

describe("flow context in function code", () => {
  it("counts with flow.increment across calls and a redeploy; every answer's write is already in the database", async () => {
    const owner = await signUp(request);
    const { flowId, call } = await webhookFlow(owner, "count", "msg.payload = String(flow.increment('count')); return msg;");
    for (const expected of [1, 2, 3]) {
      const res = await call();
      expect(res).toEqual({ status: 200, body: String(expected) });
      // The durability rule: the answer followed the write, so the write is stored.
      expect(await storedValue(owner.organizationId, flowId, "count")).toBe(expected);
    }
    await deploy(owner, flowId);
    expect((await call()).body).toBe("4");
    const context = await request("GET", `/flows/${flowId}/context`, { token: owner.accessToken });
    expect(context.status).toBe(200);
    expect(context.body).toEqual({ context: { count: 4 } });
  });

  it("flow.get/set/keys keep JSON values; set(key, undefined) deletes", async () => {
    const owner = await signUp(request);
    const { flowId, call } = await webhookFlow(
      owner,
      "kv",
      `if (msg.req.query.op === 'set') { flow.set('obj', { a: [1, 'two'], b: null }); flow.set('n', 5); flow.set('gone', 1); flow.set('gone', undefined); }
       msg.payload = JSON.stringify({ obj: flow.get('obj'), keys: flow.keys().sort(), missing: flow.get('gone') === undefined });
       return msg;`,
    );
    expect(JSON.parse((await call("?op=set")).body)).toEqual({ obj: { a: [1, "two"], b: null }, keys: ["n", "obj"], missing: true });
    expect((await request("GET", `/flows/${flowId}/context`, { token: owner.accessToken })).body.context).toEqual({ obj: { a: [1, "two"], b: null }, n: 5 });
  });

  it("a value written over REST reaches the running flow; DELETE removes it", async () => {
    const owner = await signUp(request);
    const { flowId, call } = await webhookFlow(owner, "read", "msg.payload = JSON.stringify([flow.get('greeting') ?? null, global.get('motto') ?? null]); return msg;");
    const put = await request("PUT", `/flows/${flowId}/context/greeting`, { token: owner.accessToken, body: { value: { text: "hello" } } });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toEqual({ context: { greeting: { text: "hello" } } });
    const putGlobal = await request("PUT", "/context/global/motto", { token: owner.accessToken, body: { value: "carpe diem" } });
    expect(putGlobal.status, putGlobal.text).toBe(200);
    expect(JSON.parse((await call()).body)).toEqual([{ text: "hello" }, "carpe diem"]);
    expect((await request("DELETE", `/flows/${flowId}/context/greeting`, { token: owner.accessToken })).status).toBe(204);
    expect((await request("DELETE", "/context/global/motto", { token: owner.accessToken })).status).toBe(204);
    expect(JSON.parse((await call()).body)).toEqual([null, null]);
    expect((await request("GET", `/flows/${flowId}/context`, { token: owner.accessToken })).body).toEqual({ context: {} });
    expect((await request("GET", "/context/global", { token: owner.accessToken })).body).toEqual({ context: {} });
  });

  it("a flow's write reaches a function of the same flow through flow context written on the host (REST) in between", async () => {
    const owner = await signUp(request);
    const { flowId, call } = await webhookFlow(owner, "mix", "flow.set('n', (flow.get('n') || 0) + 1); msg.payload = String(flow.get('n')); return msg;");
    expect((await call()).body).toBe("1");
    await request("PUT", `/flows/${flowId}/context/n`, { token: owner.accessToken, body: { value: 100 } });
    expect((await call()).body).toBe("101");
    expect(await storedValue(owner.organizationId, flowId, "n")).toBe(101);
  });
});

describe("global context in function code", () => {
  it("global.increment is exact under 60 concurrent webhook calls, and every flow of the organization sees it", async () => {
    const owner = await signUp(request);
    const a = await webhookFlow(owner, "hit-a", "msg.payload = String(global.increment('hits')); return msg;");
    const b = await webhookFlow(owner, "hit-b", "msg.payload = String(global.increment('hits', 1)); return msg;");
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? a.call() : b.call())));
    expect(answers.every((r) => r.status === 200)).toBe(true);
    expect(answers.map((r) => Number(r.body)).sort((x, y) => x - y)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect((await request("GET", "/context/global", { token: owner.accessToken })).body.context).toEqual({ hits: 60 });
    expect(await storedValue(owner.organizationId, "global", "hits")).toBe(60);
  });

  it("global.set/get/keys from one flow are seen by another; increment of a non-number starts from 0", async () => {
    const owner = await signUp(request);
    const writer = await webhookFlow(owner, "gw", "global.set('cfg', { on: true }); global.set('word', 'x'); msg.payload = String(global.increment('word', 2)); return msg;");
    const reader = await webhookFlow(owner, "gr", "msg.payload = JSON.stringify({ cfg: global.get('cfg'), keys: global.keys().sort() }); return msg;");
    expect((await writer.call()).body).toBe("2");
    expect(JSON.parse((await reader.call()).body)).toEqual({ cfg: { on: true }, keys: ["cfg", "word"] });
  });
});

describe("context over REST", () => {
  it("viewers read, members and above write; credentials of no member get 401", async () => {
    const owner = await signUp(request);
    const { flowId } = await webhookFlow(owner, "perm", "return msg;");
    const viewer = await joinAs(testApp.app, request, owner, "viewer");
    const member = await joinAs(testApp.app, request, owner, "member");
    expect((await request("GET", `/flows/${flowId}/context`, { token: viewer.token })).status).toBe(200);
    expect((await request("GET", "/context/global", { token: viewer.token })).status).toBe(200);
    for (const [method, path] of [
      ["PUT", `/flows/${flowId}/context/k`],
      ["DELETE", `/flows/${flowId}/context/k`],
      ["PUT", "/context/global/k"],
      ["DELETE", "/context/global/k"],
    ] as const) {
      const refused = await request(method, path, { token: viewer.token, body: method === "PUT" ? { value: 1 } : undefined });
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.error.code).toBe("FORBIDDEN");
    }
    expect((await request("PUT", `/flows/${flowId}/context/k`, { token: member.token, body: { value: 1 } })).status).toBe(200);
    expect((await request("PUT", "/context/global/k", { token: member.token, body: { value: 2 } })).status).toBe(200);
    expect((await request("GET", `/flows/${flowId}/context`, { token: viewer.token })).body.context).toEqual({ k: 1 });
    expect((await request("GET", "/context/global", { token: viewer.token })).body.context).toEqual({ k: 2 });
    expect((await request("GET", "/context/global")).status).toBe(401);
  });

  it("refuses bad input with 400 and changes nothing; keys with spaces and slashes round-trip encoded", async () => {
    const owner = await signUp(request);
    const { flowId } = await webhookFlow(owner, "bad", "return msg;");
    const noValue = await request("PUT", `/flows/${flowId}/context/k`, { token: owner.accessToken, body: {} });
    expect(noValue.status).toBe(400);
    expect(noValue.body.error.code).toBe("VALIDATION_FAILED");
    const longKey = await request("PUT", `/context/global/${"k".repeat(257)}`, { token: owner.accessToken, body: { value: 1 } });
    expect(longKey.status).toBe(400);
    const proto = await request("PUT", "/context/global/__proto__", { token: owner.accessToken, body: { value: 1 } });
    expect(proto.status).toBe(400);
    const odd = await request("PUT", `/context/global/${encodeURIComponent("a key/with slash")}`, { token: owner.accessToken, body: { value: [1] } });
    expect(odd.status, odd.text).toBe(200);
    expect((await request("GET", "/context/global", { token: owner.accessToken })).body.context).toEqual({ "a key/with slash": [1] });
    expect((await request("GET", `/flows/${flowId}/context`, { token: owner.accessToken })).body.context).toEqual({});
    expect((await request("GET", "/flows/flw_doesnotexist000000000000/context", { token: owner.accessToken })).status).toBe(404);
  });

  it("past CONTEXT_MAX_BYTES: 413 PAYLOAD_TOO_LARGE over REST (nothing written), and 'context is full' in function code", async () => {
    const owner = await signUp(request);
    const { flowId, call, prefix } = await webhookFlow(
      owner,
      "full",
      "try { flow.set('big', 'x'.repeat(Number(msg.req.query.n))); msg.payload = 'ok'; } catch (e) { msg.payload = e.message; } return msg;",
    );
    expect((await request("PUT", "/context/global/half", { token: owner.accessToken, body: { value: "y".repeat(LIMIT / 2) } })).status).toBe(200);
    const refused = await request("PUT", `/flows/${flowId}/context/more`, { token: owner.accessToken, body: { value: "z".repeat(LIMIT / 2) } });
    expect(refused.status).toBe(413);
    expect(refused.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(refused.body.error.message).toMatch(/context is full/);
    expect((await request("GET", `/flows/${flowId}/context`, { token: owner.accessToken })).body.context).toEqual({});
    // In the flow: the same organization-wide budget.
    expect((await call(`?n=${LIMIT}`)).body).toBe("context is full");
    expect((await call("?n=10")).body).toBe("ok");
    expect((await request("GET", `/flows/${flowId}/context`, { token: owner.accessToken })).body.context).toEqual({ big: "x".repeat(10) });
    void prefix;
  });

  it("a deleted flow takes its context with it; another organization never sees or changes it", async () => {
    const victim = await signUp(request);
    const attacker = await signUp(request);
    const { flowId, call } = await webhookFlow(victim, "secret", "flow.set('s', 'victim'); global.set('g', 'victim'); return msg;");
    await call();
    expect((await request("GET", `/flows/${flowId}/context`, { token: attacker.accessToken })).status).toBe(404);
    expect((await request("PUT", `/flows/${flowId}/context/s`, { token: attacker.accessToken, body: { value: "pwned" } })).status).toBe(404);
    expect((await request("DELETE", `/flows/${flowId}/context/s`, { token: attacker.accessToken })).status).toBe(404);
    // Global context is the caller's organization's: the attacker writes its own.
    expect((await request("PUT", "/context/global/g", { token: attacker.accessToken, body: { value: "attacker" } })).status).toBe(200);
    expect((await request("GET", "/context/global", { token: attacker.accessToken })).body.context).toEqual({ g: "attacker" });
    expect((await request("GET", "/context/global", { token: victim.accessToken })).body.context).toEqual({ g: "victim" });
    expect((await request("GET", `/flows/${flowId}/context`, { token: victim.accessToken })).body.context).toEqual({ s: "victim" });
    // Attacker's function code reads its own global context only.
    const spy = await webhookFlow(attacker, "spy", "msg.payload = JSON.stringify(global.get('g')); return msg;");
    expect(JSON.parse((await spy.call()).body)).toBe("attacker");

    expect((await request("DELETE", `/flows/${flowId}`, { token: victim.accessToken })).status).toBe(204);
    expect(await testApp.app.db.prisma.contextEntry.count({ where: { scope: flowId } })).toBe(0);
    expect((await request("GET", `/flows/${flowId}/context`, { token: victim.accessToken })).status).toBe(404);
  });
});
