import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";

/** SPEC §16: groups on flows (stored, validated, deployed, imported and exported) and junction nodes. */
const testApp = setUpTestApp();
const request = testApp.request;
let user: Awaited<ReturnType<typeof signUp>>;

beforeAll(async () => {
  user = await signUp(request);
});

let seq = 0;
const uid = (p: string) => `${p}${Date.now().toString(36)}${++seq}`;

async function createFlow(body: Record<string, unknown>) {
  return request("POST", "/flows", { token: user.accessToken, body: { name: uid("Groups "), ...body } });
}

function graph() {
  const [a, b, c, j] = [uid("a"), uid("b"), uid("c"), uid("j")];
  return {
    ids: { a, b, c, j },
    nodes: [
      { id: a, type: "inject", position: { x: 100, y: 100 } },
      { id: j, type: "junction", position: { x: 200, y: 100 } },
      { id: b, type: "debug", position: { x: 300, y: 100 } },
      { id: c, type: "debug", position: { x: 300, y: 200 } },
    ],
    connections: [
      { source: a, target: j },
      { source: j, target: b },
      { source: j, target: c },
    ],
  };
}

describe("groups on flows", () => {
  it("are stored with the flow, nested, and shown by GET; PUT replaces them", async () => {
    const { ids, nodes, connections } = graph();
    const groups = [
      { id: uid("g1"), name: "Outer", style: { label: true, stroke: "#ff0000" }, nodes: [ids.a, uid("never")] },
    ];
    // A member that is not in the flow: refused with its path.
    const bad = await createFlow({ nodes, connections, groups });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("VALIDATION_FAILED");
    expect(bad.body.error.details[0].path).toBe("groups[0].nodes[1]");

    const inner = uid("g2");
    const outer = uid("g1");
    const res = await createFlow({
      nodes,
      connections,
      groups: [
        { id: outer, name: "Outer", style: { label: true, stroke: "#ff0000" }, nodes: [ids.a, inner] },
        { id: inner, name: "Inner", nodes: [ids.b, ids.c] },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.flow.groups).toEqual([
      { id: outer, name: "Outer", style: { label: true, stroke: "#ff0000" }, nodes: [ids.a, inner], env: [] },
      { id: inner, name: "Inner", style: {}, nodes: [ids.b, ids.c], env: [] },
    ]);
    const id = res.body.flow.id;
    const got = await request("GET", `/flows/${id}`, { token: user.accessToken });
    expect(got.body.flow.groups).toHaveLength(2);

    const put = await request("PUT", `/flows/${id}`, { token: user.accessToken, body: { groups: [{ id: outer, name: "Only", nodes: [ids.j] }], revision: got.body.flow.revision } });
    expect(put.status).toBe(200);
    expect(put.body.flow.groups).toEqual([{ id: outer, name: "Only", style: {}, nodes: [ids.j], env: [] }]);
    expect(put.body.flow.revision).toBe(got.body.flow.revision + 1);

    // Removing a node that a group holds, without changing the groups: refused (the group would name nothing).
    const orphan = await request("PUT", `/flows/${id}`, { token: user.accessToken, body: { nodes: nodes.filter((n) => n.id !== ids.j), connections: [] } });
    expect(orphan.status).toBe(400);
    expect(orphan.body.error.details[0]).toMatchObject({ path: "groups[0].nodes[0]" });
  });

  it("refuses a node in two groups, a group inside itself, groups containing each other, and a group id that is a node's", async () => {
    const { ids, nodes, connections } = graph();
    const [g1, g2] = [uid("g"), uid("g")];
    const cases: Array<[unknown[], string, RegExp]> = [
      [[{ id: g1, nodes: [ids.a] }, { id: g2, nodes: [ids.a] }], "groups[1].nodes[0]", /already in group/],
      [[{ id: g1, nodes: [g1] }], "groups[0].nodes[0]", /cannot contain itself/],
      [[{ id: g1, nodes: [g2] }, { id: g2, nodes: [g1] }], "groups", /contain each other/],
      [[{ id: ids.a, nodes: [ids.b] }], "groups[0].id", /is the id of a node/],
      [[{ id: g1, nodes: [] }, { id: g1, nodes: [] }], "groups[1].id", /duplicates/],
      [[{ id: "not valid!", nodes: [] }], "groups[0].id", /letters, digits/],
    ];
    for (const [groups, path, message] of cases) {
      const res = await createFlow({ nodes, connections, groups });
      expect(res.status, JSON.stringify(groups)).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
      const detail = res.body.error.details.find((d: { path: string }) => d.path === path);
      expect(detail, `${path} in ${JSON.stringify(res.body.error.details)}`).toBeDefined();
      expect(detail.message).toMatch(message);
    }
  });

  it("are carried by the deployment snapshot (GET /flows/{id}/deployed)", async () => {
    const { ids, nodes, connections } = graph();
    const g = uid("g");
    const res = await createFlow({ nodes, connections, groups: [{ id: g, name: "Deployed", nodes: [ids.a, ids.j] }] });
    const id = res.body.flow.id;
    expect((await request("POST", `/flows/${id}/deploy`, { token: user.accessToken })).status).toBe(200);
    const deployed = await request("GET", `/flows/${id}/deployed`, { token: user.accessToken });
    expect(deployed.body.deployed.groups).toEqual([{ id: g, name: "Deployed", style: {}, nodes: [ids.a, ids.j], env: [] }]);
  });
});

describe("subflow port nodes", () => {
  it("are refused in a flow (they belong in a subflow definition)", async () => {
    const res = await createFlow({ nodes: [{ id: uid("p"), type: "subflow-in" }] });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0]).toMatchObject({ path: "nodes[0].type", message: expect.stringMatching(/subflow definition/) });
  });

  it("are marked subflow_only in the catalog; the junction is listed as a node", async () => {
    const res = await request("GET", "/nodes", { token: user.accessToken });
    const byType = new Map(res.body.nodes.map((n: { type: string }) => [n.type, n]));
    expect(byType.get("junction")).toMatchObject({ inputs: 1, outputs: 1, subflow_only: false, defaults: {} });
    expect(byType.get("subflow-out")).toMatchObject({ inputs: 1, outputs: 0, subflow_only: true });
    expect(byType.get("subflow-in")).toMatchObject({ inputs: 0, outputs: 1, subflow_only: true });
  });
});

describe("Node-RED groups and junctions", () => {
  it("import keeps groups (name, style, members, env, nesting) and junctions, without warnings; export writes them back", async () => {
    const tab = uid("tab");
    const [inj, jn, dbg1, dbg2, outer, inner] = [uid("inj"), uid("jn"), uid("d1"), uid("d2"), uid("go"), uid("gi")];
    const env = [{ name: "LIMIT", value: "3", type: "num" }];
    const flows = [
      { id: tab, type: "tab", label: "Grouped", disabled: false, info: "" },
      { id: outer, type: "group", z: tab, name: "Outer", style: { label: true, fill: "#e3f3d3" }, nodes: [inj, inner], env, x: 34, y: 39, w: 472, h: 202 },
      { id: inner, type: "group", z: tab, g: outer, name: "Inner", style: { label: true }, nodes: [dbg1, dbg2], x: 254, y: 79, w: 232, h: 142 },
      { id: inj, type: "inject", z: tab, g: outer, name: "", props: [{ p: "payload" }], repeat: "", crontab: "", once: false, onceDelay: 0.1, topic: "", payload: "", payloadType: "date", x: 130, y: 100, wires: [[jn]] },
      { id: jn, type: "junction", z: tab, x: 220, y: 100, wires: [[dbg1, dbg2]] },
      { id: dbg1, type: "debug", z: tab, g: inner, name: "", active: true, tosidebar: true, console: false, tostatus: false, complete: "payload", targetType: "msg", statusVal: "", statusType: "auto", x: 370, y: 120, wires: [] },
      { id: dbg2, type: "debug", z: tab, g: inner, name: "", active: true, tosidebar: true, console: false, tostatus: false, complete: "payload", targetType: "msg", statusVal: "", statusType: "auto", x: 370, y: 180, wires: [] },
    ];
    const dry = await request("POST", "/flows/import?dry_run=true", { token: user.accessToken, body: { flows } });
    expect(dry.status).toBe(200);
    expect(dry.body.report.filter((r: { support: string }) => r.support !== "supported")).toEqual([]);
    expect(dry.body.report.filter((r: { type: string }) => r.type === "group" || r.type === "junction")).toHaveLength(3);

    const res = await request("POST", "/flows/import", { token: user.accessToken, body: { flows } });
    expect(res.status).toBe(201);
    expect(res.body.warnings).toEqual([]);
    const flow = res.body.flows[0];
    expect(flow.groups).toEqual([
      { id: outer, name: "Outer", style: { label: true, fill: "#e3f3d3" }, nodes: [inj, inner], env },
      { id: inner, name: "Inner", style: { label: true }, nodes: [dbg1, dbg2], env: [] },
    ]);
    expect(flow.nodes.find((n: { id: string }) => n.id === jn)).toMatchObject({ type: "junction", config: {} });

    const exported = (await request("GET", `/flows/${flow.id}/export`, { token: user.accessToken })).body as Array<Record<string, unknown>>;
    const byId = new Map(exported.map((n) => [n.id, n]));
    expect(byId.get(jn)).toEqual({ id: jn, type: "junction", z: flow.id, x: 220, y: 100, wires: [[dbg1, dbg2]] });
    expect(byId.get(inj)).toMatchObject({ g: outer });
    expect(byId.get(dbg1)).toMatchObject({ g: inner });
    expect(byId.get(jn)).not.toHaveProperty("g");
    const outerOut = byId.get(outer)!;
    const innerOut = byId.get(inner)!;
    expect(outerOut).toMatchObject({ type: "group", z: flow.id, name: "Outer", style: { label: true, fill: "#e3f3d3" }, nodes: [inj, inner], env });
    expect(outerOut).not.toHaveProperty("g");
    expect(innerOut).toMatchObject({ type: "group", g: outer, nodes: [dbg1, dbg2] });
    expect(innerOut).not.toHaveProperty("env");
    // The boxes are drawn around the members: the inner box inside the outer, around both debug nodes.
    const box = (g: Record<string, unknown>) => ({ x: g.x as number, y: g.y as number, r: (g.x as number) + (g.w as number), b: (g.y as number) + (g.h as number) });
    const [o, i] = [box(outerOut), box(innerOut)];
    expect(i.x).toBeGreaterThan(o.x);
    expect(i.r).toBeLessThan(o.r);
    expect(i.b).toBeLessThan(o.b);
    expect(i.x).toBeLessThan(370 - 50);
    expect(i.b).toBeGreaterThan(180 + 15);
    // Groups come before the nodes, as Node-RED writes them.
    expect(exported.findIndex((n) => n.id === outer)).toBeLessThan(exported.findIndex((n) => n.id === inj));
  });
});
