import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtinNodes } from "./registry";

/**
 * SPEC §12: every node type has help text (what it does, inputs, outputs, details) and every
 * property of its schema a human title. This checks ALL registered types (builtinNodes), so a
 * type added without them fails here.
 */
describe.each(builtinNodes.map(({ definition: d }) => [d.type, d] as const))("%s", (_type, definition) => {
  it("has help: a first paragraph saying what it does, then Inputs, Outputs and Details", () => {
    const help = definition.help ?? "";
    expect(help, "help is missing").not.toBe("");
    const [first] = help.split("\n\n");
    expect(first, "the help starts with a paragraph, not a heading").toMatch(/^[^#\s-]/);
    expect(first!.length, "the first paragraph says what the node does").toBeGreaterThan(20);
    const headings = [...help.matchAll(/^### (.+)$/gm)].map((m) => m[1]);
    expect(headings.slice(0, 3)).toEqual(["Inputs", "Outputs", "Details"]);
    for (const h of headings.slice(3)) expect(h).toBe("Differences from Node-RED");
  });

  it("gives every property of its configuration a human title", () => {
    const schema = z.toJSONSchema(definition.configSchema, { io: "input", unrepresentable: "any" }) as { properties?: Record<string, { title?: string }> };
    const untitled = Object.entries(schema.properties ?? {})
      .filter(([name, p]) => !p.title || p.title === name || /_/.test(p.title))
      .map(([name]) => name);
    expect(untitled, "properties without a human title (.meta({ title }))").toEqual([]);
  });
});
