import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import { builtinVariables, memoryContextStore } from "@/server/runtime/memory-context";
import { templateConfig, templateNode } from "./definition";

const flow = closingTestFlows();

describe("template: configuration", () => {
  it("imports Node-RED's node (flow field, YAML output) and exports it back", () => {
    const nr = { field: "doc", fieldType: "flow", format: "yaml", syntax: "mustache", template: "a: {{payload}}", output: "yaml" };
    const config = templateConfig.parse(templateNode.nodeRed!.fromNodeRed(nr));
    expect(templateNode.nodeRed!.toNodeRed(config)).toEqual(nr);
  });

  it("refuses a bad field with a clear message", () => {
    const result = templateConfig.safeParse({ field: "__proto__.x" });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(["field"]);
  });

  it("has help and human titles", () => {
    expect(templateNode.help).toMatch(/### Inputs[\s\S]*### Outputs[\s\S]*### Details[\s\S]*### Differences from Node-RED/);
    const schema = JSON.stringify(templateConfig.toJSONSchema({ io: "input" }));
    for (const title of ["Template", "Syntax", "Set property", "Property type", "Output as"]) expect(schema).toContain(`"title":"${title}"`);
  });
});

describe("template: behaviour", () => {
  it("parses YAML output and writes it to flow context, with {{env.X}} and {{global.x}}", async () => {
    const flowMap = new Map<string, unknown>();
    const h = await flow(
      [
        { id: "t", type: "template", config: { template: "city: {{env.CITY}}\nsite: {{global.site}}\nn: {{payload}}\n", output: "yaml", field: "doc", field_type: "flow" } },
        { id: "s", type: "sink" },
      ],
      [{ source: "t", target: "s" }],
      {},
      {},
      { contextStores: () => ({ flow: memoryContextStore(flowMap), global: memoryContextStore(new Map([["site", "north"]])) }), variables: () => builtinVariables({ CITY: "Oslo" }) },
    );
    h.send("t", { payload: 3 });
    const [msg] = await h.waitFor(1);
    expect(msg!.payload).toBe(3);
    expect(flowMap.get("doc")).toEqual({ city: "Oslo", site: "north", n: 3 });
  });

  it("output that does not parse is a node error and nothing is sent", async () => {
    const h = await flow([{ id: "t", type: "template", config: { template: "a: [", output: "yaml" } }, { id: "s", type: "sink" }], [{ source: "t", target: "s" }]);
    h.send("t", { payload: 1 });
    await expect.poll(() => h.errors).toEqual([{ nodeId: "t", error: expect.stringMatching(/unexpected end|flow collection/i) }]);
    expect(h.received).toEqual([]);
  });

  it("nested sections over a message's arrays are cut by the time and size limits: a node error, nothing sent, the event loop free", async () => {
    // 60^6 rounds of the innermost section (issue 40: 60 items nested stalled /health 2.1 s).
    const nested = "{{#a}}{{#a}}{{#a}}{{#a}}{{#a}}{{#a}}x{{/a}}{{/a}}{{/a}}{{/a}}{{/a}}{{/a}}";
    const empty = "{{#a}}{{#a}}{{#a}}{{#a}}{{#a}}{{#a}}{{/a}}{{/a}}{{/a}}{{/a}}{{/a}}{{/a}}";
    const h = await flow(
      [
        { id: "t1", type: "template", config: { template: nested } },
        { id: "t2", type: "template", config: { template: empty } },
        { id: "t3", type: "template", config: { template: "{{#a}}{{payload}}{{/a}}" } },
        { id: "s", type: "sink" },
      ],
      [
        { source: "t1", target: "s" },
        { source: "t2", target: "s" },
        { source: "t3", target: "s" },
      ],
    );
    const a = Array.from({ length: 60 }, (_, i) => i);
    let last = performance.now();
    let gap = 0;
    const timer = setInterval(() => {
      gap = Math.max(gap, performance.now() - last);
      last = performance.now();
    }, 5);
    h.send("t1", { payload: 1, a });
    h.send("t2", { payload: 1, a });
    // 10,000 × 2 MiB: past the 16 MiB output limit long before the time limit.
    h.send("t3", { payload: "y".repeat(2 * 1024 * 1024), a: a.slice(0, 10) });
    await expect.poll(() => h.errors.length, { timeout: 10_000 }).toBe(3);
    clearInterval(timer);
    const byNode = Object.fromEntries(h.errors.map((e) => [e.nodeId, e.error]));
    expect(byNode.t1).toMatch(/took longer than 250 ms to render/);
    expect(byNode.t2).toMatch(/took longer than 250 ms to render/);
    expect(byNode.t3).toMatch(/output is larger than 16777216 characters/);
    expect(h.received).toEqual([]);
    // Each render is held to 250 ms (the machine may be loaded: generous).
    expect(gap).toBeLessThan(1500);
  });
});
