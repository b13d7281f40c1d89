/** The yaml node as Node-RED 4.1's (test/nodes/core/parsers/70-YAML_spec.js), plus its safety bounds. */
import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import { yamlNode } from "./definition";

const flow = closingTestFlows();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function yamlFlow(config: Record<string, unknown> = {}) {
  return flow(
    [
      { id: "y", type: "yaml", config },
      { id: "s", type: "sink" },
      { id: "c", type: "catch" },
      { id: "caught", type: "sink" },
    ],
    [
      { source: "y", target: "s" },
      { source: "c", target: "caught" },
    ],
  );
}
const at = (h: Awaited<ReturnType<typeof yamlFlow>>, sink: string) => h.arrivals.filter((a) => a.sink === sink).map((a) => a.msg);

describe("yaml node", () => {
  it("parses a YAML string, and writes an object and an array as YAML (js-yaml's layout)", async () => {
    const h = await yamlFlow();
    h.send("y", { payload: "employees:\n  - firstName: John\n    lastName: Smith\n", topic: "bar" });
    h.send("y", { payload: { employees: [{ firstName: "John", lastName: "Smith" }] } });
    h.send("y", { payload: [1, 2, 3] });
    h.send("y", { payload: null });
    const got = await h.waitFor(4);
    expect(got[0]).toMatchObject({ topic: "bar", payload: { employees: [{ firstName: "John", lastName: "Smith" }] } });
    expect(got.slice(1).map((m) => m.payload)).toEqual(["employees:\n  - firstName: John\n    lastName: Smith\n", "- 1\n- 2\n- 3\n", "null\n"]);
  });

  it("works on another property, and passes a message without it through", async () => {
    const h = await yamlFlow({ property: "foo" });
    h.send("y", { foo: "a: 1\n" });
    h.send("y", { foo: { a: 1 } });
    h.send("y", { topic: "bar" });
    const got = await h.waitFor(3);
    expect(got.map((m) => m.foo)).toEqual([{ a: 1 }, "a: 1\n", undefined]);
    expect(got[2]).not.toHaveProperty("payload");
  });

  it("invalid YAML is an error a catch node gets, with js-yaml's message", async () => {
    const h = await yamlFlow();
    h.send("y", { payload: "employees:\n-firstName: John\n- lastName: Smith\n", topic: "bar" });
    await sleep(60);
    expect(at(h, "s")).toEqual([]);
    const [caught] = at(h, "caught");
    expect((caught!.error as { message: string }).message).toMatch(/^end of the stream or a document separator is expected/);
    expect(caught!.topic).toBe("bar");
  });

  it("warns and drops booleans, numbers and bytes", async () => {
    const h = await yamlFlow();
    h.send("y", { payload: true });
    h.send("y", { payload: 1 });
    h.send("y", { payload: Buffer.from("a") });
    await sleep(60);
    expect(h.arrivals).toEqual([]);
    expect(h.errors.map((e) => e.error)).toEqual(["Ignored unsupported payload type", "Ignored unsupported payload type", "Ignored non-object payload"]);
  });

  it("loads safely: a JavaScript function tag is an unknown tag", async () => {
    const h = await yamlFlow();
    h.send("y", { payload: "a: !!js/function 'function () { return process }'" });
    await sleep(60);
    expect(at(h, "s")).toEqual([]);
    expect((at(h, "caught")[0]!.error as { message: string }).message).toMatch(/^unknown tag/);
  });

  it("refuses a billion laughs: aliases expanding past a million values", async () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 7; i++) levels.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(",")}]`);
    const h = await yamlFlow();
    h.send("y", { payload: levels.join("\n") });
    // A small document with aliases is fine.
    h.send("y", { payload: "base: &b {x: 1}\ncopy: *b\n" });
    const [ok] = await h.waitFor(2);
    await sleep(30);
    expect(at(h, "s").map((m) => m.payload)).toEqual([{ base: { x: 1 }, copy: { x: 1 } }]);
    expect(ok).toBeDefined();
    expect((at(h, "caught")[0]!.error as { message: string }).message).toMatch(/expands to more than 1000000 values/);
  });

  it("maps to and from Node-RED", () => {
    expect(yamlNode.nodeRed!.fromNodeRed({ property: "" })).toEqual({ property: "payload" });
    expect(yamlNode.nodeRed!.toNodeRed(yamlNode.configSchema.parse({ property: "a.b" }))).toEqual({ property: "a.b" });
  });
});
