import { describe, expect, it } from "vitest";
import { z } from "zod";
import { configNodeRef, type ConfigNodeView } from "@/shared/config-nodes";
import { configNodeLabel, configRefType, credentialsInput, groupByType, splitFieldErrors, staleUsers, usageText, userCount } from "./config-node-model";

const view = (over: Partial<ConfigNodeView>): ConfigNodeView => ({
  id: "cn1",
  type: "tls-config",
  name: "",
  config: {},
  credentials: {},
  revision: 1,
  used_by: [],
  created_at: "2026-11-28T00:00:00.000Z",
  updated_at: "2026-11-28T00:00:00.000Z",
  ...over,
});

describe("configuration nodes in the editor", () => {
  it("finds the referenced type in the JSON Schema the server sends, optional or required, and nothing on other properties", () => {
    const schema = z.toJSONSchema(
      z.object({ url: z.string().default(""), tls: configNodeRef("tls-config", { title: "TLS" }), broker: configNodeRef("mqtt-broker", { title: "Broker", required: true }) }),
      { io: "input", unrepresentable: "any" },
    ) as { properties: Record<string, Record<string, unknown>>; required?: string[] };
    expect(configRefType(schema.properties.tls!)).toBe("tls-config");
    expect(configRefType(schema.properties.broker!)).toBe("mqtt-broker");
    expect(configRefType(schema.properties.url!)).toBeNull();
    expect(schema.required).toEqual(["broker"]);
  });

  it("names a node by its name, else its type and id", () => {
    expect(configNodeLabel(view({ name: "Corporate CA" }))).toBe("Corporate CA");
    expect(configNodeLabel(view({ name: "  " }))).toBe("TLS configuration");
    expect(configNodeLabel({ ...view({ name: "" }), type: "something-else" })).toBe("something-else cn1");
  });

  it("calls an unnamed configuration node as Node-RED's editor does: a broker by its address, a database by its name", () => {
    const of = (type: string, config: Record<string, unknown>) => configNodeLabel({ ...view({ name: "" }), type, config });
    expect(of("mqtt-broker", { broker: "broker.hivemq.com", port: 1883, clientid: "" })).toBe("broker.hivemq.com:1883");
    expect(of("mqtt-broker", { broker: "mqtts://broker.example.com:8883", port: 8883, clientid: "pump" })).toBe("pump@mqtts://broker.example.com:8883");
    expect(of("mqtt-broker", { broker: "built-in", port: 1883 })).toBe("built-in broker");
    expect(of("mysql-database", { host: "db.example.com", db: "plant" })).toBe("plant");
    expect(of("mysql-database", { host: "db.example.com", db: "" })).toBe("mysql-database cn1");
    expect(of("sqlitedb", { db: "data/plant.db" })).toBe("data/plant.db");
    expect(of("postgresql-config", { host: "db.example.com", port: 5432, database: "plant" })).toBe("db.example.com:5432/plant");
    expect(of("influxdb", { influxdbVersion: "2.0", url: "https://eu-central-1-1.aws.cloud2.influxdata.com" })).toBe("[v2.0] https://eu-central-1-1.aws.cloud2.influxdata.com");
    expect(of("influxdb", { influxdbVersion: "1.x", hostname: "influx.example.com", port: 8086, database: "home" })).toBe("[v1.x] influx.example.com:8086/home");
    expect(of("websocket-client", { path: "wss://feed.example.com/ws" })).toBe("wss://feed.example.com/ws");
  });

  it("counts every user: nodes of flows, of subflows, and configuration nodes that name it", () => {
    const usedBy = [
      { flow_id: "f1", name: "A", node_ids: ["n1", "n2"], deployed_revision: 1 },
      { subflow_id: "s1", name: "S", node_ids: ["n3"] },
      { config_node_id: "broker", name: "broker", node_ids: [] },
    ];
    expect(userCount(usedBy)).toBe(4);
    expect(usageText(usedBy)).toBe("4 users");
    expect(usageText(usedBy.slice(1, 2))).toBe("1 user");
    expect(usageText([])).toBe("Unused");
  });

  it("lists as stale only deployed flows that carry an older revision", () => {
    const node = view({
      revision: 3,
      used_by: [
        { flow_id: "old", name: "old", node_ids: ["a"], deployed_revision: 2 },
        { flow_id: "current", name: "current", node_ids: ["b"], deployed_revision: 3 },
        { flow_id: "never", name: "never deployed", node_ids: ["c"], deployed_revision: null },
        { subflow_id: "s", name: "subflow", node_ids: ["d"] },
      ],
    });
    expect(staleUsers(node).map((u) => u.flow_id)).toEqual(["old"]);
  });

  it("writes only changed credentials: a value sets, clear is null, keep and an empty replacement are left out", () => {
    expect(credentialsInput({ ca: { mode: "keep" }, key: { mode: "replace", value: "" } })).toBeUndefined();
    expect(credentialsInput({ ca: { mode: "replace", value: "-----BEGIN CERTIFICATE-----" }, key: { mode: "clear" }, cert: { mode: "keep" } })).toEqual({
      ca: "-----BEGIN CERTIFICATE-----",
      key: null,
    });
  });

  it("puts a refusal's field errors where the dialog shows them", () => {
    expect(splitFieldErrors({ name: "too long", "config.servername": "must be a host", "config[0]": "x", "credentials.ca": "is not PEM", revision: "stale", config: "bad" })).toEqual({
      name: "too long",
      config: { servername: "must be a host", "[0]": "x" },
      credentials: { ca: "is not PEM" },
      other: ["revision: stale", "bad"],
    });
  });

  it("groups by type in name order, nodes by label", () => {
    const grouped = groupByType([view({ id: "b", type: "tls-config", name: "Zeta" }), view({ id: "p", type: "http-proxy", name: "" }), view({ id: "a", type: "tls-config", name: "Alpha" })]);
    expect(grouped.map((g) => [g.type, g.nodes.map((n) => n.id)])).toEqual([
      ["http-proxy", ["p"]],
      ["tls-config", ["a", "b"]],
    ]);
  });
});
