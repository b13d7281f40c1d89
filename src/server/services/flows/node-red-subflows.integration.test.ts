import { beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";

/**
 * SPEC §16: a Node-RED project with a subflow used twice, a nested subflow, groups (one nested) and
 * a junction imports with no warning and exports back equal (node types, configs, wires, group
 * membership, subflow definitions; compared after dropping positions and sizes and sorting keys).
 */
const testApp = setUpTestApp();
const request = testApp.request;
let user: Awaited<ReturnType<typeof signUp>>;

beforeAll(async () => {
  user = await signUp(request);
});

type NrItem = Record<string, unknown>;
const fixture = (): NrItem[] => JSON.parse(readFileSync(path.join(process.cwd(), "src/test/fixtures/node-red-subflows-project.json"), "utf8"));

/** Positions and sizes are the editor's (Node-RED's are measured from fonts); keys in one order; items by id. */
function normalise(items: NrItem[], tabId: string): unknown[] {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (!value || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      if (["x", "y", "w", "h"].includes(key)) continue;
      out[key] = strip((value as Record<string, unknown>)[key]);
    }
    return out;
  };
  return items
    .map((item) => ({ ...item, ...(item.type === "tab" ? { id: "TAB" } : {}), ...(item.z === tabId ? { z: "TAB" } : {}) }))
    .sort((a, b) => String(a.id).localeCompare(String(b.id)))
    .map(strip);
}

describe("Node-RED project with subflows, groups and a junction", () => {
  it("dry run: every item supported, no warning", async () => {
    const res = await request("POST", "/flows/import?dry_run=true", { token: user.accessToken, body: { flows: fixture() } });
    expect(res.status).toBe(200);
    expect(res.body.warnings).toEqual([]);
    expect(res.body.report.filter((r: { support: string }) => r.support !== "supported")).toEqual([]);
    const types = res.body.report.map((r: { type: string }) => r.type);
    expect(types.filter((t: string) => t === "subflow")).toHaveLength(2);
    expect(types.filter((t: string) => t.startsWith("subflow:"))).toHaveLength(3);
  });

  it("imports with no warning (definitions keep their ids) and exports back equal", async () => {
    const original = fixture();
    const res = await request("POST", "/flows/import", { token: user.accessToken, body: { flows: original } });
    expect(res.status).toBe(201);
    expect(res.body.warnings).toEqual([]);
    expect(res.body.subflows.map((s: { id: string }) => s.id).sort()).toEqual(["5b1c0d2e3f405162", "6c2d1e3f40516273"]);
    const flow = res.body.flows[0];
    expect(flow.nodes.filter((n: { type: string }) => n.type === "subflow:5b1c0d2e3f405162")).toHaveLength(2);

    const outer = (await request("GET", "/subflows/5b1c0d2e3f405162", { token: user.accessToken })).body.subflow;
    expect(outer).toMatchObject({ name: "Scale reading", category: "sensors", color: "#C0DEED", icon: "font-awesome/fa-balance-scale", inputs: 1, outputs: 1, status: true });
    expect(outer.used_by).toEqual([{ flow_id: flow.id, name: "Sensor readings", direct: true, deployed_revision: null, current: false }]);
    const inner = (await request("GET", "/subflows/6c2d1e3f40516273", { token: user.accessToken })).body.subflow;
    expect(inner).toMatchObject({ inputs: 1, outputs: 2, status: false });
    expect(inner.connections).toContainEqual({ source: "6c2d1e3f40516273-in", source_port: 0, target: "6c2d1e3f40516273-out1" });

    const exported = (await request("GET", `/flows/${flow.id}/export`, { token: user.accessToken })).body as NrItem[];
    // Definitions before the flow's nodes, as Node-RED writes them.
    const firstNode = exported.findIndex((n) => n.z === flow.id);
    expect(exported.findIndex((n) => n.id === "5b1c0d2e3f405162")).toBeLessThan(firstNode);
    expect(exported.findIndex((n) => n.id === "6c2d1e3f40516273")).toBeLessThan(firstNode);
    expect(normalise(exported, flow.id)).toEqual(normalise(original, "0a1b2c3d4e5f6071"));
  });

  it("imported again, the same definitions are used as they are; a changed one becomes a copy (fresh id, said) and its instances follow", async () => {
    const again = await request("POST", "/flows/import", { token: user.accessToken, body: { flows: fixture().map((n) => (n.type === "tab" ? { ...n, label: "Second copy" } : n)) } });
    expect(again.status).toBe(201);
    // Only the flow's node ids are taken (by the first import): renamed, and said; nothing about the subflows.
    expect(again.body.warnings.every((w: string) => / was renamed [0-9a-f]{16}: its id is already used in this organization$/.test(w))).toBe(true);
    expect(again.body.subflows).toEqual([]);
    expect(again.body.flows[0].nodes.filter((n: { type: string }) => n.type === "subflow:5b1c0d2e3f405162")).toHaveLength(2);

    const changed = fixture().map((n) => (n.type === "tab" ? { ...n, label: "Third copy" } : n.id === "5b1c0d2e3f405162" ? { ...n, info: "changed elsewhere" } : n));
    const res = await request("POST", "/flows/import", { token: user.accessToken, body: { flows: changed } });
    expect(res.status).toBe(201);
    expect(res.body.subflows).toHaveLength(1);
    const copyId = res.body.subflows[0].id;
    expect(copyId).not.toBe("5b1c0d2e3f405162");
    expect(res.body.warnings.filter((w: string) => w.startsWith("subflow"))).toEqual([`subflow 5b1c0d2e3f405162 was imported as ${copyId}: the organization has a different subflow by that id`]);
    expect(res.body.flows[0].nodes.filter((n: { type: string }) => n.type === `subflow:${copyId}`)).toHaveLength(2);
    const copy = (await request("GET", `/subflows/${copyId}`, { token: user.accessToken })).body.subflow;
    expect(copy.description).toBe("changed elsewhere");
    // The nested definition was the same: the copy nests the organization's.
    expect(copy.nodes.map((n: { type: string }) => n.type)).toContain("subflow:6c2d1e3f40516273");
  });

  it("a flow pulled as Node-RED JSON and pushed back (PUT /flows/{id}/export) keeps its instances and the definitions", async () => {
    const imported = (await request("POST", "/flows/import", { token: user.accessToken, body: { flows: fixture().map((n) => (n.type === "tab" ? { ...n, label: "Pushed" } : n)) } })).body.flows[0];
    const pulled = (await request("GET", `/flows/${imported.id}/export`, { token: user.accessToken })).body as NrItem[];
    const pushed = await request("PUT", `/flows/${imported.id}/export`, { token: user.accessToken, body: { flows: pulled, revision: imported.revision } });
    expect(pushed.status).toBe(200);
    expect(pushed.body.warnings).toEqual([]);
    expect(pushed.body.flow.nodes).toEqual(imported.nodes);
    expect(pushed.body.flow.groups).toEqual(imported.groups);
    // A definition changed in the file is not applied by a push (the organization's is used), and that is said.
    const edited = pulled.map((n) => (n.id === "6c2d1e3f40516273" ? { ...n, name: "Edited in git" } : n));
    const again = await request("PUT", `/flows/${imported.id}/export`, { token: user.accessToken, body: { flows: edited } });
    expect(again.status).toBe(200);
    expect(again.body.warnings).toEqual(["subflow 6c2d1e3f40516273 is the organization's already; the file's definition of it was not applied (change it with PUT /subflows/6c2d1e3f40516273)"]);
    expect((await request("GET", "/subflows/6c2d1e3f40516273", { token: user.accessToken })).body.subflow.name).toBe("Round");
  });

  it("an instance of a subflow that is neither in the file nor in the organization is kept as an unknown node, and said", async () => {
    const tab = `t${Date.now().toString(36)}`;
    const res = await request("POST", "/flows/import", {
      token: user.accessToken,
      body: { flows: [{ id: tab, type: "tab", label: "orphan" }, { id: `${tab}n`, type: "subflow:deadbeefdeadbeef", z: tab, name: "", env: [], x: 100, y: 100, wires: [[]] }] },
    });
    expect(res.status).toBe(201);
    expect(res.body.flows[0].nodes[0]).toMatchObject({ type: "unknown", config: { original_type: "subflow:deadbeefdeadbeef" } });
    expect(res.body.warnings.join("\n")).toMatch(/subflow:deadbeefdeadbeef is not available here/);
  });

  it("refuses (400, nothing written) a file whose subflows contain each other", async () => {
    const before = (await request("GET", "/subflows", { token: user.accessToken })).body.subflows.length;
    const flows = [
      { id: "aaaa000000000001", type: "subflow", name: "A", in: [], out: [], env: [] },
      { id: "aaaa000000000002", type: "subflow", name: "B", in: [], out: [], env: [] },
      { id: "aaaa00000000000a", type: "subflow:aaaa000000000002", z: "aaaa000000000001", x: 1, y: 1, wires: [] },
      { id: "aaaa00000000000b", type: "subflow:aaaa000000000001", z: "aaaa000000000002", x: 1, y: 1, wires: [] },
    ];
    const res = await request("POST", "/flows/import", { token: user.accessToken, body: { flows } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/contain themselves/);
    expect((await request("GET", "/subflows", { token: user.accessToken })).body.subflows.length).toBe(before);
  });
});
