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

  it("imports again into the same organization as new definitions (fresh ids, said), and the instances follow", async () => {
    const res = await request("POST", "/flows/import", { token: user.accessToken, body: { flows: fixture().map((n) => (n.type === "tab" ? { ...n, label: "Second copy" } : n)) } });
    expect(res.status).toBe(201);
    const ids = new Map<string, string>(res.body.subflows.map((s: { id: string; name: string }) => [s.name, s.id]));
    expect(ids.get("Scale reading")).not.toBe("5b1c0d2e3f405162");
    expect(res.body.warnings).toContain(`subflow 5b1c0d2e3f405162 was imported as ${ids.get("Scale reading")}: the organization has a subflow by that id already`);
    const flow = res.body.flows[0];
    expect(flow.nodes.filter((n: { type: string }) => n.type === `subflow:${ids.get("Scale reading")}`)).toHaveLength(2);
    const copy = (await request("GET", `/subflows/${ids.get("Scale reading")}`, { token: user.accessToken })).body.subflow;
    expect(copy.nodes.map((n: { type: string }) => n.type)).toContain(`subflow:${ids.get("Round")}`);
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
