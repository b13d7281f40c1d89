import { describe, expect, it } from "vitest";
import { createNodeRegistry } from "../nodes/registry";
import { groupKeeper, placementGroups, placementKeysOf } from "./placement-groups";

const registry = createNodeRegistry();
const broker = (config: Record<string, unknown>) => ({ id: "x", type: "mqtt-broker", name: "b", config, revision: 1, sealed_credentials: {} });

describe("placementKeysOf", () => {
  it("keys a deployment by each MQTT broker with a persistent session it carries, within the organization", () => {
    const keys = placementKeysOf(registry, "org1", {
      cfg_p: broker({ broker: "mqtt.example.com", clientid: "plant", cleansession: false }),
      cfg_imported: broker({ broker: "mqtt.example.com", clientid: "plant-2", cleansession: "false" }),
      cfg_clean: broker({ broker: "mqtt.example.com", clientid: "plant", cleansession: true }),
      cfg_default: broker({ broker: "mqtt.example.com", clientid: "plant" }),
      // No client id: the session is clean anyway (Node-RED's rule), so nothing is shared.
      cfg_noid: broker({ broker: "mqtt.example.com", clientid: "", cleansession: false }),
      // The app's own broker: no client id at any broker.
      cfg_builtin: broker({ broker: "built-in", clientid: "plant", cleansession: false }),
      cfg_tls: { id: "t", type: "tls-config", name: "t", config: { cleansession: false, clientid: "x" }, revision: 1, sealed_credentials: {} },
    });
    expect(keys).toEqual(["org1:cfg_imported", "org1:cfg_p"]);
    expect(placementKeysOf(registry, "org1", undefined)).toEqual([]);
    expect(placementKeysOf(registry, "org1", null)).toEqual([]);
  });
});

describe("placementGroups", () => {
  it("joins flows sharing a key, transitively, and leaves flows without keys out", () => {
    const groups = placementGroups(
      new Map([
        ["f1", ["k1"]],
        ["f2", ["k1"]],
        ["f3", ["k2"]],
        ["f4", ["k2", "k3"]],
        ["f5", ["k3"]],
        ["f6", ["k4"]],
        ["f7", []],
      ]),
    );
    expect(groups.get("f1")).toEqual(["f1", "f2"]);
    expect(groups.get("f2")).toBe(groups.get("f1"));
    expect(groups.get("f3")).toEqual(["f3", "f4", "f5"]);
    expect(groups.get("f5")).toBe(groups.get("f3"));
    expect(groups.get("f6")).toEqual(["f6"]);
    expect(groups.has("f7")).toBe(false);
  });

  it("joins two groups a later flow links", () => {
    const groups = placementGroups(
      new Map([
        ["z1", ["a"]],
        ["a1", ["b"]],
        ["m1", ["b", "a"]],
      ]),
    );
    expect(groups.get("z1")).toEqual(["a1", "m1", "z1"]);
  });
});

describe("groupKeeper", () => {
  it("names the instance holding the most of a group, the smallest id on a tie, none when nobody holds any", () => {
    expect(groupKeeper(["b", "a", "b", null])).toBe("b");
    expect(groupKeeper(["b", "a", null])).toBe("a");
    expect(groupKeeper([null, null])).toBeNull();
  });
});
