import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { joinAs, signUp } from "@/test/accounts";
import { MAX_SUBFLOW_DEPTH } from "@/shared/subflows";
import { testCaller } from "@/test/app";

/** SPEC §16: subflow definitions through REST (/subflows), their instances in flows, and deploys. */
const testApp = setUpTestApp();
const request = testApp.request;
let owner: Awaited<ReturnType<typeof signUp>>;
let token: string;

beforeAll(async () => {
  owner = await signUp(request);
  token = owner.accessToken;
});

let seq = 0;
const uid = (p: string) => `${p}${Date.now().toString(36)}${++seq}`;

/** A definition: in → change (sets payload to "<tag>") → out 0, and a second output fed by a switch. */
function definition(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    description: `${name}: tags the message\nMore details.`,
    category: "team library",
    color: "#3FADB5",
    env: [{ name: "TAG", type: "str", value: "default" }],
    nodes: [
      { id: "in", type: "subflow-in", position: { x: 50, y: 50 } },
      { id: "tag", type: "change", config: { rules: [{ t: "set", p: "payload", pt: "msg", to: "${TAG}", tot: "env" }] } },
      { id: "out0", type: "subflow-out", config: { port: 0 } },
      { id: "out1", type: "subflow-out", config: { port: 1 } },
    ],
    connections: [
      { source: "in", target: "tag" },
      { source: "tag", target: "out0" },
      { source: "in", target: "out1" },
    ],
    ...extra,
  };
}

async function create(body: Record<string, unknown>, as = token) {
  return request("POST", "/subflows", { token: as, body });
}

describe("subflow definitions: CRUD", () => {
  it("creates, lists, reads and updates a definition; its ports come from its port nodes", async () => {
    const res = await create(definition("Tagger"));
    expect(res.status).toBe(201);
    const sf = res.body.subflow;
    expect(sf).toMatchObject({ name: "Tagger", category: "team library", color: "#3FADB5", icon: null, inputs: 1, outputs: 2, status: false, revision: 1, used_by: [], used_by_subflows: [] });
    expect(sf.id).toMatch(/^[0-9a-f]{16}$/);
    expect(sf.env).toEqual([{ name: "TAG", type: "str", value: "default" }]);
    expect(sf.nodes.find((n: { id: string }) => n.id === "out1").config).toEqual({ port: 1 });

    const list = await request("GET", "/subflows", { token });
    const item = list.body.subflows.find((s: { id: string }) => s.id === sf.id);
    expect(item).toMatchObject({ name: "Tagger", inputs: 1, outputs: 2 });
    expect(item).not.toHaveProperty("nodes");

    const got = await request("GET", `/subflows/${sf.id}`, { token });
    expect(got.status).toBe(200);
    expect(got.headers.get("etag")).toBe('"1"');

    const stale = await request("PUT", `/subflows/${sf.id}`, { token, body: { name: "Late", revision: 7 } });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe("REVISION_CONFLICT");

    const put = await request("PUT", `/subflows/${sf.id}`, {
      token,
      body: { revision: 1, name: "Tagger 2", nodes: [...definition("x").nodes, { id: "st", type: "subflow-status" }], connections: [{ source: "in", target: "st" }] },
    });
    expect(put.status).toBe(200);
    expect(put.body.subflow).toMatchObject({ name: "Tagger 2", revision: 2, status: true, inputs: 1, outputs: 2 });
    expect(put.body.subflow.connections).toEqual([{ source: "in", source_port: 0, target: "st" }]);

    const dup = await create({ ...definition("Again"), id: sf.id });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("SUBFLOW_EXISTS");
  });

  it("keeps a chosen id, and refuses ids an instance type cannot carry", async () => {
    const id = uid("sf_");
    expect((await create({ ...definition("Chosen"), id })).body.subflow.id).toBe(id);
    const long = await create({ ...definition("Long"), id: "x".repeat(57) });
    expect(long.status).toBe(400);
    expect(long.body.error.details[0].path).toBe("id");
  });

  it("refuses bad port nodes, bad inner configs and unknown nested subflows, with paths", async () => {
    const base = definition("Bad");
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ nodes: [...base.nodes, { id: "in2", type: "subflow-in" }] }, "nodes[4].type", /at most one subflow-in/],
      [{ nodes: [...base.nodes, { id: "s1", type: "subflow-status" }, { id: "s2", type: "subflow-status" }] }, "nodes[5].type", /at most one subflow-status/],
      [{ nodes: [...base.nodes, { id: "out1b", type: "subflow-out", config: { port: 1 } }] }, "nodes[4].config.port", /already/],
      [{ nodes: [...base.nodes.slice(0, 3), { id: "out2", type: "subflow-out", config: { port: 2 } }], connections: [] }, "nodes[3].config.port", /gap/],
      [{ nodes: [...base.nodes, { id: "fn", type: "function", config: { outputs: "many" } }] }, "nodes[4].config.outputs", /./],
      [{ nodes: [...base.nodes, { id: "nest", type: "subflow:nosuchthing" }] }, "nodes[4].type", /no subflow nosuchthing/],
      [{ connections: [{ source: "out0", target: "tag" }] }, "connections[0].source_port", /0 outputs/],
      [{ groups: [{ id: "g", nodes: ["nope"] }] }, "groups[0].nodes[0]", /no node or group/],
      [{ env: [{ name: "", value: "x" }] }, "env[0].name", /./],
    ];
    for (const [change, path, message] of cases) {
      const res = await create({ ...base, ...change });
      expect(res.status, JSON.stringify(change)).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
      const detail = res.body.error.details.find((d: { path: string }) => d.path === path);
      expect(detail, `${path} in ${JSON.stringify(res.body.error.details)}`).toBeDefined();
      expect(detail.message).toMatch(message);
    }
  });

  it("refuses a definition that would contain itself, directly or through another, and nesting deeper than the limit", async () => {
    const a = (await create(definition("A"))).body.subflow;
    const b = (await create({ ...definition("B"), nodes: [...definition("B").nodes, { id: "useA", type: `subflow:${a.id}` }] })).body.subflow;
    expect(b.nodes.find((n: { id: string }) => n.id === "useA").config).toEqual({ env: [] });
    // A now using B: A → B → A.
    const cycle = await request("PUT", `/subflows/${a.id}`, { token, body: { nodes: [...definition("A").nodes, { id: "useB", type: `subflow:${b.id}` }] } });
    expect(cycle.status).toBe(400);
    expect(cycle.body.error.message).toMatch(/contain themselves/);
    const self = await request("PUT", `/subflows/${a.id}`, { token, body: { nodes: [...definition("A").nodes, { id: "useA", type: `subflow:${a.id}` }] } });
    expect(self.status).toBe(400);
    expect(self.body.error.message).toMatch(/contain themselves/);

    // A chain of MAX_SUBFLOW_DEPTH definitions is fine; one more is refused.
    let inner = (await create({ name: "level 1", nodes: [{ id: "in", type: "subflow-in" }] })).body.subflow;
    for (let level = 2; level <= MAX_SUBFLOW_DEPTH; level++) {
      const res = await create({ name: `level ${level}`, nodes: [{ id: "in", type: "subflow-in" }, { id: "n", type: `subflow:${inner.id}` }], connections: [{ source: "in", target: "n" }] });
      expect(res.status, `level ${level}`).toBe(201);
      inner = res.body.subflow;
    }
    const tooDeep = await create({ name: "too deep", nodes: [{ id: "n", type: `subflow:${inner.id}` }] });
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.error.message).toMatch(new RegExp(`nest ${MAX_SUBFLOW_DEPTH} deep at most`));
  });

  it("members write, viewers read (403 on writes)", async () => {
    const viewer = await joinAs(testApp.app, request, owner, "viewer");
    const member = await joinAs(testApp.app, request, owner, "member");
    const sf = (await create(definition("Shared"), member.token)).body.subflow;
    expect(sf.id).toBeDefined();
    expect((await request("GET", "/subflows", { token: viewer.token })).status).toBe(200);
    expect((await request("GET", `/subflows/${sf.id}`, { token: viewer.token })).status).toBe(200);
    const refused = [
      await create(definition("Viewer's"), viewer.token),
      await request("PUT", `/subflows/${sf.id}`, { token: viewer.token, body: { name: "nope" } }),
      await request("DELETE", `/subflows/${sf.id}`, { token: viewer.token }),
      await request("POST", `/subflows/${sf.id}/deploy`, { token: viewer.token }),
    ];
    for (const res of refused) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("FORBIDDEN");
    }
    expect((await request("PUT", `/subflows/${sf.id}`, { token: member.token, body: { name: "Member's" } })).status).toBe(200);
  });

  it("another organization's definition is 404 everywhere, and its instances are refused in our flows", async () => {
    const other = await signUp(request);
    const theirs = (await create(definition("Theirs"), other.accessToken)).body.subflow;
    for (const [method, path, body] of [
      ["GET", `/subflows/${theirs.id}`, undefined],
      ["PUT", `/subflows/${theirs.id}`, { name: "pwned" }],
      ["DELETE", `/subflows/${theirs.id}`, undefined],
      ["POST", `/subflows/${theirs.id}/deploy`, undefined],
      ["GET", `/nodes/${encodeURIComponent(`subflow:${theirs.id}`)}/schema`, undefined],
    ] as const) {
      const res = await request(method, path, { token, body });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const flow = await request("POST", "/flows", { token, body: { name: "borrow", nodes: [{ id: uid("n"), type: `subflow:${theirs.id}` }] } });
    expect(flow.status).toBe(400);
    expect(flow.body.error.details[0]).toMatchObject({ path: "nodes[0].type", message: expect.stringMatching(/no subflow/) });
    expect((await request("GET", "/nodes", { token })).body.nodes.map((n: { type: string }) => n.type)).not.toContain(`subflow:${theirs.id}`);
    expect((await request("GET", `/subflows/${theirs.id}`, { token: other.accessToken })).body.subflow.name).toBe("Theirs");
  });
});

describe("instances in flows", () => {
  it("take their ports from the definition and their env from their config; the catalog lists the definition", async () => {
    const sf = (await create(definition("Palette entry"))).body.subflow;
    const [i, inst, d0, d1] = [uid("i"), uid("s"), uid("d"), uid("d")];
    const nodes = [
      { id: i, type: "inject" },
      { id: inst, type: `subflow:${sf.id}`, name: "tag it", config: { env: [{ name: "TAG", value: "mine" }] } },
      { id: d0, type: "debug" },
      { id: d1, type: "debug" },
    ];
    const ok = await request("POST", "/flows", {
      token,
      body: { name: uid("uses "), nodes, connections: [{ source: i, target: inst }, { source: inst, source_port: 0, target: d0 }, { source: inst, source_port: 1, target: d1 }] },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.flow.nodes[1]).toMatchObject({ type: `subflow:${sf.id}`, config: { env: [{ name: "TAG", type: "str", value: "mine" }] } });

    const noPort = await request("POST", "/flows", { token, body: { name: "x", nodes: nodes.map((n) => ({ ...n, id: `${n.id}x` })), connections: [{ source: `${inst}x`, source_port: 2, target: `${d0}x` }] } });
    expect(noPort.status).toBe(400);
    expect(noPort.body.error.details[0]).toMatchObject({ path: "connections[0].source_port", message: expect.stringMatching(/has 2 outputs/) });
    const badEnv = await request("POST", "/flows", { token, body: { name: "x", nodes: [{ id: uid("e"), type: `subflow:${sf.id}`, config: { env: [{ name: "TAG", type: "nonsense" }] } }] } });
    expect(badEnv.status).toBe(400);
    expect(badEnv.body.error.details[0].path).toBe("nodes[0].config.env[0].type");

    const catalog = (await request("GET", "/nodes", { token })).body.nodes;
    expect(catalog.find((n: { type: string }) => n.type === `subflow:${sf.id}`)).toEqual({
      type: `subflow:${sf.id}`,
      category: "team library",
      name: "Palette entry",
      description: "Palette entry: tags the message",
      help: "Palette entry: tags the message\nMore details.",
      inputs: 1,
      outputs: 2,
      inputs_rule: 1,
      outputs_rule: 2,
      defaults: { env: [] },
      version: 1,
      subflow_only: false,
      kind: "node",
      color: "#3FADB5",
      form: {},
    });
    const schema = await request("GET", `/nodes/${encodeURIComponent(`subflow:${sf.id}`)}/schema`, { token });
    expect(schema.status).toBe(200);
    expect(schema.body).toMatchObject({ inputs: 1, outputs: 2, defaults: { env: [] } });
    const validated = await request("POST", `/nodes/${encodeURIComponent(`subflow:${sf.id}`)}/validate`, { token, body: { config: { env: [{ name: "TAG", value: "v" }] } } });
    expect(validated.body.config).toEqual({ env: [{ name: "TAG", type: "str", value: "v" }] });
  });

  it("the editor's clipboard copies an instance with its definition's ports and pastes it back as an instance (tRPC)", async () => {
    const sf = (await create(definition("Clipboard"))).body.subflow;
    const [inst, d] = [uid("s"), uid("d")];
    const flow = (
      await request("POST", "/flows", { token, body: { name: uid("clip "), nodes: [{ id: inst, type: `subflow:${sf.id}`, config: { env: [{ name: "TAG", value: "x" }] } }, { id: d, type: "debug" }], connections: [{ source: inst, source_port: 1, target: d }] } })
    ).body.flow;
    const caller = testCaller(testApp.app, { credentials: { authorization: `Bearer ${token}` } });
    const json = (await caller.flows.copySelection({ id: flow.id, nodes: flow.nodes, connections: flow.connections })) as Array<Record<string, unknown>>;
    expect(json.find((n) => n.id === inst)).toMatchObject({ type: `subflow:${sf.id}`, env: [{ name: "TAG", type: "str", value: "x" }], wires: [[], [d]] });
    const back = await caller.flows.parseSelection({ flows: json });
    expect(back.warnings).toEqual([]);
    expect(back.nodes.map((n) => [n.id, n.type])).toEqual([
      [inst, `subflow:${sf.id}`],
      [d, "debug"],
    ]);
    expect(back.connections).toEqual(flow.connections);
    // A definition the organization lacks: said, and its instance pastes as an unknown node.
    const foreign = await caller.flows.parseSelection({ flows: [{ id: "ffff000000000001", type: "subflow", name: "elsewhere", in: [], out: [] }, { id: "n1", type: "subflow:ffff000000000001", x: 1, y: 1, wires: [] }] });
    expect(foreign.nodes[0]!.type).toBe("unknown");
    expect(foreign.warnings[0]).toMatch(/subflow ffff000000000001 is not in this organization/);
  });

  it("DELETE is refused (409, naming them) while a flow or another definition uses the definition", async () => {
    const sf = (await create(definition("In use"))).body.subflow;
    const flowName = uid("user flow ");
    const flow = (await request("POST", "/flows", { token, body: { name: flowName, nodes: [{ id: uid("s"), type: `subflow:${sf.id}` }] } })).body.flow;
    const parent = (await create({ name: "Parent", nodes: [{ id: "n", type: `subflow:${sf.id}` }] })).body.subflow;
    const refused = await request("DELETE", `/subflows/${sf.id}`, { token });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("SUBFLOW_IN_USE");
    expect(refused.body.error.message).toContain(flowName);
    expect(refused.body.error.message).toContain('subflow "Parent"');
    expect(refused.body.error.details.map((d: { path: string }) => d.path)).toEqual([`flows.${flow.id}`, `subflows.${parent.id}`]);

    expect((await request("DELETE", `/subflows/${parent.id}`, { token })).status).toBe(204);
    expect((await request("DELETE", `/flows/${flow.id}`, { token })).status).toBe(204);
    expect((await request("DELETE", `/subflows/${sf.id}`, { token })).status).toBe(204);
    expect((await request("GET", `/subflows/${sf.id}`, { token })).status).toBe(404);
  });
});

describe("deploying flows that use subflows", () => {
  it("the deployment carries every definition used (nested too); POST /subflows/{id}/deploy redeploys the flows running an older revision", async () => {
    const inner = (await create(definition("Inner"))).body.subflow;
    const outer = (
      await create({
        name: "Outer",
        nodes: [{ id: "in", type: "subflow-in" }, { id: "use", type: `subflow:${inner.id}` }, { id: "out", type: "subflow-out" }],
        connections: [{ source: "in", target: "use" }, { source: "use", target: "out" }],
      })
    ).body.subflow;
    const [i, inst, d] = [uid("i"), uid("s"), uid("d")];
    const flow = (
      await request("POST", "/flows", {
        token,
        body: { name: uid("deployed "), nodes: [{ id: i, type: "inject" }, { id: inst, type: `subflow:${outer.id}` }, { id: d, type: "debug" }], connections: [{ source: i, target: inst }, { source: inst, target: d }] },
      })
    ).body.flow;
    expect((await request("POST", `/flows/${flow.id}/deploy`, { token })).status).toBe(200);

    const row = await testApp.app.db.prisma.deployment.findFirstOrThrow({ where: { flowId: flow.id }, orderBy: { deployedAt: "desc" } });
    const snapshot = row.snapshot as { subflows: Record<string, { id: string; name: string; revision: number; env: unknown[]; nodes: unknown[]; connections: unknown[] }> };
    expect(Object.keys(snapshot.subflows).sort()).toEqual([inner.id, outer.id].sort());
    expect(snapshot.subflows[inner.id]).toMatchObject({ id: inner.id, name: "Inner", revision: 1, env: [{ name: "TAG", type: "str", value: "default" }] });
    expect(snapshot.subflows[inner.id]!.nodes).toHaveLength(4);

    const before = (await request("GET", `/subflows/${inner.id}`, { token })).body.subflow;
    expect(before.used_by).toEqual([{ flow_id: flow.id, name: flow.name, direct: false, deployed_revision: 1, current: true }]);
    expect(before.used_by_subflows).toEqual([{ id: outer.id, name: "Outer" }]);

    expect((await request("PUT", `/subflows/${inner.id}`, { token, body: { env: [{ name: "TAG", value: "changed" }] } })).status).toBe(200);
    const stale = (await request("GET", `/subflows/${inner.id}`, { token })).body.subflow;
    expect(stale.used_by).toEqual([{ flow_id: flow.id, name: flow.name, direct: false, deployed_revision: 1, current: false }]);

    const redeploy = await request("POST", `/subflows/${inner.id}/deploy`, { token });
    expect(redeploy.status).toBe(200);
    expect(redeploy.body.deployments).toHaveLength(1);
    expect(redeploy.body.deployments[0]).toMatchObject({ flow_id: flow.id, revision: flow.revision });
    const after = (await request("GET", `/subflows/${inner.id}`, { token })).body.subflow;
    expect(after.used_by[0]).toMatchObject({ deployed_revision: 2, current: true });

    // The new deployment's changes name the instance whose definition changed; nothing else changed.
    const history = (await request("GET", `/flows/${flow.id}/deployments`, { token })).body.deployments;
    expect(history).toHaveLength(2);
    expect(history[0].changes).toEqual({ added: [], changed: [{ id: inst, type: `subflow:${outer.id}`, name: "" }], removed: [] });
    const latest = await testApp.app.db.prisma.deployment.findUniqueOrThrow({ where: { id: redeploy.body.deployments[0].deployment_id } });
    expect((latest.snapshot as typeof snapshot).subflows[inner.id]!.env).toEqual([{ name: "TAG", type: "str", value: "changed" }]);

    // Rolling back runs the definitions that deployment carried.
    const rollback = await request("POST", `/flows/${flow.id}/rollback`, { token, body: { deployment_id: history[1].id } });
    expect(rollback.status).toBe(200);
    expect((await request("GET", `/subflows/${inner.id}`, { token })).body.subflow.used_by[0]).toMatchObject({ deployed_revision: 1, current: false });

    // Nothing to redeploy for a definition no deployed flow uses.
    const unused = (await create(definition("Unused"))).body.subflow;
    expect((await request("POST", `/subflows/${unused.id}/deploy`, { token })).body).toEqual({ deployments: [] });
  });

  it("refuses to remove a port a saved flow wires (400 naming it), and to redeploy a running graph that wires it (400, nothing deployed)", async () => {
    const sf = (await create(definition("Shrinks"))).body.subflow;
    const [inst, d] = [uid("s"), uid("d")];
    const flow = (
      await request("POST", "/flows", { token, body: { name: uid("wired "), nodes: [{ id: inst, type: `subflow:${sf.id}` }, { id: d, type: "debug" }], connections: [{ source: inst, source_port: 1, target: d }] } })
    ).body.flow;
    await request("POST", `/flows/${flow.id}/deploy`, { token });
    const oneOutput = { nodes: definition("x").nodes.filter((n) => n.id !== "out1"), connections: [{ source: "in", target: "tag" }, { source: "tag", target: "out0" }] };
    const refused = await request("PUT", `/subflows/${sf.id}`, { token, body: oneOutput });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/removing output 1 would leave wires to nowhere in flow "wired /);
    expect(refused.body.error.details).toEqual([{ path: `flows.${flow.id}`, message: expect.stringContaining("wires a port this change removes") }]);
    expect((await request("GET", `/subflows/${sf.id}`, { token })).body.subflow.revision).toBe(1);

    // The saved flow no longer wires it (the running deployment still does): the definition may change...
    await request("PUT", `/flows/${flow.id}`, { token, body: { connections: [] } });
    expect((await request("PUT", `/subflows/${sf.id}`, { token, body: oneOutput })).body.subflow.outputs).toBe(1);
    // ...but the running graph cannot take it: nothing is redeployed.
    const res = await request("POST", `/subflows/${sf.id}/deploy`, { token });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(flow.id);
    expect((await request("GET", `/flows/${flow.id}/deployments`, { token })).body.deployments).toHaveLength(1);
  });

});
