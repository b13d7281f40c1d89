import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { INDEX_FILE, nodeIndexSource } from "../../../scripts/node-index";
import { builtinNodes, createNodeRegistry, nodesOfFolders } from "./registry";
import { defineBehaviour, defineNode } from "./types";
import { z } from "zod";

/**
 * A node type is one folder (src/server/nodes/README.md, "Adding a node type"): the registry finds the
 * folders through the generated index, each type brings its own icon, and its behaviour is tied to
 * its definition by the folder, with no central list to edit.
 */
describe("node folders", () => {
  const temp = mkdtempSync(path.join(tmpdir(), "node-folders-"));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  it("every type's configuration parses from nothing: its defaults are valid (the catalog and a new node's form start from them)", () => {
    // `unknown` (an imported node of a type we lack) is never created new: it always has the node it stands for.
    const invalid = builtinNodes.filter(({ definition }) => definition.type !== "unknown" && !definition.configSchema.safeParse({}).success).map(({ definition }) => definition.type);
    expect(invalid).toEqual([]);
  });

  it("the generated index lists every folder as it is now", () => {
    expect(readFileSync(INDEX_FILE, "utf8")).toBe(nodeIndexSource());
  });

  it("a new folder with the standard file names is picked up with no other file touched", () => {
    mkdirSync(path.join(temp, "my-node"));
    writeFileSync(path.join(temp, "my-node", "definition.ts"), "export const myNode = {};\n");
    writeFileSync(path.join(temp, "my-node", "behaviour.ts"), "export const myBehaviour = {};\n");
    writeFileSync(path.join(temp, "my-node", "icon.svg"), '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"/>\n');
    mkdirSync(path.join(temp, "definition-only"));
    writeFileSync(path.join(temp, "definition-only", "definition.ts"), "export const cfg = {};\n");
    mkdirSync(path.join(temp, "not-a-node"));
    const source = nodeIndexSource(temp);
    expect(source).toContain('import * as my_node_definition from "./my-node/definition";');
    expect(source).toContain('import * as my_node_behaviour from "./my-node/behaviour";');
    expect(source).toContain('folder: "definition-only", definition: definition_only_definition, behaviour: undefined');
    expect(source).toContain('"icon.svg": "<svg xmlns=\\"http://www.w3.org/2000/svg\\" viewBox=\\"0 0 16 16\\"/>"');
    expect(source).not.toContain("not-a-node");
  });

  it("registers every definition a folder exports, with the behaviour its folder declares for it", () => {
    const one = defineNode({ type: "one", version: 1, category: "common", name: "One", description: "d", inputs: 1, outputs: 1, configSchema: z.object({ n: z.number().default(1) }) });
    const two = defineNode({ type: "two", version: 1, category: "common", name: "Two", description: "d", inputs: 0, outputs: 0, configSchema: z.object({}) });
    const behaviour = defineBehaviour(one, (_ctx, config) => ({ input: (msg, send) => send({ ...msg, payload: config.n }) }));
    const nodes = nodesOfFolders([{ folder: "f", definition: { one, two, oneConfig: z.object({}), helper: () => 1 }, behaviour: { behaviour, other: 2 }, icons: { "icon.svg": "<svg/>", "two.svg": "<svg>2</svg>" } }]);
    expect(nodes.map((n) => [n.definition.type, n.definition.icon, Boolean(n.behaviour)])).toEqual([
      ["one", "<svg/>", true],
      ["two", "<svg>2</svg>", false],
    ]);
    expect(() => nodesOfFolders([{ folder: "g", definition: { two }, behaviour: { behaviour }, icons: {} }])).toThrow("node folder g: a behaviour for one, which the folder does not define");
  });

  it("every built-in type runs (a behaviour) unless it is a subflow port, the unknown type or a configuration node", () => {
    const without = builtinNodes.filter((n) => !n.behaviour && n.definition.kind !== "config").map((n) => n.definition.type);
    expect(without.sort()).toEqual(["subflow-in", "subflow-out", "subflow-status", "unknown"]);
  });

  it("the engine's types carry the roles the definitions declare", () => {
    const types = createNodeRegistry().runtimeTypes();
    const withRole = (role: string) => [...types].filter(([, t]) => t.roles && role in t.roles).map(([type]) => type);
    expect(withRole("catch")).toEqual(["catch"]);
    expect(withRole("status")).toEqual(["status"]);
    expect(withRole("complete")).toEqual(["complete"]);
    expect(withRole("linkTarget")).toEqual(["link-in"]);
    expect(withRole("linkCall")).toEqual(["function", "link-call"]);
    expect(withRole("trigger")).toEqual(["inject"]);
  });

  // Configuration nodes (kind "config") are never drawn on a canvas or in the palette: no icon needed.
  const drawn = builtinNodes.filter(({ definition }) => definition.kind !== "config");
  describe.each(drawn.map(({ definition }) => [definition.type, definition.icon] as const))("%s's icon", (type, icon) => {
    it("is its own, declared in its folder", () => {
      expect(icon, `${type} has no icon.svg`).toBeTruthy();
      const sharing = drawn.filter((n) => n.definition.type !== type && n.definition.icon === icon).map((n) => n.definition.type);
      expect(sharing, "types drawn with the same icon").toEqual([]);
    });

    it("is a plain SVG: no script, event handler, external reference or foreign content", () => {
      expect(icon).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 16 16"[^>]*>[\s\S]*<\/svg>$/);
      expect(icon).not.toMatch(/<script|<foreignObject|<image|<use|\son\w+\s*=|href|url\(|<style/i);
    });
  });
});
