import { beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "@/generated/prisma/client";
import { readFileSync } from "node:fs";
import path from "node:path";
import { testCaller } from "@/test/app";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { orgEventsChannel } from "@/shared/realtime";
import { eventLines } from "@/server/realtime/org-events";

const testApp = setUpTestApp();
const request = testApp.request;
let user: Awaited<ReturnType<typeof signUp>>;

beforeAll(async () => {
  user = await signUp(request);
});

const fixture = (name: string) => JSON.parse(readFileSync(path.join(import.meta.dirname, "../../../test/fixtures", name), "utf8"));
let seq = 0;
const uid = (p: string) => `${p}-${Date.now().toString(36)}-${++seq}`;

function simpleFlow(name = "demo") {
  const [a, b, c] = [uid("in"), uid("fn"), uid("dbg")];
  return {
    ids: { inject: a, change: b, debug: c },
    body: {
      name,
      nodes: [
        { id: a, type: "inject", position: { x: 100, y: 100 }, config: { payload_type: "string", payload: "hello" } },
        { id: b, type: "change", position: { x: 300, y: 100 }, config: { rules: [{ t: "set", p: "payload", to: "changed" }] } },
        { id: c, type: "debug", position: { x: 500, y: 100 } },
      ],
      connections: [
        { source: a, target: b },
        { source: b, target: c },
      ],
    },
  };
}

describe("node catalog", () => {
  it("lists every type with its category and ports", async () => {
    const res = await request("GET", "/nodes", { token: user.accessToken });
    expect(res.status).toBe(200);
    const types = Object.fromEntries(res.body.nodes.map((n: { type: string }) => [n.type, n]));
    for (const t of ["inject", "debug", "function", "change", "switch", "template", "delay", "json", "http-in", "http-response", "http-request", "device-in", "device-out", "comment"]) {
      expect(types[t], t).toBeDefined();
    }
    expect(types.inject).toMatchObject({ category: "input", inputs: 0, outputs: 1 });
    expect(types.debug).toMatchObject({ category: "output", inputs: 1, outputs: 0 });
    expect(types["http-in"].category).toBe("input");
    expect(types["http-response"].category).toBe("output");
    expect(types.unknown).toBeUndefined();
  });

  it("carries each type's own icon and its form hints, declared in its node folder", async () => {
    const res = await request("GET", "/nodes", { token: user.accessToken });
    const byType = Object.fromEntries((res.body.nodes as Array<{ type: string; icon?: string; form: Record<string, unknown> }>).map((n) => [n.type, n]));
    const drawn = ["inject", "debug", "function", "change", "switch", "catch", "status", "complete", "link-in", "link-call", "junction", "subflow-in"].map((t) => byType[t]!);
    for (const n of drawn) expect(n.icon, n.type).toMatch(/^<svg /);
    expect(new Set(drawn.map((n) => n.icon)).size).toBe(drawn.length);
    expect(byType.function!.form).toEqual({ code: { widget: "code", language: "javascript" }, initialize: { widget: "code", language: "javascript" }, finalize: { widget: "code", language: "javascript" } });
    expect(byType.comment!.form).toEqual({ info: { widget: "multiline" } });
    expect(byType.change!.form).toEqual({});
    const schema = await request("GET", "/nodes/function/schema", { token: user.accessToken });
    expect(schema.body.form).toEqual(byType.function!.form);
  });

  it("serves a JSON Schema with defaults and ports, and 404 for unknown types", async () => {
    const res = await request("GET", "/nodes/switch/schema", { token: user.accessToken });
    expect(res.status).toBe(200);
    expect(res.body.schema.type).toBe("object");
    expect(res.body.schema.properties.check_all).toMatchObject({ type: "boolean", default: true });
    expect(res.body.defaults).toMatchObject({ property: "payload", check_all: true });
    expect(res.body).toMatchObject({ inputs: 1, outputs: 1 });
    const fn = await request("GET", "/nodes/function/schema", { token: user.accessToken });
    expect(fn.body.defaults).toMatchObject({ code: "return msg;", outputs: 1, timeout_ms: 1000 });
    expect((await request("GET", "/nodes/teleport/schema", { token: user.accessToken })).status).toBe(404);
  });
});

describe("flow validation", () => {
  const invalidCases: Array<[string, Record<string, unknown>, string]> = [
    ["inject", { payload_type: "number", payload: "abc" }, "payload"],
    ["inject", { repeat_seconds: 5, cron: "* * * * *" }, "cron"],
    ["inject", { cron: "every minute" }, "cron"],
    ["debug", { property: "pay load" }, "property"],
    ["function", { outputs: 257 }, "outputs"],
    ["function", { timeout_ms: 0 }, "timeout_ms"],
    ["change", { rules: [{ t: "shuffle", p: "payload" }] }, "rules[0].t"],
    ["change", { rules: [{ t: "set", p: "__proto__..x" }] }, "rules[0].p"],
    ["switch", { rules: [{ t: "regex", v: "([" }] }, "rules[0].v"],
    ["switch", { check_all: "yes" }, "check_all"],
    ["template", { syntax: "handlebars" }, "syntax"],
    ["delay", { mode: "rate", rate: 0 }, "rate"],
    ["json", { action: "xml" }, "action"],
    ["http-in", { path: "no-slash" }, "path"],
    ["http-response", { status_code: 700 }, "status_code"],
    ["http-request", { method: "FETCH" }, "method"],
    ["device-in", { topic: "" }, "topic"],
    ["device-out", { device_key_id: "abc" }, "device_key_id"],
    ["comment", { info: 5 }, "info"],
    ["catch", { scope: ["bad id!"] }, "scope[0]"],
    ["catch", { uncaught: "yes" }, "uncaught"],
    ["link-in", { links: "a" }, "links"],
    ["link-out", { mode: "send" }, "mode"],
    ["link-out", { links: ["bad id!"] }, "links[0]"],
    ["link-call", { links: ["a", "b"] }, "links"],
    ["link-call", { timeout_seconds: -1 }, "timeout_seconds"],
    ["link-call", { link_type: "random" }, "link_type"],
    ["status", { scope: "group" }, "scope"],
    ["complete", { scope: null }, "scope"],
  ];

  it.each(invalidCases)("refuses an invalid %s config (%o) naming the node and field", async (type, config, field) => {
    const before = await testApp.app.db.prisma.flow.count();
    const res = await request("POST", "/flows", { token: user.accessToken, body: { name: "bad", nodes: [{ id: uid("n"), type, config }] } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_FAILED");
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(`nodes[0].config.${field}`.replace(".[", "["));
    expect(await testApp.app.db.prisma.flow.count()).toBe(before);
  });

  it("accepts every type with its defaults and fills them in", async () => {
    const types = ["inject", "debug", "function", "change", "switch", "template", "delay", "json", "http-in", "http-response", "http-request", "device-in", "device-out", "comment", "catch", "link-in", "link-out", "link-call", "status", "complete"];
    const res = await request("POST", "/flows", { token: user.accessToken, body: { name: "all types", nodes: types.map((type) => ({ id: uid(type), type })) } });
    expect(res.status).toBe(201);
    const fn = res.body.flow.nodes.find((n: { type: string }) => n.type === "function");
    expect(fn.config).toEqual({ code: "return msg;", outputs: 1, timeout_ms: 1000, initialize: "", finalize: "", libs: [] });
    expect(fn.position).toEqual({ x: 0, y: 0 });
  });

  it("checks types, connections, ports and id uniqueness", async () => {
    const a = uid("a");
    const b = uid("b");
    const cases: Array<[unknown, string]> = [
      [{ nodes: [{ id: a, type: "teleport" }] }, "nodes[0].type"],
      [{ nodes: [{ id: a, type: "inject" }], connections: [{ source: a, target: "ghost" }] }, "connections[0].target"],
      [{ nodes: [{ id: a, type: "inject" }, { id: b, type: "debug" }], connections: [{ source: a, source_port: 1, target: b }] }, "connections[0].source_port"],
      [{ nodes: [{ id: a, type: "debug" }, { id: b, type: "inject" }], connections: [{ source: a, target: b }] }, "connections[0].source_port"],
      // An mqtt in has its input only with dynamic subscription (Node-RED's inputs: 1).
      [{ nodes: [{ id: a, type: "inject" }, { id: b, type: "mqtt-in", config: { topic: "t" } }], connections: [{ source: a, target: b }] }, "connections[0].target"],
      [{ nodes: [{ id: a, type: "inject" }, { id: a, type: "debug" }] }, "nodes[1].id"],
      [{ nodes: [{ id: "bad id!", type: "inject" }] }, "nodes[0].id"],
    ];
    for (const [graph, pathExpected] of cases) {
      const res = await request("POST", "/flows", { token: user.accessToken, body: { name: "x", ...(graph as object) } });
      expect(res.status, JSON.stringify(graph)).toBe(400);
      expect(res.body.error.details.map((d: { path: string }) => d.path), JSON.stringify(res.body)).toContain(pathExpected);
    }
    const first = await request("POST", "/flows", { token: user.accessToken, body: { name: "owner of id", nodes: [{ id: a, type: "inject" }] } });
    expect(first.status).toBe(201);
    const clash = await request("POST", "/flows", { token: user.accessToken, body: { name: "clash", nodes: [{ id: a, type: "inject" }] } });
    expect(clash.status).toBe(400);
    expect(clash.body.error.details[0].message).toMatch(/used by another flow/);
    // Another organization may use the same id.
    const other = await signUp(request);
    expect((await request("POST", "/flows", { token: other.accessToken, body: { name: "same id elsewhere", nodes: [{ id: a, type: "inject" }] } })).status).toBe(201);
  });
});

describe("flow CRUD", () => {
  it("creates, reads, lists, updates and deletes", async () => {
    const { body } = simpleFlow("crud");
    const created = await request("POST", "/flows", { token: user.accessToken, body });
    expect(created.status).toBe(201);
    const flow = created.body.flow;
    expect(flow.id).toMatch(/^flw_/);
    expect(flow).toMatchObject({ name: "crud", enabled: true, revision: 1, state: "not_deployed", deployed_revision: null, description: "" });
    expect(flow.connections).toEqual([
      { source: body.nodes[0]!.id, source_port: 0, target: body.nodes[1]!.id },
      { source: body.nodes[1]!.id, source_port: 0, target: body.nodes[2]!.id },
    ]);
    const got = await request("GET", `/flows/${flow.id}`, { token: user.accessToken });
    expect(got.body.flow).toEqual(flow);
    expect(got.headers.get("etag")).toBe('"1"');

    const list = await request("GET", "/flows", { token: user.accessToken });
    const item = list.body.flows.find((f: { id: string }) => f.id === flow.id);
    expect(item).toEqual({ id: flow.id, name: "crud", enabled: true, nodes: 3, revision: 1, state: "not_deployed", updated_at: flow.updated_at });

    const updated = await request("PUT", `/flows/${flow.id}`, { token: user.accessToken, body: { name: "renamed", revision: 1 } });
    expect(updated.status).toBe(200);
    expect(updated.body.flow).toMatchObject({ name: "renamed", revision: 2 });
    expect(updated.body.flow.nodes).toEqual(flow.nodes);

    const nodes = await request("GET", `/flows/${flow.id}/nodes`, { token: user.accessToken });
    expect(nodes.body.nodes).toHaveLength(3);
    expect(nodes.body.nodes[0].status).toBeNull();

    expect((await request("DELETE", `/flows/${flow.id}`, { token: user.accessToken })).status).toBe(204);
    expect((await request("GET", `/flows/${flow.id}`, { token: user.accessToken })).status).toBe(404);
    // Its node ids are free again.
    expect((await request("POST", "/flows", { token: user.accessToken, body })).status).toBe(201);
  });

  it("answers a stale revision, from the body or If-Match, with 409 REVISION_CONFLICT (the race: flows.service.integration.test.ts)", async () => {
    const { body } = simpleFlow();
    const flow = (await request("POST", "/flows", { token: user.accessToken, body })).body.flow;
    const stale = await request("PUT", `/flows/${flow.id}`, { token: user.accessToken, body: { name: "stale", revision: 2 } });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe("REVISION_CONFLICT");
    expect((await request("PUT", `/flows/${flow.id}`, { token: user.accessToken, body: { description: "stale" }, headers: { "if-match": '"2"' } })).status).toBe(409);
    const fresh = await request("PUT", `/flows/${flow.id}`, { token: user.accessToken, body: { description: "fresh" }, headers: { "if-match": '"1"' } });
    expect(fresh.status).toBe(200);
    expect(fresh.body.flow.revision).toBe(2);
    expect(fresh.headers.get("etag")).toBe('"2"');
    // A stale If-Match is not outvoted by a current revision in the body, nor the other way round.
    const both = await request("PUT", `/flows/${flow.id}`, { token: user.accessToken, body: { name: "mixed", revision: 2 }, headers: { "if-match": '"1"' } });
    expect(both.status).toBe(409);
    expect(both.body.error.code).toBe("REVISION_CONFLICT");
    expect((await request("PUT", `/flows/${flow.id}`, { token: user.accessToken, body: { name: "mixed", revision: 1 }, headers: { "if-match": '"2"' } })).status).toBe(409);
    // `*`: any revision of a flow that exists.
    const any = await request("PUT", `/flows/${flow.id}`, { token: user.accessToken, body: { description: "any" }, headers: { "if-match": "*" } });
    expect(any.status).toBe(200);
    expect(any.body.flow.revision).toBe(3);
    // No body at all is not an update of nothing: 400, and no new revision.
    const empty = await request("PUT", `/flows/${flow.id}`, { token: user.accessToken, headers: { "content-type": "application/json" } });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe("VALIDATION_FAILED");
    expect((await request("GET", `/flows/${flow.id}`, { token: user.accessToken })).body.flow.revision).toBe(3);
  });

  it("paginates with limit and cursor and filters by name and enabled", async () => {
    const other = await signUp(request);
    for (let i = 0; i < 5; i++) {
      await request("POST", "/flows", { token: other.accessToken, body: { name: `Pump ${i}`, enabled: i % 2 === 0 } });
    }
    await request("POST", "/flows", { token: other.accessToken, body: { name: "Valve" } });
    const all = await request("GET", "/flows", { token: other.accessToken });
    expect(all.body.flows).toHaveLength(6);
    expect(all.body.next_cursor).toBeNull();
    const p1 = await request("GET", "/flows?limit=4", { token: other.accessToken });
    expect(p1.body.flows).toHaveLength(4);
    const p2 = await request("GET", `/flows?limit=4&cursor=${p1.body.next_cursor}`, { token: other.accessToken });
    expect(p2.body.flows).toHaveLength(2);
    expect(p2.body.next_cursor).toBeNull();
    expect([...p1.body.flows, ...p2.body.flows].map((f: { id: string }) => f.id)).toEqual(all.body.flows.map((f: { id: string }) => f.id));
    expect((await request("GET", "/flows?name=pump", { token: other.accessToken })).body.flows).toHaveLength(5);
    expect((await request("GET", "/flows?name=pump&enabled=false", { token: other.accessToken })).body.flows).toHaveLength(2);
    // The name filter is plain text: LIKE's wildcards and escape match only themselves.
    await request("POST", "/flows", { token: other.accessToken, body: { name: "Tank 100%_full\\a" } });
    const named = async (q: string) => (await request("GET", `/flows?name=${encodeURIComponent(q)}`, { token: other.accessToken })).body.flows.map((f: { name: string }) => f.name);
    expect(await named("100%_full\\a")).toEqual(["Tank 100%_full\\a"]);
    expect(await named("%")).toEqual(["Tank 100%_full\\a"]);
    expect(await named("_")).toEqual(["Tank 100%_full\\a"]);
    expect(await named("P_mp")).toEqual([]);
    expect(await named("\\")).toEqual(["Tank 100%_full\\a"]);
    expect((await request("GET", "/flows?limit=0", { token: other.accessToken })).status).toBe(400);
    expect((await request("GET", "/flows?limit=201", { token: other.accessToken })).status).toBe(400);
    expect((await request("GET", "/flows?cursor=zzz", { token: other.accessToken })).status).toBe(400);
  });
});

describe("deployments", () => {
  it("deploys, runs, injects, streams debug, and rolls back", async () => {
    const { body, ids } = simpleFlow("runner");
    const flow = (await request("POST", "/flows", { token: user.accessToken, body })).body.flow;
    const beforeDeploy = await request("POST", `/nodes/${ids.inject}/inject`, { token: user.accessToken, body: {} });
    expect(beforeDeploy.status).toBe(409);
    expect(beforeDeploy.body.error.code).toBe("FLOW_NOT_RUNNING");

    const events: Array<{ topic: string; data: Record<string, unknown> }> = [];
    const unsubscribe = await testApp.app.store.subscribe(orgEventsChannel(user.organizationId), (m) => events.push(...eventLines(m).map((line) => JSON.parse(line))));

    const dep = await request("POST", `/flows/${flow.id}/deploy`, { token: user.accessToken });
    expect(dep.status).toBe(200);
    expect(dep.body.deployment).toMatchObject({ flow_id: flow.id, revision: 1, state: "running", deployed_by: user.userId });
    expect(dep.body.deployment.id).toMatch(/^dep_/);
    expect(flow.runtime).toBeNull();
    const running = (await request("GET", `/flows/${flow.id}`, { token: user.accessToken })).body.flow;
    expect(running).toMatchObject({ state: "running", deployed_revision: 1 });
    // Where it runs: this instance, as GET /health names it.
    const instanceId = (await request("GET", "/health")).body.instance_id;
    expect(instanceId).toEqual(expect.any(String));
    expect(running.runtime).toEqual({ instance_id: instanceId, since: expect.any(String) });
    expect(Date.now() - Date.parse(running.runtime.since)).toBeLessThan(60_000);

    const inj = await request("POST", `/nodes/${ids.inject}/inject`, { token: user.accessToken, body: { payload: "override", topic: "t" } });
    expect(inj.status).toBe(200);
    expect(inj.body).toEqual({ message_id: expect.any(String), node_id: ids.inject, flow_id: flow.id });
    await expect.poll(() => events.filter((e) => e.topic === "debug").length).toBe(1);
    expect(events.find((e) => e.topic === "debug")!.data).toMatchObject({ node_id: ids.debug, msg: "changed" });
    expect(events.map((e) => e.topic)).toEqual(expect.arrayContaining(["flow.deployed", "inject", "debug"]));

    expect((await request("POST", `/nodes/${ids.debug}/inject`, { token: user.accessToken, body: {} })).status).toBe(400);

    // Change and redeploy, then roll back to the first deployment.
    const nodes = (await request("GET", `/flows/${flow.id}`, { token: user.accessToken })).body.flow.nodes;
    nodes[1].config.rules[0].to = "second version";
    await request("PUT", `/flows/${flow.id}`, { token: user.accessToken, body: { nodes } });
    const dep2 = await request("POST", `/flows/${flow.id}/deploy`, { token: user.accessToken });
    expect(dep2.body.deployment.revision).toBe(2);
    await request("POST", `/nodes/${ids.inject}/inject`, { token: user.accessToken, body: {} });
    await expect.poll(() => events.filter((e) => e.topic === "debug").map((e) => e.data.msg)).toContain("second version");

    const history = await request("GET", `/flows/${flow.id}/deployments`, { token: user.accessToken });
    expect(history.body.deployments.map((d: { revision: number }) => d.revision)).toEqual([2, 1]);
    expect(history.body.deployments[0].state).toBe("running");
    const back = await request("POST", `/flows/${flow.id}/rollback`, { token: user.accessToken, body: { deployment_id: dep.body.deployment.id } });
    expect(back.status).toBe(200);
    expect(back.body.deployment).toMatchObject({ revision: 1, rolled_back_from: dep.body.deployment.id, state: "running" });
    await request("POST", `/nodes/${ids.inject}/inject`, { token: user.accessToken, body: {} });
    await expect.poll(() => events.filter((e) => e.topic === "debug").map((e) => e.data.msg).slice(-1)[0]).toBe("changed");

    // enabled:false stops a deployed flow; true starts it again.
    const off = await request("PUT", `/flows/${flow.id}`, { token: user.accessToken, body: { enabled: false } });
    expect(off.body.flow.state).toBe("stopped");
    expect(off.body.flow.runtime).toBeNull();
    expect((await request("POST", `/nodes/${ids.inject}/inject`, { token: user.accessToken, body: {} })).status).toBe(409);
    const on = await request("PUT", `/flows/${flow.id}`, { token: user.accessToken, body: { enabled: true } });
    expect(on.body.flow.state).toBe("running");
    expect(on.body.flow.runtime).toMatchObject({ instance_id: expect.any(String) });
    expect((await request("POST", `/nodes/${ids.inject}/inject`, { token: user.accessToken, body: {} })).status).toBe(200);

    expect((await request("POST", `/flows/${flow.id}/rollback`, { token: user.accessToken, body: { deployment_id: "dep_doesnotexist00" } })).status).toBe(404);
    await request("DELETE", `/flows/${flow.id}`, { token: user.accessToken });
    expect(await testApp.app.flowRuntime.placement(flow.id)).toBeNull();
    await unsubscribe();
  });
});

describe("deployment history", () => {
  it("names who deployed and what changed against the deployment before, across pages", async () => {
    const { body, ids } = simpleFlow("history");
    const flow = (await request("POST", "/flows", { token: user.accessToken, body })).body.flow;
    await request("POST", `/flows/${flow.id}/deploy`, { token: user.accessToken });
    const nodes = (await request("GET", `/flows/${flow.id}`, { token: user.accessToken })).body.flow.nodes;
    nodes[1].config.rules[0].to = "v2";
    nodes[0].position = { x: 1, y: 1 };
    const extra = uid("dbg");
    await request("PUT", `/flows/${flow.id}`, {
      token: user.accessToken,
      body: { nodes: [nodes[0], nodes[1], { id: extra, type: "debug", name: "second" }], connections: [{ source: ids.inject, target: ids.change }, { source: ids.change, target: extra }] },
    });
    await request("POST", `/flows/${flow.id}/deploy`, { token: user.accessToken });

    const history = (await request("GET", `/flows/${flow.id}/deployments`, { token: user.accessToken })).body.deployments;
    const owner = (await testApp.app.db.prisma.user.findUniqueOrThrow({ where: { id: user.userId } }));
    const name = [owner.firstName, owner.lastName].filter(Boolean).join(" ") || owner.email;
    expect(history[0]).toMatchObject({ revision: 2, deployed_by_name: name });
    expect(history[0].changes).toEqual({
      added: [{ id: extra, type: "debug", name: "second" }],
      // The change node's rule changed and it is wired to another debug node; the moved inject did not change.
      changed: [{ id: ids.change, type: "change", name: "" }],
      removed: [{ id: ids.debug, type: "debug", name: "" }],
    });
    expect(history[1].changes.added.map((n: { id: string }) => n.id)).toEqual([ids.inject, ids.change, ids.debug]);
    // A page that ends before the first deployment still diffs against the one before it.
    const page = (await request("GET", `/flows/${flow.id}/deployments?limit=1`, { token: user.accessToken })).body;
    expect(page.deployments[0].changes).toEqual(history[0].changes);
    const next = (await request("GET", `/flows/${flow.id}/deployments?limit=1&cursor=${page.next_cursor}`, { token: user.accessToken })).body;
    expect(next.deployments[0].changes).toEqual(history[1].changes);
    await request("DELETE", `/flows/${flow.id}`, { token: user.accessToken });
  });

  it("deploys of one flow at once each diff against the one really before them", async () => {
    const { body } = simpleFlow("concurrent");
    const flow = (await request("POST", "/flows", { token: user.accessToken, body })).body.flow;
    const answers = await Promise.all(Array.from({ length: 4 }, () => request("POST", `/flows/${flow.id}/deploy`, { token: user.accessToken })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const listed = (await request("GET", `/flows/${flow.id}/deployments`, { token: user.accessToken })).body.deployments;
    // The same graph four times: only the first deployment adds anything.
    expect(listed.filter((d: { changes: { added: unknown[] } }) => d.changes.added.length > 0)).toHaveLength(1);
    expect(listed[listed.length - 1].changes.added.length).toBe(body.nodes.length);
    await request("DELETE", `/flows/${flow.id}`, { token: user.accessToken });
  });

  it("lists stored summaries, never re-diffing snapshots; a row from before they were stored gets its changes once", async () => {
    const { body } = simpleFlow("summaries");
    const flow = (await request("POST", "/flows", { token: user.accessToken, body })).body.flow;
    for (let i = 0; i < 3; i++) await request("POST", `/flows/${flow.id}/deploy`, { token: user.accessToken });
    const prisma = testApp.app.db.prisma;
    const rows = await prisma.deployment.findMany({ where: { flowId: flow.id }, orderBy: { deployedAt: "asc" } });
    expect(rows.map((r) => r.changes === null)).toEqual([false, false, false]);
    const expected = (await request("GET", `/flows/${flow.id}/deployments`, { token: user.accessToken })).body.deployments;
    // The list shows what is stored: a marker written into one row comes back as it is.
    const marker = { added: [{ id: "marker", type: "debug", name: "stored" }], changed: [], removed: [] };
    await prisma.deployment.update({ where: { id: rows[2]!.id }, data: { changes: marker } });
    // A row as an older version left it (no changes stored): computed from the snapshots, then kept.
    await prisma.deployment.update({ where: { id: rows[0]!.id }, data: { changes: Prisma.DbNull } });
    const listed = (await request("GET", `/flows/${flow.id}/deployments`, { token: user.accessToken })).body.deployments;
    expect(listed[0].changes).toEqual(marker);
    expect(listed[2].changes).toEqual(expected[2].changes);
    expect((await prisma.deployment.findUniqueOrThrow({ where: { id: rows[0]!.id } })).changes).toEqual(expected[2].changes);
    await request("DELETE", `/flows/${flow.id}`, { token: user.accessToken });
  });
});

describe("flow state", () => {
  it("reports error with the reason when a node cannot start, and running after a fix", async () => {
    const id = uid("fn");
    // On Start that never ends: the node cannot start.
    const flow = (await request("POST", "/flows", { token: user.accessToken, body: { name: "broken", nodes: [{ id, type: "function", config: { code: "return msg;", initialize: "while (true) {}", timeout_ms: 200 } }] } })).body.flow;
    const dep = await request("POST", `/flows/${flow.id}/deploy`, { token: user.accessToken });
    expect(dep.status).toBe(200);
    expect(dep.body.deployment.state).toBe("error");
    // The deploy's answer says why, so the editor shows it at once.
    expect(dep.body.state_error).toMatch(new RegExp(`^${id}: `));
    const broken = (await request("GET", `/flows/${flow.id}`, { token: user.accessToken })).body.flow;
    expect(broken.state).toBe("error");
    expect(broken.state_error).toMatch(new RegExp(id));
    await request("PUT", `/flows/${flow.id}`, { token: user.accessToken, body: { nodes: [{ id, type: "function", config: { code: "return msg;" } }] } });
    const redeployed = (await request("POST", `/flows/${flow.id}/deploy`, { token: user.accessToken })).body;
    expect(redeployed).toMatchObject({ deployment: { state: "running" }, state_error: null });
    const fixed = (await request("GET", `/flows/${flow.id}`, { token: user.accessToken })).body.flow;
    expect(fixed).toMatchObject({ state: "running", state_error: null });
  });

  it("a function whose code does not compile is that node's error, as in Node-RED: the flow runs, and the node drops what it is sent", async () => {
    const fn = uid("fn");
    const inject = uid("inj");
    const flow = (
      await request("POST", "/flows", {
        token: user.accessToken,
        body: {
          name: "one broken node",
          nodes: [
            { id: inject, type: "inject" },
            { id: fn, type: "function", config: { code: "msg.payload = ;\nreturn msg;" } },
          ],
          connections: [{ source: inject, target: fn }],
        },
      })
    ).body.flow;
    const dep = await request("POST", `/flows/${flow.id}/deploy`, { token: user.accessToken });
    expect(dep.body).toMatchObject({ deployment: { state: "running" }, state_error: null });
    expect((await request("POST", `/nodes/${inject}/inject`, { token: user.accessToken })).status).toBe(200);
    expect((await request("GET", `/flows/${flow.id}`, { token: user.accessToken })).body.flow).toMatchObject({ state: "running", state_error: null });
  });
});

describe("Node-RED interchange", () => {
  it("imports inject → function → debug and exports it back with the same wiring and properties", async () => {
    const source = fixture("node-red-inject-function-debug.json");
    const res = await request("POST", "/flows/import", { token: user.accessToken, body: { flows: source } });
    expect(res.status).toBe(201);
    expect(res.body.warnings).toEqual([]);
    const [flow] = res.body.flows;
    expect(flow).toMatchObject({ name: "Temperature alerts", description: "Reads a value and logs it", enabled: true });
    const inject = flow.nodes.find((n: { type: string }) => n.type === "inject");
    expect(inject.config).toMatchObject({
      props: [
        { p: "payload", v: "21.5", v_type: "num" },
        { p: "topic", v: "sensor/1", v_type: "str" },
      ],
      repeat_seconds: 5,
      once: true,
    });
    const fn = flow.nodes.find((n: { type: string }) => n.type === "function");
    expect(fn.config.code).toContain("* 9 / 5 + 32");

    const exported = await request("GET", `/flows/${flow.id}/export`, { token: user.accessToken });
    expect(exported.status).toBe(200);
    const [tab, ...nodes] = exported.body;
    expect(tab).toMatchObject({ id: flow.id, type: "tab", label: "Temperature alerts", disabled: false });
    const byId = Object.fromEntries(nodes.map((n: { id: string }) => [n.id, n]));
    for (const original of source.slice(1)) {
      const out = byId[original.id];
      expect(out, original.id).toBeDefined();
      expect(out).toMatchObject({ type: original.type, z: flow.id, x: original.x, y: original.y, wires: original.wires, name: original.name });
    }
    expect(byId["a1b2c3d4e5f60001"]).toMatchObject({ payload: "21.5", payloadType: "num", repeat: "5", once: true, topic: "sensor/1" });
    expect(byId["a1b2c3d4e5f60002"]).toMatchObject({ func: source[2].func, outputs: 1 });
    expect(byId["a1b2c3d4e5f60003"]).toMatchObject({ complete: "payload", tostatus: true });

    // Importing the same export again re-keys the ids that are now taken; wires follow.
    const again = await request("POST", "/flows/import", { token: user.accessToken, body: { flows: exported.body } });
    expect(again.status).toBe(201);
    const copy = again.body.flows[0];
    const ids = copy.nodes.map((n: { id: string }) => n.id);
    expect(ids.some((id: string) => id.startsWith("a1b2c3d4e5f6"))).toBe(false);
    expect(copy.connections).toHaveLength(2);
    for (const c of copy.connections) expect(ids).toEqual(expect.arrayContaining([c.source, c.target]));
    expect(again.body.warnings.filter((w: string) => /renamed/.test(w))).toHaveLength(3);
  });

  it("imports switch outputs and change rules, keeps unknown types as disabled nodes, reports config nodes", async () => {
    const res = await request("POST", "/flows/import", { token: user.accessToken, body: { flows: fixture("node-red-switch-change.json") } });
    expect(res.status).toBe(201);
    const flow = res.body.flows[0];
    expect(flow.enabled).toBe(false);
    const sw = flow.nodes.find((n: { type: string }) => n.type === "switch");
    expect(sw.config).toMatchObject({ property: "payload.level", check_all: false });
    expect(sw.config.rules.map((r: { t: string }) => r.t)).toEqual(["eq", "gte", "regex", "else"]);
    expect(flow.connections.filter((c: { source: string }) => c.source === sw.id).map((c: { source_port: number }) => c.source_port).sort()).toEqual([0, 1, 3]);
    const change = flow.nodes.find((n: { type: string }) => n.type === "change");
    expect(change.config.rules.map((r: { t: string }) => r.t)).toEqual(["set", "change", "delete", "move"]);
    const unknown = flow.nodes.find((n: { type: string }) => n.type === "unknown");
    expect(unknown).toMatchObject({ disabled: true, config: { original_type: "serial out" } });
    expect(res.body.warnings.join("\n")).toMatch(/serial out.*not available/);
    expect(res.body.warnings.join("\n")).toMatch(/configuration node c0c0c0c0c0c0c0c0: type serial-port is not available here; kept/);

    const exported = (await request("GET", `/flows/${flow.id}/export`, { token: user.accessToken })).body;
    const serial = exported.find((n: { type: string }) => n.type === "serial out");
    expect(serial).toMatchObject({ id: unknown.id, serial: "c0c0c0c0c0c0c0c0", topic: "x" });
    const swOut = exported.find((n: { type: string }) => n.type === "switch");
    expect(swOut.wires).toHaveLength(4);
    expect(swOut.rules[2]).toMatchObject({ t: "regex", v: "^warn", case: true });
  });

  it("imports http in → template → http response", async () => {
    const res = await request("POST", "/flows/import", { token: user.accessToken, body: { flows: fixture("node-red-http.json") } });
    expect(res.status).toBe(201);
    const types = res.body.flows[0].nodes.map((n: { type: string }) => n.type);
    expect(types).toEqual(["http-in", "template", "http-response"]);
    const out = (await request("GET", `/flows/${res.body.flows[0].id}/export`, { token: user.accessToken })).body;
    expect(out.map((n: { type: string }) => n.type)).toEqual(["tab", "http in", "template", "http response"]);
    expect(out[1]).toMatchObject({ url: "/hello", method: "get" });
    expect(out[3]).toMatchObject({ statusCode: "200", headers: { "content-type": "text/plain" } });
  });

  it("refuses an empty import", async () => {
    expect((await request("POST", "/flows/import", { token: user.accessToken, body: { flows: [] } })).status).toBe(400);
  });
});

describe("editor support", () => {
  it("lists each type's output rule and defaults, so the editor counts ports as the server does", async () => {
    const res = await request("GET", "/nodes", { token: user.accessToken });
    const types = Object.fromEntries(res.body.nodes.map((n: { type: string }) => [n.type, n]));
    expect(types.switch).toMatchObject({ outputs: 1, outputs_rule: { count_of: "rules" }, defaults: { property: "payload" } });
    expect(types.function).toMatchObject({ outputs_rule: { value_of: "outputs" }, defaults: { code: "return msg;" } });
    expect(types.debug.outputs_rule).toBe(0);
  });

  it("an mqtt in's input port follows its dynamic subscription; a flow stored with a wire into a closed one still deploys", async () => {
    const res = await request("GET", "/nodes", { token: user.accessToken });
    const mqttIn = res.body.nodes.find((n: { type: string }) => n.type === "mqtt-in");
    expect(mqttIn).toMatchObject({ inputs: 0, inputs_rule: { value_of: "inputs" } });
    expect(res.body.nodes.find((n: { type: string }) => n.type === "debug")).toMatchObject({ inputs: 1, inputs_rule: 1 });
    const [tick, sub] = [uid("tick"), uid("sub")];
    const nodes = [
      { id: tick, type: "inject", position: { x: 100, y: 100 } },
      { id: sub, type: "mqtt-in", position: { x: 300, y: 100 }, config: { topic: "", inputs: 1 } },
    ];
    const created = await request("POST", "/flows", { token: user.accessToken, body: { name: uid("dynamic"), nodes, connections: [{ source: tick, target: sub }] } });
    expect(created.status, created.text).toBe(201);
    const flow = created.body.flow;
    // Closing the input while the wire stays is refused, and changes nothing.
    const closing = await request("PUT", `/flows/${flow.id}`, { token: user.accessToken, body: { name: flow.name, revision: flow.revision, nodes: [nodes[0], { ...nodes[1], config: { topic: "t", inputs: 0 } }], connections: [{ source: tick, target: sub }] } });
    expect(closing.status, closing.text).toBe(400);
    expect(closing.body.error.details).toContainEqual({ path: "connections[0].target", message: expect.stringMatching(/has no input/) });
    expect((await request("GET", `/flows/${flow.id}`, { token: user.accessToken })).body.flow.revision).toBe(flow.revision);
    // A flow saved when every mqtt in had its port (before this rule): it deploys as it ran.
    const stored = nodes.map((n) => (n.id === sub ? { ...n, config: { ...flow.nodes[1].config, topic: "t", inputs: 0 } } : flow.nodes[0]));
    await testApp.app.db.prisma.flow.update({ where: { id: flow.id }, data: { nodes: stored } });
    const deployed = await request("POST", `/flows/${flow.id}/deploy`, { token: user.accessToken });
    expect(deployed.status, deployed.text).toBe(200);
  });

  it("validates one node's config: defaults filled, refusals with paths relative to the config", async () => {
    const ok = await request("POST", "/nodes/switch/validate", { token: user.accessToken, body: { config: { rules: [{ t: "eq", v: "a" }, { t: "else" }] } } });
    expect(ok.status).toBe(200);
    expect(ok.body.config).toMatchObject({ property: "payload", check_all: true, rules: [{ t: "eq", v: "a", v_type: "str" }, { t: "else" }] });
    const bad = await request("POST", "/nodes/switch/validate", { token: user.accessToken, body: { config: { rules: [{ t: "regex", v: "(" }] } } });
    expect(bad.status).toBe(400);
    // Switch regexes are RE2 (linear time): the refusal names the field and says why.
    expect(bad.body.error.details).toEqual([{ path: "rules[0].v", message: expect.stringMatching(/^is not a supported regular expression .*missing closing \)/) }]);
    const cron = await request("POST", "/nodes/inject/validate", { token: user.accessToken, body: { config: { cron: "whenever" } } });
    expect(cron.body.error.details[0].path).toBe("cron");
    expect((await request("POST", "/nodes/teleport/validate", { token: user.accessToken, body: { config: {} } })).status).toBe(404);
  });

  it("serves the deployed graph for the changed-since-deploy marks", async () => {
    const { body } = simpleFlow("deployed graph");
    const flow = (await request("POST", "/flows", { token: user.accessToken, body })).body.flow;
    expect((await request("GET", `/flows/${flow.id}/deployed`, { token: user.accessToken })).body).toEqual({ deployed: null });
    expect((await request("POST", `/flows/${flow.id}/deploy`, { token: user.accessToken })).status).toBe(200);
    await request("PUT", `/flows/${flow.id}`, { token: user.accessToken, body: { name: "renamed", revision: flow.revision } });
    const deployed = (await request("GET", `/flows/${flow.id}/deployed`, { token: user.accessToken })).body.deployed;
    expect(deployed).toMatchObject({ revision: 1, nodes: flow.nodes, connections: flow.connections });
    const other = await signUp(request);
    expect((await request("GET", `/flows/${flow.id}/deployed`, { token: other.accessToken })).status).toBe(404);
    await request("POST", `/flows/${flow.id}/deploy`, { token: user.accessToken }).then(() => request("DELETE", `/flows/${flow.id}`, { token: user.accessToken }));
  });

  it("serves the editor's clipboard over tRPC only (behaviour: flows.service.integration.test.ts)", async () => {
    const { body, ids } = simpleFlow("clipboard");
    const flow = (await request("POST", "/flows", { token: user.accessToken, body })).body.flow;
    const caller = testCaller(testApp.app, { credentials: { authorization: `Bearer ${user.accessToken}` } });
    const json = await caller.flows.copySelection({ id: flow.id, nodes: flow.nodes, connections: flow.connections });
    const back = await caller.flows.parseSelection({ flows: json });
    expect(back.nodes.map((n) => n.id)).toEqual([ids.inject, ids.change, ids.debug]);
    expect(back.connections).toEqual(flow.connections);
  });
});
