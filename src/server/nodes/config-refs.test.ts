import { describe, expect, it } from "vitest";
import { configRefProperties, configRefsOf } from "./config-refs";
import { httpRequestNode } from "./http-request/definition";
import { createNodeRegistry } from "./registry";

describe("configuration node references", () => {
  it("are read from the schema the editor receives", () => {
    expect(configRefProperties(httpRequestNode)).toEqual([
      { property: "tls", type: "tls-config" },
      { property: "proxy", type: "http-proxy" },
    ]);
  });

  it("leave out the empty reference", () => {
    expect(configRefsOf(httpRequestNode, { tls: "", proxy: "p1" })).toEqual([{ property: "proxy", type: "http-proxy", id: "p1" }]);
  });

  it("name only types that are configuration nodes", () => {
    const registry = createNodeRegistry();
    for (const d of registry.list()) {
      for (const ref of configRefProperties(d)) expect(registry.get(ref.type)?.kind, `${d.type}.${ref.property}`).toBe("config");
    }
  });
});
