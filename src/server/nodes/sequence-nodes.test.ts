import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createNodeRegistry } from "./registry";
import { cloneMessage } from "./sequence-support";

const TYPES = ["split", "join", "batch", "sort", "trigger", "filter", "range"];
const registry = createNodeRegistry();

describe.each(TYPES)("%s in the catalog", (type) => {
  const definition = registry.get(type)!;

  it("is registered, with defaults that satisfy its own schema", () => {
    expect(definition).toBeDefined();
    expect(() => definition.configSchema.parse({})).not.toThrow();
    expect(definition.category).toBe(["trigger", "filter", "range"].includes(type) ? "function" : "sequence");
  });

  it("gives every property of its schema a human title", () => {
    const schema = z.toJSONSchema(definition.configSchema, { io: "input", unrepresentable: "any" }) as { properties: Record<string, { title?: string }> };
    const untitled = Object.entries(schema.properties)
      .filter(([, p]) => !p.title)
      .map(([k]) => k);
    expect(untitled).toEqual([]);
  });

  it("has help with Node-RED's sections", () => {
    expect(definition.help).toMatch(/^\S/);
    for (const section of ["### Inputs", "### Outputs", "### Details"]) expect(definition.help).toContain(section);
  });

  it("maps its defaults to Node-RED and back unchanged", () => {
    const config = definition.configSchema.parse({});
    const again = definition.configSchema.parse(definition.nodeRed!.fromNodeRed(definition.nodeRed!.toNodeRed(config)));
    expect(again).toEqual(config);
  });
});

describe("cloneMessage", () => {
  it("copies deeply and keeps Buffers as Buffers", () => {
    const msg = { _msgid: "m", payload: { a: [1, { b: Buffer.from("x") }] } };
    const copy = cloneMessage(msg);
    expect(copy).toEqual(msg);
    const inner = (copy.payload as { a: [number, { b: Buffer }] }).a[1];
    expect(Buffer.isBuffer(inner.b)).toBe(true);
    inner.b[0] = 0x79;
    expect(msg.payload.a[1]).toEqual({ b: Buffer.from("x") });
  });
});
