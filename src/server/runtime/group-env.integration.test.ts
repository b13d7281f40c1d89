/**
 * Node-RED's group env properties behind the doors a user uses: a flow exported from Node-RED whose
 * nodes sit in nested groups with env properties is imported, deployed and called through its
 * webhook; the answer carries what the groups set (the inner group's over the outer's, `$parent.`,
 * NR_GROUP_NAME, an `env` property built from the other level's), and a redeploy with a changed
 * value answers the new one.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { handleWebhook } from "@/server/api/rest/webhook-handler";

const testApp = setUpTestApp();
const request = testApp.request;
let owner: Awaited<ReturnType<typeof signUp>>;
let slug: string;

beforeAll(async () => {
  owner = await signUp(request);
  slug = (await testApp.app.db.prisma.organization.findUniqueOrThrow({ where: { id: owner.organizationId } })).slug;
});

const call = async (path: string) => {
  const res = await handleWebhook(testApp.app, new Request(`http://app.test/hooks/${slug}/${path}`), slug, [path]);
  return { status: res.status, body: await res.text() };
};

function nodeRedFlows(outerColor: string) {
  return [
    { id: "ge-tab", type: "tab", label: "Group env" },
    { id: "ge-outer", type: "group", z: "ge-tab", name: "Outer", style: {}, nodes: ["ge-inner", "ge-res"], env: [{ name: "COLOR", type: "str", value: outerColor }, { name: "SHARED", type: "str", value: "outer" }], x: 10, y: 10, w: 600, h: 200 },
    { id: "ge-inner", type: "group", z: "ge-tab", g: "ge-outer", name: "Inner", style: {}, nodes: ["ge-in", "ge-set"], env: [{ name: "SHARED", type: "str", value: "inner" }, { name: "LABEL", type: "env", value: "${COLOR}/${SHARED}" }], x: 20, y: 20, w: 300, h: 100 },
    { id: "ge-in", type: "http in", z: "ge-tab", g: "ge-inner", name: "", url: "/group-env", method: "get", upload: false, swaggerDoc: "", x: 100, y: 60, wires: [["ge-set"]] },
    {
      id: "ge-set", type: "change", z: "ge-tab", g: "ge-inner", name: "",
      rules: [{ t: "set", p: "payload", pt: "msg", to: "${LABEL} ${$parent.SHARED} ${NR_GROUP_NAME}", tot: "env" }],
      x: 250, y: 60, wires: [["ge-res"]],
    },
    { id: "ge-res", type: "http response", z: "ge-tab", g: "ge-outer", name: "", statusCode: "", headers: {}, x: 450, y: 60, wires: [] },
  ];
}

describe("group env properties in a deployed flow", () => {
  it("a node reads its group's env over the outer group's, and a redeploy reads the new value", async () => {
    const imported = await request("POST", "/flows/import", { token: owner.accessToken, body: { flows: nodeRedFlows("red") } });
    expect(imported.status, imported.text).toBe(201);
    const flowId = imported.body.flows[0].id as string;
    expect((await request("POST", `/flows/${flowId}/deploy`, { token: owner.accessToken })).status).toBe(200);
    expect(await call("group-env")).toEqual({ status: 200, body: "red/inner outer Inner" });

    const flow = (await request("GET", `/flows/${flowId}`, { token: owner.accessToken })).body.flow;
    const groups = (flow.groups as Array<{ id: string; env: Array<Record<string, unknown>> }>).map((g) =>
      g.id === "ge-outer" ? { ...g, env: g.env.map((e) => (e.name === "COLOR" ? { ...e, value: "blue" } : e)) } : g,
    );
    const saved = await request("PUT", `/flows/${flowId}`, { token: owner.accessToken, body: { nodes: flow.nodes, connections: flow.connections, groups, revision: flow.revision } });
    expect(saved.status, saved.text).toBe(200);
    expect((await request("POST", `/flows/${flowId}/deploy`, { token: owner.accessToken })).status).toBe(200);
    expect(await call("group-env")).toEqual({ status: 200, body: "blue/inner outer Inner" });
  });
});

describe("group env properties inside a subflow's definition", () => {
  it("an imported subflow's group reaches its nodes in a deployed instance, over the instance's env", async () => {
    const flows = [
      { id: "gs-tab", type: "tab", label: "Subflow groups" },
      {
        id: "gs-sf", type: "subflow", name: "tinted", info: "", category: "",
        in: [{ x: 50, y: 30, wires: [{ id: "gs-set" }] }], out: [{ x: 350, y: 30, wires: [{ id: "gs-set", port: 0 }] }],
        env: [{ name: "OWN", type: "str", value: "definition" }, { name: "TINT", type: "str", value: "the instance's" }],
      },
      { id: "gs-grp", type: "group", z: "gs-sf", name: "Tint", style: {}, nodes: ["gs-set"], env: [{ name: "TINT", type: "str", value: "teal" }], x: 10, y: 10, w: 300, h: 100 },
      {
        id: "gs-set", type: "change", z: "gs-sf", g: "gs-grp", name: "",
        rules: [{ t: "set", p: "payload", pt: "msg", to: "${TINT} ${NR_GROUP_NAME} ${OWN} ${$parent.TINT}", tot: "env" }],
        x: 200, y: 60, wires: [[]],
      },
      { id: "gs-in", type: "http in", z: "gs-tab", name: "", url: "/subflow-group-env", method: "get", upload: false, swaggerDoc: "", x: 100, y: 60, wires: [["gs-inst"]] },
      { id: "gs-inst", type: "subflow:gs-sf", z: "gs-tab", name: "", env: [{ name: "OWN", type: "str", value: "instance" }], x: 250, y: 60, wires: [["gs-res"]] },
      { id: "gs-res", type: "http response", z: "gs-tab", name: "", statusCode: "", headers: {}, x: 400, y: 60, wires: [] },
    ];
    const imported = await request("POST", "/flows/import", { token: owner.accessToken, body: { flows } });
    expect(imported.status, imported.text).toBe(201);
    const flowId = imported.body.flows[0].id as string;
    expect((await request("POST", `/flows/${flowId}/deploy`, { token: owner.accessToken })).status).toBe(200);
    expect(await call("subflow-group-env")).toEqual({ status: 200, body: "teal Tint instance the instance's" });
  });
});
