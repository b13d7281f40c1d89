/**
 * The definitions of this part of issue 21 (link-in, link-out, link-call, status, complete, catch):
 * help text in the house sections, a human title for every property (what the editor's form shows),
 * and Node-RED's properties mapped both ways so an import → export round-trips.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createNodeRegistry } from "../registry";

const registry = createNodeRegistry();
const TYPES = ["link-in", "link-out", "link-call", "status", "complete", "catch"];

describe.each(TYPES)("%s definition", (type) => {
  const definition = registry.get(type)!;

  it("has help with Inputs, Outputs and Details, and a title on every property", () => {
    expect(definition.help).toMatch(/^[A-Z][^\n]+\n\n### Inputs\n[\s\S]+### Outputs\n[\s\S]+### Details\n/);
    const schema = z.toJSONSchema(definition.configSchema, { io: "input", unrepresentable: "any" }) as { properties: Record<string, { title?: string }> };
    for (const [name, property] of Object.entries(schema.properties)) expect(property.title, `${type}.${name}`).toMatch(/^[A-Z]/);
  });

  it("is Node-RED's type with spaces as hyphens", () => {
    expect(definition.nodeRed!.type.replace(/ /g, "-")).toBe(type);
    expect(registry.fromNodeRedType(definition.nodeRed!.type)).toBe(definition);
  });
});

describe("Node-RED mapping", () => {
  const roundTrip = (type: string, props: Record<string, unknown>) => {
    const definition = registry.get(type)!;
    const config = definition.configSchema.parse(definition.nodeRed!.fromNodeRed(props));
    return { config, back: definition.nodeRed!.toNodeRed(config) };
  };

  it.each([
    ["link-in", { links: ["lo1", "lo2"] }],
    ["link-out", { mode: "link", links: ["li1"] }],
    ["link-out", { mode: "return", links: [] }],
    ["link-call", { links: ["li1"], linkType: "static", timeout: "30" }],
    ["link-call", { links: [], linkType: "dynamic", timeout: "2.5" }],
    ["status", { scope: null }],
    ["status", { scope: ["a", "b"] }],
    ["complete", { scope: ["a"], uncaught: false }],
    ["catch", { scope: null, uncaught: true }],
    ["catch", { scope: ["a"], uncaught: false }],
  ])("%s %j comes back as it was", (type, props) => {
    expect(roundTrip(type, props).back).toEqual(props);
  });

  it("reads link-call's timeout as Node-RED does: empty or not a number is 30 s", () => {
    expect(roundTrip("link-call", { links: ["x"], timeout: "" }).config.timeout_seconds).toBe(30);
    expect(roundTrip("link-call", { links: ["x"], timeout: "soon" }).config.timeout_seconds).toBe(30);
    expect(roundTrip("link-call", { links: "x" }).config).toEqual({ link_type: "static", links: ["x"], timeout_seconds: 30 });
  });

  it.each(["status", "catch"])("a %s node scope \"group\" is not a value of the schema: the import makes it the group's nodes (expandGroupScopes)", (type) => {
    const definition = registry.get(type)!;
    expect(definition.configSchema.safeParse(definition.nodeRed!.fromNodeRed({ scope: "group" })).success).toBe(false);
  });
});
