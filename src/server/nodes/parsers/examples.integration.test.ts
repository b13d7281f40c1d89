/**
 * Node-RED's own example flows for the parser nodes (@node-red/nodes/examples/parser/**), imported
 * through the REST door a user uses: every csv, html, json, xml and yaml node arrives as that type
 * (no `unknown`), and a deployed example gives, over the WebSocket, the debug output Node-RED's
 * example describes.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { signUp } from "@/test/accounts";
import { fromNodeRedPosition } from "@/shared/node-red-canvas";
import { setUpTestApp } from "@/test/set-up-test-app";
import { connect, setUpTestHub } from "@/test/ws";

const EXAMPLES = path.resolve(import.meta.dirname, "../../../test/fixtures/node-red-examples/parser");
const PARSERS = ["csv", "html", "json", "xml", "yaml"];

type NrNode = Record<string, unknown> & { id: string; type: string; name?: string };
type OurNode = { id: string; type: string; name: string; disabled: boolean; position: { x: number; y: number }; config: Record<string, unknown> };
const examples = PARSERS.flatMap((dir) =>
  readdirSync(path.join(EXAMPLES, dir))
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((file) => ({ dir, file, flows: JSON.parse(readFileSync(path.join(EXAMPLES, dir, file), "utf8")) as NrNode[] })),
);

const testApp = setUpTestApp();
const hub = setUpTestHub(testApp);
const request = testApp.request;
let user: Awaited<ReturnType<typeof signUp>>;
beforeAll(async () => {
  user = await signUp(request);
});

/** Imports an example as a new flow (a Node-RED export has no tab: the import makes one). */
async function importExample(flows: NrNode[]) {
  const tab = { id: `tab${Math.random().toString(36).slice(2, 10)}`, type: "tab", label: "example" };
  const res = await request("POST", "/flows/import", { token: user.accessToken, body: { flows: [tab, ...flows.map((n) => ({ ...n, z: tab.id }))] } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { flow: res.body.flows[0] as { id: string; nodes: OurNode[] }, warnings: res.body.warnings as string[] };
}

describe("Node-RED's parser example flows", () => {
  it("there are the 22 examples of Node-RED 4.1", () => {
    expect(examples.map((e) => `${e.dir}/${e.file.slice(0, 2)}`)).toHaveLength(22);
  });

  it.each(examples.map((e) => [`${e.dir}/${e.file}`, e] as const))("%s imports its parser nodes as themselves", async (_name, example) => {
    const { flow, warnings } = await importExample(example.flows);
    const parsers = example.flows.filter((n) => PARSERS.includes(n.type));
    expect(parsers.length).toBeGreaterThan(0);
    const imported = flow.nodes.filter((n) => PARSERS.includes(n.type));
    expect(imported.map((n) => n.type).sort()).toEqual(parsers.map((n) => n.type).sort());
    expect(imported.every((n) => !n.disabled)).toBe(true);
    for (const type of PARSERS) expect(warnings.filter((w) => w.includes(`(${type})`) || w.includes(`type ${type} `))).toEqual([]);
    // Their settings came across: export gives Node-RED's properties back.
    const exported = (await request("GET", `/flows/${flow.id}/export`, { token: user.accessToken })).body as NrNode[];
    for (const original of parsers) {
      // Found by where it is: Node-RED's position, as the import places it on our canvas.
      const at = fromNodeRedPosition(original.x, original.y);
      const ours = imported.find((n) => n.type === original.type && n.position.x === at.x && n.position.y === at.y)!;
      const back = exported.find((n) => n.id === ours.id)!;
      for (const key of ["sep", "temp", "hdrout", "tag", "ret", "as", "outproperty", "property", "action", "attr", "chr"]) {
        if (key in original && !(original.type === "csv" && key === "ret")) expect(back[key], `${original.type}.${key}`).toEqual(original[key]);
      }
      if (original.type === "csv") {
        // No `spec`: Node-RED runs these with its legacy parser, and so do we.
        expect(ours.config.spec).toBe("legacy");
        expect(back).toMatchObject({ ret: "\\n", multi: original.multi, skip: original.skip, hdrin: Boolean(original.hdrin) });
      }
    }
  });

  const runs: Array<{ example: string; expected: unknown[] }> = [
    { example: "csv/01", expected: [{ col1: "Apple", col2: 100, col3: "Canada" }, { col1: "Orange", col2: 120, col3: "USA" }, { col1: "Banana", col2: 80, col3: "Philippines" }] },
    { example: "csv/05", expected: ["Apple,100\n"] },
    { example: "html/01", expected: [["Apple", "Orange", "Banana"]] },
    { example: "xml/02", expected: [{ fruit: { $: { id: "100" }, kind: ["Apple"], price: ["100"], origin: ["Canada"] } }] },
    { example: "yaml/02", expected: [{ fruits: { kind: "Apple", price: 100, origin: "Canada" } }] },
    // With the join node: csv rows (parts) joined into an array and written back as CSV; html elements joined with ",".
    { example: "csv/10", expected: ["Apple,100\nOrange,120\nBanana,80\n"] },
    { example: "html/04", expected: ["Apple,Orange,Banana"] },
  ];
  it.each(runs.map((r) => [r.example, r] as const))("%s, deployed and injected, sends what Node-RED's example shows", async (_name, run) => {
    const example = examples.find((e) => `${e.dir}/${e.file.slice(0, 2)}` === run.example)!;
    const { flow } = await importExample(example.flows);
    expect((await request("POST", `/flows/${flow.id}/deploy`, { token: user.accessToken })).status).toBe(200);
    const ui = connect(hub.url, { authorization: `Bearer ${user.accessToken}` });
    try {
      await ui.next((f) => f.type === "ready");
      const inject = flow.nodes.find((n) => n.type === "inject")!;
      const debug = flow.nodes.find((n) => n.type === "debug")!;
      expect((await request("POST", `/nodes/${inject.id}/inject`, { token: user.accessToken, body: {} })).status).toBe(200);
      const outputs = () => ui.frames.filter((f) => f.topic === "debug" && f.data?.node_id === debug.id).map((f) => f.data.msg);
      await expect.poll(() => outputs().length, { timeout: 5000 }).toBe(run.expected.length);
      expect(outputs()).toEqual(run.expected);
    } finally {
      ui.ws.close();
    }
  });
});

describe("the parser nodes in the catalog", () => {
  it("GET /nodes lists csv, html, json, xml and yaml as parsers; each schema gives every property a human title", async () => {
    const listed = (await request("GET", "/nodes", { token: user.accessToken })).body.nodes as Array<{ type: string; category: string; inputs: number; outputs: number }>;
    for (const type of PARSERS) {
      expect(listed.find((n) => n.type === type), type).toMatchObject({ category: "parser", inputs: 1, outputs: 1 });
      const res = await request("GET", `/nodes/${type}/schema`, { token: user.accessToken });
      expect(res.status).toBe(200);
      const properties = res.body.schema.properties as Record<string, { title?: string }>;
      for (const [key, property] of Object.entries(properties)) {
        expect(property.title, `${type}.${key}`).toMatch(/^[A-Z][a-z]/);
        expect(property.title).not.toContain("_");
      }
    }
    expect((await request("GET", "/nodes/csv/schema", { token: user.accessToken })).body.defaults).toMatchObject({ spec: "rfc", newline: "\\r\\n" });
  });

  it("a csv node whose RFC column template does not parse is refused with a 400 naming the field, and nothing is saved", async () => {
    const before = (await request("GET", "/flows", { token: user.accessToken })).body.flows.length;
    const res = await request("POST", "/flows", {
      token: user.accessToken,
      body: { name: "bad csv", nodes: [{ id: "csv-bad-1", type: "csv", config: { columns: '"a",  "b" , " c "' } }] },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/columns/);
    expect(JSON.stringify(res.body)).toMatch(/Malformed columns template/);
    expect((await request("GET", "/flows", { token: user.accessToken })).body.flows.length).toBe(before);
  });
});
