/** Which secrets a deployment sent to a device names (agents.ts `secretsNamed`): whatever it does not name, it is not sent. */
import { describe, expect, it } from "vitest";
import { secretsNamed, secretsReferenced } from "./agents";

const names = ["API_TOKEN", "API_TOKEN_OLD", "PASS", "DB_PASSWORD", "UNUSED"];
type Extra = { subflows?: Record<string, unknown>; config_nodes?: Record<string, unknown>; groups?: unknown[]; credentials?: Array<Record<string, string>> };
const named = (nodes: unknown[], extra: Extra = {}) => [...secretsNamed({ nodes, subflows: extra.subflows, config_nodes: extra.config_nodes, groups: extra.groups } as never, extra.credentials ?? [], names)].sort();
const used = (nodes: unknown[], extra: Extra = {}) => [...secretsReferenced({ nodes, subflows: extra.subflows, config_nodes: extra.config_nodes, groups: extra.groups } as never, extra.credentials ?? [], names)].sort();

describe("secretsNamed", () => {
  it("finds a name in each form a Node-RED flow uses it, as a whole word only", () => {
    expect(named([{ id: "a", type: "http-request", config: { url: "https://x.example/?t=${API_TOKEN}" } }])).toEqual(["API_TOKEN"]);
    expect(named([{ id: "a", type: "function", config: { func: "const p = env.get('PASS');" } }])).toEqual(["PASS"]);
    expect(named([{ id: "a", type: "change", config: { rules: [{ t: "set", to: "$env(\"DB_PASSWORD\")", tot: "jsonata" }] } }])).toEqual(["DB_PASSWORD"]);
    expect(named([{ id: "a", type: "change", config: { rules: [{ t: "set", to: "API_TOKEN_OLD", tot: "env" }] } }])).toEqual(["API_TOKEN_OLD"]);
    // Part of a longer name, or of a word, is not the name.
    expect(named([{ id: "a", type: "function", config: { func: "env.get('API_TOKEN_NEW'); const PASSWORD = 1; const xPASS = 2;" } }])).toEqual([]);
  });

  it("reads subflow definitions, configuration nodes and their opened credentials too", () => {
    expect(named([], { subflows: { sf: { nodes: [{ config: { topic: "${PASS}" } }] } } })).toEqual(["PASS"]);
    expect(named([], { config_nodes: { c: { config: { env: [{ name: "X", type: "env", value: "DB_PASSWORD" }] } } } })).toEqual(["DB_PASSWORD"]);
    expect(named([], { credentials: [{ password: "${API_TOKEN}" }] })).toEqual(["API_TOKEN"]);
    expect(named([], { groups: [{ id: "g", env: [{ name: "T", type: "env", value: "API_TOKEN" }] }] })).toEqual(["API_TOKEN"]);
    expect(named([{ id: "a", type: "inject" }])).toEqual([]);
  });

  it("secretsReferenced counts what may be a use, not a name, a description or a comment", () => {
    expect(used([{ id: "a", type: "http-request", config: { url: "https://x.example/?t=${API_TOKEN}" } }])).toEqual(["API_TOKEN"]);
    expect(used([{ id: "a", type: "function", config: { func: 'const p = env.get(\n  "PASS"\n);\nconst q = env.get ( \'DB_PASSWORD\' );' } }])).toEqual(["DB_PASSWORD", "PASS"]);
    expect(used([{ id: "a", type: "change", config: { rules: [{ t: "set", to: "$env('UNUSED')", tot: "jsonata" }] } }])).toEqual(["UNUSED"]);
    expect(used([{ id: "a", type: "template", config: { template: "token {{env.API_TOKEN}}" } }])).toEqual(["API_TOKEN"]);
    // Node-RED's older whole-value form and a subflow's parent scope.
    expect(used([{ id: "a", type: "mqtt-out", config: { topic: "$(PASS)" } }, { id: "b", type: "function", config: { func: "env.get('$parent.DB_PASSWORD')" } }])).toEqual(["DB_PASSWORD", "PASS"]);
    expect(used([], { groups: [{ id: "g", name: "API_TOKEN_OLD users", env: [{ name: "T", type: "env", value: "API_TOKEN_OLD" }] }] })).toEqual(["API_TOKEN_OLD"]);
    // Names, descriptions and comments: not uses.
    expect(used([{ id: "a", type: "comment", name: "the PASS is used hosted only", config: { info: "API_TOKEN rotates monthly" } }])).toEqual([]);
    expect(used([{ id: "a", type: "function", name: "reads PASS", description: "API_TOKEN is not used here", config: { func: "return msg;" } }])).toEqual([]);
    expect(used([], { groups: [{ id: "g", name: "PASS", description: "DB_PASSWORD" }], config_nodes: { c: { id: "c", type: "mqtt-broker", name: "API_TOKEN broker", config: {} } } })).toEqual([]);
  });
});
