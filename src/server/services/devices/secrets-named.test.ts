/** Which secrets a deployment sent to a device names (agents.ts `secretsNamed`): whatever it does not name, it is not sent. */
import { describe, expect, it } from "vitest";
import { secretsNamed } from "./agents";

const names = ["API_TOKEN", "API_TOKEN_OLD", "PASS", "DB_PASSWORD", "UNUSED"];
const named = (nodes: unknown[], extra: { subflows?: Record<string, unknown>; config_nodes?: Record<string, unknown>; credentials?: Array<Record<string, string>> } = {}) =>
  [...secretsNamed({ nodes, subflows: extra.subflows, config_nodes: extra.config_nodes } as never, extra.credentials ?? [], names)].sort();

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
    expect(named([{ id: "a", type: "inject" }])).toEqual([]);
  });
});
