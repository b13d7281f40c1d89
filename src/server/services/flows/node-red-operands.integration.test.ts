import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";

/**
 * Issue 21: Node-RED flows whose change, switch, inject and template nodes use env, flow, global or
 * JSONata operands import without refusal (they used to become unknown nodes) and export back
 * as they came; a broken expression is a clear 400 at save.
 */
const testApp = setUpTestApp();
const request = testApp.request;
let user: Awaited<ReturnType<typeof signUp>>;

beforeAll(async () => {
  user = await signUp(request);
});

const tab = { id: "tabOperands1", type: "tab", label: "Operands", disabled: false, info: "", env: [] };
const nodes = [
  {
    id: "opInject001",
    type: "inject",
    z: "tabOperands1",
    name: "",
    props: [{ p: "payload" }, { p: "topic", vt: "str" }, { p: "limit", v: "$number('5')", vt: "jsonata" }],
    repeat: "",
    crontab: "",
    once: false,
    onceDelay: 0.1,
    topic: "t",
    payload: "7",
    payloadType: "num",
    x: 100,
    y: 100,
    wires: [["opChange001"]],
  },
  {
    id: "opChange001",
    type: "change",
    z: "tabOperands1",
    name: "",
    rules: [
      { t: "set", p: "doubled", pt: "msg", to: "payload * 2", tot: "jsonata" },
      { t: "set", p: "last", pt: "flow", to: "payload", tot: "msg" },
      { t: "set", p: "host", pt: "msg", to: "NR_FLOW_NAME", tot: "env" },
    ],
    x: 300,
    y: 100,
    wires: [["opSwitch001"]],
  },
  {
    id: "opSwitch001",
    type: "switch",
    z: "tabOperands1",
    name: "",
    property: "doubled",
    propertyType: "msg",
    rules: [{ t: "gt", v: "limit", vt: "msg" }, { t: "jsonata_exp", v: "$flowContext('last') = 7", vt: "jsonata" }, { t: "else" }],
    checkall: "true",
    repair: false,
    outputs: 3,
    x: 500,
    y: 100,
    wires: [["opTemplate01"], [], []],
  },
  {
    id: "opTemplate01",
    type: "template",
    z: "tabOperands1",
    name: "",
    field: "payload",
    fieldType: "msg",
    format: "yaml",
    syntax: "mustache",
    template: "value: {{doubled}}\nlast: {{flow.last}}\n",
    output: "yaml",
    x: 700,
    y: 100,
    wires: [[]],
  },
];

describe("Node-RED flows with env, flow and JSONata operands", () => {
  it("import without warnings, and export back as they came", async () => {
    const res = await request("POST", "/flows/import", { token: user.accessToken, body: { flows: [tab, ...nodes] } });
    expect(res.status).toBe(201);
    expect(res.body.warnings).toEqual([]);
    const [flow] = res.body.flows;
    expect(flow.nodes.map((n: { type: string; disabled: boolean }) => [n.type, n.disabled])).toEqual([
      ["inject", false],
      ["change", false],
      ["switch", false],
      ["template", false],
    ]);
    const exported = await request("GET", `/flows/${flow.id}/export`, { token: user.accessToken });
    expect(exported.status).toBe(200);
    const byId = Object.fromEntries((exported.body as Array<{ id: string }>).map((n) => [n.id, n]));
    for (const original of nodes) {
      const { z: _z, ...props } = original;
      expect(byId[original.id]).toMatchObject(props);
    }
  });

  it("refuses a broken JSONata operand at save with a 400 naming the field", async () => {
    const res = await request("POST", "/flows", {
      token: user.accessToken,
      body: { name: "broken", nodes: [{ id: "opBroken01", type: "change", config: { rules: [{ t: "set", p: "payload", to: "payload +", to_type: "jsonata" }] } }] },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/rules\[0\]\.to|rules\.0\.to/);
    expect(JSON.stringify(res.body)).toMatch(/not a valid JSONata expression/);
  });
});
