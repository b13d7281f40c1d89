import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";

/**
 * PUT /flows/{id}/export: a flow replaced in place by Node-RED JSON of one tab (what `flowplane flows
 * push` sends for a pulled file), checked as an update is, with tenancy and the revision guard.
 */
const testApp = setUpTestApp();
const request = testApp.request;
let owner: Awaited<ReturnType<typeof signUp>>;
let stranger: Awaited<ReturnType<typeof signUp>>;

beforeAll(async () => {
  owner = await signUp(request);
  stranger = await signUp(request);
});

let seq = 0;
const uid = (p: string) => `${p}-${Date.now().toString(36)}-${++seq}`;

async function importOne(token: string, ids: { inject: string; debug: string }, label = "repo flow") {
  const res = await request("POST", "/flows/import", {
    token,
    body: {
      flows: [
        { id: "t1", type: "tab", label },
        { id: ids.inject, type: "inject", z: "t1", name: "go", props: [{ p: "payload" }], payload: "a", payloadType: "str", x: 100, y: 100, wires: [[ids.debug]] },
        { id: ids.debug, type: "debug", z: "t1", name: "out", active: true, complete: "payload", x: 300, y: 100, wires: [] },
      ],
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.flows[0] as { id: string; revision: number };
}

describe("PUT /flows/{id}/export", () => {
  it("replaces name, description and graph from the pulled file, keeping the flow's id and node ids", async () => {
    const ids = { inject: uid("in"), debug: uid("dbg") };
    const flow = await importOne(owner.accessToken, ids);
    const pulled = await request("GET", `/flows/${flow.id}/export`, { token: owner.accessToken });
    expect(pulled.status).toBe(200);
    const nodes = pulled.body as Array<Record<string, unknown>>;
    nodes[0]!.label = "renamed in git";
    nodes[0]!.info = "reviewed";
    const change = uid("chg");
    nodes.find((n) => n.id === ids.inject)!.wires = [[change]];
    nodes.push({ id: change, type: "change", z: flow.id, name: "", rules: [{ t: "set", p: "payload", pt: "msg", to: "b", tot: "str" }], x: 200, y: 100, wires: [[ids.debug]] });
    const res = await request("PUT", `/flows/${flow.id}/export`, { token: owner.accessToken, body: { flows: nodes, revision: flow.revision } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.warnings).toEqual([]);
    expect(res.body.flow).toMatchObject({ id: flow.id, name: "renamed in git", description: "reviewed", revision: flow.revision + 1 });
    expect(res.headers.get("etag")).toBe(`"${flow.revision + 1}"`);
    const ours = res.body.flow.nodes as Array<{ id: string; type: string }>;
    expect(ours.map((n) => n.id).sort()).toEqual([ids.inject, ids.debug, change].sort());
    expect(res.body.flow.connections).toEqual(
      expect.arrayContaining([
        { source: ids.inject, source_port: 0, target: change },
        { source: change, source_port: 0, target: ids.debug },
      ]),
    );
  });

  it("gives fresh ids to nodes another flow of the organization uses, and says so", async () => {
    const a = await importOne(owner.accessToken, { inject: uid("in"), debug: uid("dbg") });
    const otherIds = { inject: uid("in"), debug: uid("dbg") };
    await importOne(owner.accessToken, otherIds, "other");
    const file = [
      { id: a.id, type: "tab", label: "a" },
      { id: otherIds.inject, type: "inject", z: a.id, props: [{ p: "payload" }], x: 1, y: 1, wires: [] },
    ];
    const res = await request("PUT", `/flows/${a.id}/export`, { token: owner.accessToken, body: { flows: file } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.flow.nodes[0].id).not.toBe(otherIds.inject);
    expect(res.body.warnings.join("\n")).toContain(`node ${otherIds.inject} was renamed`);
  });

  it("refuses a stale revision, several tabs, a bad graph, and changes nothing", async () => {
    const flow = await importOne(owner.accessToken, { inject: uid("in"), debug: uid("dbg") });
    const before = await request("GET", `/flows/${flow.id}`, { token: owner.accessToken });
    const stale = await request("PUT", `/flows/${flow.id}/export`, { token: owner.accessToken, body: { flows: [{ id: "t", type: "tab", label: "x" }], revision: flow.revision + 5 } });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe("REVISION_CONFLICT");
    const twoTabs = await request("PUT", `/flows/${flow.id}/export`, { token: owner.accessToken, body: { flows: [{ id: "t", type: "tab" }, { id: "u", type: "tab" }] } });
    expect(twoTabs.status).toBe(400);
    expect(twoTabs.body.error.code).toBe("VALIDATION_FAILED");
    const notArray = await request("PUT", `/flows/${flow.id}/export`, { token: owner.accessToken, body: { flows: "nope" } });
    expect(notArray.status).toBe(400);
    const after = await request("GET", `/flows/${flow.id}`, { token: owner.accessToken });
    expect(after.body.flow).toEqual(before.body.flow);
  });

  it("another organization's flow is not found, and a viewer-less key without flows:write is refused", async () => {
    const flow = await importOne(owner.accessToken, { inject: uid("in"), debug: uid("dbg") });
    const res = await request("PUT", `/flows/${flow.id}/export`, { token: stranger.accessToken, body: { flows: [{ id: "t", type: "tab", label: "stolen" }] } });
    expect(res.status).toBe(404);
    const key = await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "read only", kind: "user", scopes: ["flows:read"] } });
    expect(key.status).toBe(201);
    const readOnly = await request("PUT", `/flows/${flow.id}/export`, { headers: { "x-api-key": key.body.secret }, body: { flows: [{ id: "t", type: "tab", label: "x" }] } });
    expect(readOnly.status).toBe(403);
    const after = await request("GET", `/flows/${flow.id}`, { token: owner.accessToken });
    expect(after.body.flow.name).toBe("repo flow");
  });
});
