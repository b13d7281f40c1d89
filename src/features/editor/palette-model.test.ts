import { describe, expect, it } from "vitest";
import type { CatalogEntry } from "./model";
import { paletteGroups, searchChoice } from "./palette-model";

const entry = (type: string, category: string, extra: Partial<CatalogEntry> = {}) => ({ type, name: type, description: "", category, kind: "node", subflow_only: false, ...extra }) as unknown as CatalogEntry;
const catalog = [entry("debug", "output"), entry("inject", "input"), entry("function", "function"), entry("http in", "network", { description: "webhook" }), entry("mqtt-broker", "network", { kind: "config" } as Partial<CatalogEntry>)];

describe("the palette's search", () => {
  it("lists matches by category in the palette's order, without configuration nodes", () => {
    expect(paletteGroups(catalog, "").map((g) => g.cat)).toEqual(["input", "output", "function", "network"]);
    expect(paletteGroups(catalog, "mqtt")).toEqual([]);
  });

  it("Enter in the search box adds the only match", () => {
    expect(searchChoice(paletteGroups(catalog, "deb"), "deb")?.type).toBe("debug");
  });

  it("Enter adds the first match as listed, or the type named exactly", () => {
    expect(searchChoice(paletteGroups(catalog, "n"), "n")?.type).toBe("inject");
    expect(searchChoice(paletteGroups(catalog, "function"), "function")?.type).toBe("function");
    expect(searchChoice(paletteGroups(catalog, "webhook"), " webhook ")?.type).toBe("http in");
  });

  it("Enter adds nothing without a search or without a match", () => {
    expect(searchChoice(paletteGroups(catalog, ""), "")).toBeNull();
    expect(searchChoice(paletteGroups(catalog, "zzz"), "zzz")).toBeNull();
  });
});
