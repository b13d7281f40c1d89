import { describe, expect, it } from "vitest";
import { closingTestFlows, variablesFrom } from "@/test/runtime-harness";
import { VariableSet, type VariableValue } from "./variables";
import type { ConfigNodeSnapshot } from "../../shared/config-nodes";
import type { ConfigNodeHandle, NodeFactory } from "./types";

/** Configuration nodes as behaviours reach them (SPEC §19): prepared before the flow's nodes, typed, resolved when used. */

const loadTestFlow = closingTestFlows();

/** A sealed credential as the test's "server" seals it: the runtime only ever calls openCredential. */
const seal = (value: string) => `sealed:${Buffer.from(value).toString("base64")}`;
const openCredential = (sealed: string) => {
  if (!sealed.startsWith("sealed:")) throw new Error(`cannot open ${sealed}`);
  return Buffer.from(sealed.slice("sealed:".length), "base64").toString("utf8");
};

function variables(organization: Record<string, VariableValue>, flow: Record<string, VariableValue> = {}) {
  let current = new VariableSet(new Map(Object.entries(organization)), new Map([["flw_test", new Map(Object.entries(flow))]]));
  return {
    current: () => current,
    replace: (next: Record<string, VariableValue>) => (current = new VariableSet(new Map(Object.entries(next)), new Map([["flw_test", new Map(Object.entries(flow))]]))),
  };
}

function tls(id: string, config: Record<string, unknown>, credentials: Record<string, string> = {}): ConfigNodeSnapshot {
  return { id, type: "tls-config", name: "my tls", config, revision: 3, sealed_credentials: Object.fromEntries(Object.entries(credentials).map(([k, v]) => [k, seal(v)])) };
}

/** A node of the test's own that keeps the handle it was given at start. */
function probe(type: string) {
  const seen: Array<ConfigNodeHandle | undefined> = [];
  const factory: NodeFactory = (ctx) => {
    seen.push(ctx.configNode(String(ctx.node.config.ref ?? ""), type));
    return {};
  };
  return { seen, factory };
}

describe("ctx.configNode (SPEC §19)", () => {
  it("hands a node its configuration node, parsed by the type's schema, credentials opened, ${NAME} resolved when read", async () => {
    const vars = variables({ CA_PEM: { value: "-----BEGIN CERTIFICATE-----one", secret: true }, HOST: { value: "api.example.com", secret: false } });
    const p = probe("tls-config");
    const flow = await loadTestFlow([{ id: "n", type: "probe", config: { ref: "t1" } }], [], { openCredential }, { probe: p.factory }, {
      ...variablesFrom(vars),
      configNodes: { t1: tls("t1", { servername: "${HOST}", alpnprotocol: "${CA_PEM}" }, { cadata: "${CA_PEM}", passphrase: "pass-1234" }) },
    });
    expect(flow.errors).toEqual([]);
    const handle = p.seen[0]!;
    expect(handle).toMatchObject({ id: "t1", type: "tls-config", name: "my tls", revision: 3 });
    // Defaults filled by the schema; a secret is never substituted into a configuration property.
    expect(handle.config).toMatchObject({ servername: "api.example.com", alpnprotocol: "", verifyservercert: true, cert: "" });
    expect(handle.credentials).toEqual({ cadata: "-----BEGIN CERTIFICATE-----one", passphrase: "pass-1234" });
    // A rotated secret is read at the next use, without a redeploy.
    vars.replace({ CA_PEM: { value: "-----BEGIN CERTIFICATE-----two", secret: true }, HOST: { value: "api.example.com", secret: false } });
    expect(handle.credentials.cadata).toBe("-----BEGIN CERTIFICATE-----two");
  });

  it("a missing reference, a reference to another type, or credentials that cannot be opened are the node's error; the flow runs", async () => {
    const p = probe("tls-config");
    const flow = await loadTestFlow(
      [
        { id: "missing", type: "probe", config: { ref: "nope" } },
        { id: "other", type: "probe", config: { ref: "p1" } },
        { id: "broken", type: "probe", config: { ref: "t2" } },
        { id: "none", type: "probe", config: { ref: "" } },
      ],
      [],
      { openCredential },
      { probe: p.factory },
      {
        configNodes: {
          p1: { id: "p1", type: "http-proxy", name: "", config: { url: "http://proxy.example.com:3128" }, revision: 1, sealed_credentials: {} },
          t2: { ...tls("t2", {}), sealed_credentials: { keydata: "garbage-that-is-not-sealed" } },
        },
      },
    );
    expect(flow.state).toBe("running");
    expect(p.seen).toEqual([undefined, undefined, undefined, undefined]);
    expect(flow.errors).toEqual([
      { nodeId: "missing", error: "configuration node nope (tls-config) is not part of this deployment" },
      { nodeId: "other", error: "configuration node p1 is a http-proxy, not a tls-config" },
      { nodeId: "broken", error: 'configuration node t2 (tls-config): its credential "keydata" could not be opened' },
    ]);
    expect(JSON.stringify(flow.errors)).not.toContain("garbage");
    expect(flow.statuses.find((s) => s.nodeId === "missing")?.status).toMatchObject({ fill: "red" });
  });

  it("leaves a credential empty, with the flow's error once and without the value, when it uses a secret with allowed hosts (SPEC §14)", async () => {
    const vars = variables({ KEY_PEM: { value: "restricted-pem-value", secret: true, allowedHosts: ["api.example.com"] }, PASS: { value: "open-pass", secret: true } });
    const p = probe("tls-config");
    const flow = await loadTestFlow([{ id: "n", type: "probe", config: { ref: "t1" } }], [], { openCredential }, { probe: p.factory }, {
      ...variablesFrom(vars),
      configNodes: { t1: tls("t1", {}, { keydata: "${KEY_PEM}", passphrase: "${PASS}" }) },
    });
    const handle = p.seen[0]!;
    expect(handle.credentials).toEqual({ keydata: "", passphrase: "open-pass" });
    expect(handle.credentials.keydata).toBe("");
    const said = flow.errors.filter((e) => e.error.includes("KEY_PEM"));
    expect(said).toHaveLength(1);
    expect(said[0]!.error).toBe('configuration node my tls (tls-config): credential "keydata" was left empty: secret KEY_PEM may only be sent to api.example.com: it is not available here');
    expect(JSON.stringify(flow.errors)).not.toContain("restricted-pem-value");
  });

  it("gives a secret with allowed hosts to a connection to one of them (credentialsFor), and to no other host", async () => {
    const vars = variables({ KEY_PEM: { value: "restricted-pem-value", secret: true, allowedHosts: ["*.example.com"] }, PASS: { value: "open-pass", secret: true } });
    const p = probe("tls-config");
    const flow = await loadTestFlow([{ id: "n", type: "probe", config: { ref: "t1" } }], [], { openCredential }, { probe: p.factory }, {
      ...variablesFrom(vars),
      configNodes: { t1: tls("t1", {}, { keydata: "${KEY_PEM}", passphrase: "${PASS}" }) },
    });
    const handle = p.seen[0]!;
    expect(handle.credentialsFor("broker.example.com")).toEqual({ keydata: "restricted-pem-value", passphrase: "open-pass" });
    expect(handle.credentialsFor("BROKER.Example.com")).toEqual({ keydata: "restricted-pem-value", passphrase: "open-pass" });
    expect(flow.errors).toEqual([]);
    expect(handle.credentialsFor("example.com.attacker.net")).toEqual({ keydata: "", passphrase: "open-pass" });
    expect(handle.credentialsFor("")).toEqual({ keydata: "", passphrase: "open-pass" });
    const said = flow.errors.filter((e) => e.error.includes("KEY_PEM"));
    expect(said.map((e) => e.error)).toEqual([
      'configuration node my tls (tls-config): credential "keydata" was left empty: secret KEY_PEM may only be sent to *.example.com: not to example.com.attacker.net',
      'configuration node my tls (tls-config): credential "keydata" was left empty: secret KEY_PEM may only be sent to *.example.com: the connection names no host',
    ]);
    expect(JSON.stringify(flow.errors)).not.toContain("restricted-pem-value");
  });
});

describe("global-config env (Node-RED 3.1+, SPEC §19)", () => {
  const globalConfig = (env: Array<{ name: string; type: string; value: string }>): Record<string, ConfigNodeSnapshot> => ({
    gc: { id: "gc", type: "global-config", name: "", config: { env }, revision: 1, sealed_credentials: {} },
  });

  it("every flow reads it with env.get and ${NAME}: above the organization's variables, below the flow's, typed as Node-RED's", async () => {
    const vars = variables(
      { REGION: { value: "org-region", secret: false }, ONLY_ORG: { value: "org", secret: false }, TOKEN: { value: "s3cret-token", secret: true }, OVERRIDDEN: { value: "org", secret: false } },
      { OVERRIDDEN: { value: "flow", secret: false } },
    );
    const seen: Record<string, unknown> = {};
    const reader: NodeFactory = (ctx) => {
      for (const name of ["REGION", "ONLY_ORG", "OVERRIDDEN", "LIMIT", "ON", "ALIAS", "SECRET_ALIAS", "TOKEN"]) seen[name] = ctx.env.get(name);
      seen.text = ctx.env.substitute("${REGION}/${LIMIT}/${OVERRIDDEN}/${SECRET_ALIAS}");
      seen.credential = ctx.env.substitute("${SECRET_ALIAS}", { credential: true });
      seen.values = ctx.env.values();
      return {};
    };
    await loadTestFlow([{ id: "r", type: "reader" }], [], {}, { reader }, {
      ...variablesFrom(vars),
      configNodes: globalConfig([
        { name: "REGION", type: "str", value: "eu-north" },
        { name: "OVERRIDDEN", type: "str", value: "global" },
        { name: "LIMIT", type: "num", value: "42" },
        { name: "ON", type: "bool", value: "true" },
        { name: "ALIAS", type: "env", value: "ONLY_ORG" },
        { name: "SECRET_ALIAS", type: "env", value: "TOKEN" },
        { name: "TOKEN", type: "cred", value: "" },
      ]),
    });
    expect(seen).toMatchObject({ REGION: "eu-north", ONLY_ORG: "org", OVERRIDDEN: "flow", LIMIT: 42, ON: true, ALIAS: "org", SECRET_ALIAS: "", TOKEN: undefined });
    // A secret named by an env entry stays a secret: handed to credential properties only.
    expect(seen.text).toBe("eu-north/42/flow/");
    expect(seen.credential).toBe("s3cret-token");
    expect(seen.values).toMatchObject({ REGION: "eu-north", LIMIT: 42, ALIAS: "org", OVERRIDDEN: "flow" });
    expect(JSON.stringify(seen.values)).not.toContain("s3cret");
  });

  it("reaches function code's env.get and change rules' env operand", async () => {
    const flow = await loadTestFlow(
      [
        { id: "fn", type: "function", config: { code: "msg.payload = env.get('REGION'); return msg;" } },
        { id: "ch", type: "change", config: { rules: [{ t: "set", p: "topic", p_type: "msg", to: "REGION", to_type: "env" }] } },
        { id: "out", type: "sink" },
      ],
      [
        { source: "fn", target: "ch" },
        { source: "ch", target: "out" },
      ],
      {},
      {},
      { configNodes: globalConfig([{ name: "REGION", type: "str", value: "eu-north" }]) },
    );
    flow.send("fn", { payload: 0 });
    await flow.waitFor(1);
    expect(flow.received[0]).toMatchObject({ payload: "eu-north", topic: "eu-north" });
  });
});
