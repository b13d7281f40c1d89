import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { joinAs, signUp } from "@/test/accounts";
import { z } from "zod";
import { openCredential } from "./credentials";
import { snapshotConfigNodes } from "./snapshot-config-nodes";
import { defineNode } from "@/server/nodes/types";
import { configNodeRef } from "@/shared/config-nodes";

/** SPEC §19: configuration nodes through REST (/config-nodes), their references from nodes, and deploys. */
const testApp = setUpTestApp();
const request = testApp.request;
let owner: Awaited<ReturnType<typeof signUp>>;
let token: string;

beforeAll(async () => {
  owner = await signUp(request);
  token = owner.accessToken;
});

let seq = 0;
const uid = (p: string) => `${p}${Date.now().toString(36)}${++seq}`;

/** Marker values: no answer, export, deployment listing or audit entry may ever contain them. */
const KEY_PEM = "-----BEGIN PRIVATE KEY-----\nMARKER-KEY-7f3a9c\n-----END PRIVATE KEY-----";
const PASSPHRASE = "marker-passphrase-51be";
const PROXY_PASSWORD = "marker-proxy-password-c04d";
const MARKERS = [KEY_PEM, "MARKER-KEY-7f3a9c", PASSPHRASE, PROXY_PASSWORD];
const expectNoMarker = (text: string, where: string) => {
  for (const m of MARKERS) expect(text.includes(m), `${where} contains ${m}`).toBe(false);
};

async function create(body: Record<string, unknown>, as = token) {
  return request("POST", "/config-nodes", { token: as, body });
}

async function tls(extra: Record<string, unknown> = {}) {
  const res = await create({ type: "tls-config", name: uid("tls "), config: { servername: "api.example.com", verifyservercert: true }, credentials: { keydata: KEY_PEM, certdata: "CERT", passphrase: PASSPHRASE }, ...extra });
  expect(res.status, res.text).toBe(201);
  return res.body.config_node;
}

/** A flow with one http-request naming the configuration nodes given. */
async function flowUsing(refs: { tls?: string; proxy?: string }, as = token) {
  const [i, r] = [uid("i"), uid("r")];
  const res = await request("POST", "/flows", {
    token: as,
    body: { name: uid("uses "), nodes: [{ id: i, type: "inject" }, { id: r, type: "http-request", config: { url: "https://api.example.com", ...refs } }], connections: [{ source: i, target: r }] },
  });
  return { res, flow: res.body?.flow, requestNode: r };
}

describe("configuration nodes: CRUD", () => {
  it("creates, lists by type, reads and updates; credentials are write-only, kept when omitted, cleared by null", async () => {
    const node = await tls();
    expect(node).toMatchObject({ type: "tls-config", revision: 1, used_by: [] });
    expect(node.id).toMatch(/^[0-9a-f]{16}$/);
    expect(node.config).toEqual({ cert: "", key: "", ca: "", certname: "", keyname: "", caname: "", servername: "api.example.com", verifyservercert: true, alpnprotocol: "" });
    expect(node.credentials).toEqual({ cadata: { set: false }, certdata: { set: true }, keydata: { set: true }, passphrase: { set: true } });

    const proxy = (await create({ type: "http-proxy", name: "corp", config: { url: "http://proxy.example.com:3128", noproxy: [".internal"] }, credentials: { username: "u", password: PROXY_PASSWORD } })).body.config_node;
    const list = await request("GET", "/config-nodes?type=tls-config", { token });
    expect(list.status).toBe(200);
    expect(list.body.config_nodes.map((c: { id: string }) => c.id)).toContain(node.id);
    expect(list.body.config_nodes.map((c: { id: string }) => c.id)).not.toContain(proxy.id);
    expectNoMarker(list.text, "GET /config-nodes");
    expectNoMarker((await request("GET", "/config-nodes", { token })).text, "GET /config-nodes");

    const got = await request("GET", `/config-nodes/${node.id}`, { token });
    expect(got.status).toBe(200);
    expect(got.headers.get("etag")).toBe('"1"');
    expectNoMarker(got.text, "GET /config-nodes/{id}");

    // Omitted credentials are kept; null clears; a new value replaces.
    const put = await request("PUT", `/config-nodes/${node.id}`, { token, body: { revision: 1, name: "renamed", credentials: { passphrase: null, cadata: "CA" } } });
    expect(put.status, put.text).toBe(200);
    expect(put.body.config_node).toMatchObject({ name: "renamed", revision: 2, config: { servername: "api.example.com" } });
    expect(put.body.config_node.credentials).toEqual({ cadata: { set: true }, certdata: { set: true }, keydata: { set: true }, passphrase: { set: false } });
    expectNoMarker(put.text, "PUT /config-nodes/{id}");

    // Stored sealed, and opened only with the server's key.
    const row = await testApp.app.db.prisma.configNode.findUniqueOrThrow({ where: { organizationId_id: { organizationId: owner.organizationId, id: node.id } } });
    const sealed = row.credentialsSealed as Record<string, string>;
    expectNoMarker(JSON.stringify(row, (_, v: unknown) => (typeof v === "bigint" ? String(v) : v)), "the stored row");
    expect(openCredential(testApp.app.config.keys.variables, sealed.keydata!)).toBe(KEY_PEM);
    expect(sealed.passphrase).toBeUndefined();

    const stale = await request("PUT", `/config-nodes/${node.id}`, { token, body: { revision: 1, name: "late" } });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe("REVISION_CONFLICT");
    expect((await request("GET", `/config-nodes/${node.id}`, { token })).body.config_node.name).toBe("renamed");

    const dup = await create({ id: node.id, type: "tls-config" });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("CONFIG_NODE_EXISTS");

    expect((await request("DELETE", `/config-nodes/${node.id}`, { token })).status).toBe(204);
    expect((await request("GET", `/config-nodes/${node.id}`, { token })).status).toBe(404);
  });

  it("a user and password written in an MQTT broker's URL become its credentials, on create, update and import, and are shown nowhere", async () => {
    const password = "marker-url-password-9d2e";
    const shownNowhere = (text: string, where: string) => expect(text.includes(password), `${where} contains the password`).toBe(false);
    const created = await create({ type: "mqtt-broker", name: uid("b "), config: { broker: `mqtt://alice:${password}@broker.example.com:1883` } });
    expect(created.status, created.text).toBe(201);
    shownNowhere(created.text, "POST /config-nodes");
    expect(created.body.config_node.config.broker).toBe("mqtt://broker.example.com:1883");
    expect(created.body.config_node.credentials).toEqual({ user: { set: true }, password: { set: true } });
    const id = created.body.config_node.id as string;
    const row = await testApp.app.db.prisma.configNode.findUniqueOrThrow({ where: { organizationId_id: { organizationId: owner.organizationId, id } } });
    const sealed = row.credentialsSealed as Record<string, string>;
    expect(openCredential(testApp.app.config.keys.variables, sealed.user!)).toBe("alice");
    expect(openCredential(testApp.app.config.keys.variables, sealed.password!)).toBe(password);
    shownNowhere(JSON.stringify(row.config), "the stored configuration");
    // Credentials the request names win over the URL's; the URL keeps none either way.
    const updated = await request("PUT", `/config-nodes/${id}`, { token, body: { config: { broker: `mqtts://bob:${encodeURIComponent("p@ss:w")}@broker.example.com` }, credentials: { user: "carol" } } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.config_node.config.broker).toBe("mqtts://broker.example.com");
    const again = (await testApp.app.db.prisma.configNode.findUniqueOrThrow({ where: { organizationId_id: { organizationId: owner.organizationId, id } } })).credentialsSealed as Record<string, string>;
    expect(openCredential(testApp.app.config.keys.variables, again.user!)).toBe("carol");
    expect(openCredential(testApp.app.config.keys.variables, again.password!)).toBe("p@ss:w");
    const audit = await request("GET", "/audit-log", { token });
    expect(audit.text).toContain("password,user");
    // A Node-RED file with the password in its broker field.
    const imported = await request("POST", "/flows/import", {
      token,
      body: { flows: [{ id: "t1", type: "tab", label: "T" }, { id: "b1url", type: "mqtt-broker", name: "url broker", broker: `mqtt://dave:${password}@broker.example.com`, port: "1883" }, { id: "in1", type: "mqtt in", z: "t1", topic: "x", qos: "0", broker: "b1url", wires: [] }] },
    });
    expect(imported.status, imported.text).toBe(201);
    shownNowhere(imported.text, "POST /flows/import");
    expect(imported.text).toContain("became its credentials");
    const listed = await request("GET", "/config-nodes?type=mqtt-broker", { token });
    shownNowhere(listed.text, "GET /config-nodes");
    const brokers = listed.body.config_nodes as Array<{ name: string; config: { broker: string }; credentials: Record<string, { set: boolean }> }>;
    expect(brokers.find((b) => b.name === "url broker")).toMatchObject({ config: { broker: "mqtt://broker.example.com" }, credentials: { user: { set: true }, password: { set: true } } });
  });

  it("refuses bad input with 400 naming the field, writing nothing", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: "inject", config: {} }, "type"],
      [{ type: "no-such-type" }, "type"],
      [{ type: "http-proxy", config: { url: "ftp://nope" } }, "config.url"],
      [{ type: "tls-config", config: { verifyservercert: "yes" } }, "config.verifyservercert"],
      [{ type: "tls-config", credentials: { password: "x" } }, "credentials.password"],
      [{ type: "global-config", config: { env: [{ name: "A", type: "cred", value: "plain secret" }] } }, "config.env[0].value"],
    ];
    const before = (await request("GET", "/config-nodes", { token })).body.config_nodes.length;
    for (const [body, path] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
      expect(res.body.error.details[0].path).toBe(path);
    }
    const id = (await create({ type: "http-proxy", config: { url: "http://p.example.com" } })).body.config_node.id;
    const bad = await request("PUT", `/config-nodes/${id}`, { token, body: { config: { noproxy: "not a list" } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe("config.noproxy");
    expect((await request("GET", `/config-nodes/${id}`, { token })).body.config_node).toMatchObject({ revision: 1, config: { url: "http://p.example.com" } });
    expect((await request("GET", "/config-nodes", { token })).body.config_nodes.length).toBe(before + 1);
  });

  it("viewers read, members write, and only admins and owners write the global-config", async () => {
    const viewer = await joinAs(testApp.app, request, owner, "viewer");
    const member = await joinAs(testApp.app, request, owner, "member");
    const admin = await joinAs(testApp.app, request, owner, "admin");
    const mine = (await create({ type: "http-proxy", config: { url: "http://p.example.com" } }, member.token)).body.config_node;
    expect(mine.id).toBeDefined();
    expect((await request("GET", "/config-nodes", { token: viewer.token })).status).toBe(200);
    expect((await request("GET", `/config-nodes/${mine.id}`, { token: viewer.token })).status).toBe(200);
    for (const res of [
      await create({ type: "http-proxy" }, viewer.token),
      await request("PUT", `/config-nodes/${mine.id}`, { token: viewer.token, body: { name: "nope" } }),
      await request("DELETE", `/config-nodes/${mine.id}`, { token: viewer.token }),
      await request("POST", `/config-nodes/${mine.id}/deploy`, { token: viewer.token }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("FORBIDDEN");
    }

    const env = { env: [{ name: "API_BASE", type: "str", value: "https://api.example.com" }] };
    const refused = await create({ type: "global-config", config: env }, member.token);
    expect(refused.status).toBe(403);
    const global = await create({ type: "global-config", config: env }, admin.token);
    expect(global.status, global.text).toBe(201);
    expect((await request("PUT", `/config-nodes/${global.body.config_node.id}`, { token: member.token, body: { config: { env: [] } } })).status).toBe(403);
    expect((await request("DELETE", `/config-nodes/${global.body.config_node.id}`, { token: member.token })).status).toBe(403);
    expect((await request("GET", `/config-nodes/${global.body.config_node.id}`, { token: member.token })).body.config_node.config.env).toEqual(env.env);
    // One global-config per organization, as Node-RED has one.
    const second = await create({ type: "global-config", config: env }, token);
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe("CONFIG_NODE_EXISTS");
  });

  it("another organization's is 404 everywhere, and cannot be referenced (400, as a missing one)", async () => {
    const other = await signUp(request);
    const theirs = (await create({ type: "tls-config", credentials: { keydata: KEY_PEM } }, other.accessToken)).body.config_node;
    for (const [method, path, body] of [
      ["GET", `/config-nodes/${theirs.id}`, undefined],
      ["PUT", `/config-nodes/${theirs.id}`, { name: "pwned" }],
      ["DELETE", `/config-nodes/${theirs.id}`, undefined],
      ["POST", `/config-nodes/${theirs.id}/deploy`, undefined],
    ] as const) {
      const res = await request(method, path, { token, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
    }
    expect((await request("GET", "/config-nodes", { token })).body.config_nodes.map((c: { id: string }) => c.id)).not.toContain(theirs.id);

    const borrowed = await flowUsing({ tls: theirs.id });
    const missing = await flowUsing({ tls: "nosuchconfignode" });
    expect(borrowed.res.status).toBe(400);
    expect(missing.res.status).toBe(400);
    expect(borrowed.res.body.error.details[0].path).toBe("nodes[1].config.tls");
    // No existence oracle: another organization's id reads exactly as a missing one.
    expect(borrowed.res.body.error.details[0].message.replace(theirs.id, "X")).toBe(missing.res.body.error.details[0].message.replace("nosuchconfignode", "X"));
    const proxy = (await create({ type: "http-proxy", config: { url: "http://p.example.com" } })).body.config_node;
    const wrongType = await flowUsing({ tls: proxy.id });
    expect(wrongType.res.status).toBe(400);
    expect(wrongType.res.body.error.details[0]).toMatchObject({ path: "nodes[1].config.tls", message: expect.stringMatching(/http-proxy configuration node, not a tls-config/) });
    expect((await request("GET", `/config-nodes/${theirs.id}`, { token: other.accessToken })).body.config_node.used_by).toEqual([]);
  });

  it("is not a canvas node: a flow refuses a configuration node type; the catalog lists it with kind config", async () => {
    const res = await request("POST", "/flows", { token, body: { name: "x", nodes: [{ id: uid("t"), type: "tls-config" }] } });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0]).toMatchObject({ path: "nodes[0].type", message: expect.stringMatching(/configuration node/) });
    const catalog = (await request("GET", "/nodes", { token })).body.nodes;
    expect(catalog.find((n: { type: string }) => n.type === "tls-config")).toMatchObject({ category: "config", kind: "config", inputs: 0, outputs: 0, credentials: { keydata: { type: "pem", title: "Private key" } } });
    expect(catalog.find((n: { type: string }) => n.type === "inject")).toMatchObject({ kind: "node" });
    const schema = (await request("GET", "/nodes/http-request/schema", { token })).body.schema;
    expect(schema.properties.tls).toMatchObject({ "x-config-node": "tls-config", title: "TLS configuration" });
    expect(schema.properties.proxy).toMatchObject({ "x-config-node": "http-proxy" });
  });
});

describe("users of a configuration node", () => {
  it("used_by names flows, subflow definitions and other configuration nodes; deleting one in use is 409 naming them", async () => {
    const node = await tls();
    const { flow, requestNode } = await flowUsing({ tls: node.id });
    const sf = await request("POST", "/subflows", {
      token,
      body: { name: uid("sf "), nodes: [{ id: "in", type: "subflow-in" }, { id: "req", type: "http-request", config: { tls: node.id } }], connections: [{ source: "in", target: "req" }] },
    });
    expect(sf.status, sf.text).toBe(201);
    const got = (await request("GET", `/config-nodes/${node.id}`, { token })).body.config_node;
    expect(got.used_by).toEqual([
      { flow_id: flow.id, name: flow.name, node_ids: [requestNode], deployed_revision: null },
      { subflow_id: sf.body.subflow.id, name: sf.body.subflow.name, node_ids: ["req"] },
    ]);
    const del = await request("DELETE", `/config-nodes/${node.id}`, { token });
    expect(del.status).toBe(409);
    expect(del.body.error.code).toBe("CONFIG_NODE_IN_USE");
    expect(del.body.error.message).toContain(flow.name);
    expect(del.body.error.message).toContain(sf.body.subflow.name);
    expect((await request("GET", `/config-nodes/${node.id}`, { token })).status).toBe(200);

    // Once nothing names it, it goes.
    expect((await request("DELETE", `/subflows/${sf.body.subflow.id}`, { token })).status).toBe(204);
    expect((await request("PUT", `/flows/${flow.id}`, { token, body: { nodes: flow.nodes.map((n: { type: string; config: object }) => (n.type === "http-request" ? { ...n, config: { ...n.config, tls: "" } } : n)) } })).status).toBe(200);
    expect((await request("DELETE", `/config-nodes/${node.id}`, { token })).status).toBe(204);
  });
});

describe("deploying flows that use configuration nodes", () => {
  it("the deployment snapshots them (sealed); POST /config-nodes/{id}/deploy redeploys the flows running an older revision", async () => {
    const node = await tls();
    const proxy = (await create({ type: "http-proxy", config: { url: "http://proxy.example.com:3128" }, credentials: { password: PROXY_PASSWORD } })).body.config_node;
    const { flow, requestNode } = await flowUsing({ tls: node.id, proxy: proxy.id });
    const deployed = await request("POST", `/flows/${flow.id}/deploy`, { token });
    expect(deployed.status, deployed.text).toBe(200);
    expectNoMarker(deployed.text, "POST /flows/{id}/deploy");

    const row = await testApp.app.db.prisma.deployment.findFirstOrThrow({ where: { flowId: flow.id }, orderBy: { deployedAt: "desc" } });
    const snapshot = row.snapshot as { config_nodes: Record<string, { id: string; type: string; revision: number; config: Record<string, unknown>; sealed_credentials: Record<string, string> }> };
    // The organization's global-config (made by an earlier test) rides along: its env is every flow's.
    expect(Object.values(snapshot.config_nodes).filter((c) => c.type !== "global-config").map((c) => c.id).sort()).toEqual([node.id, proxy.id].sort());
    expect(snapshot.config_nodes[node.id]).toMatchObject({ id: node.id, type: "tls-config", revision: 1, config: { servername: "api.example.com" } });
    expect(openCredential(testApp.app.config.keys.variables, snapshot.config_nodes[node.id]!.sealed_credentials.keydata!)).toBe(KEY_PEM);
    expectNoMarker(JSON.stringify(row.snapshot), "the deployment snapshot");

    expect((await request("GET", `/config-nodes/${node.id}`, { token })).body.config_node.used_by).toEqual([{ flow_id: flow.id, name: flow.name, node_ids: [requestNode], deployed_revision: 1 }]);
    expect((await request("PUT", `/config-nodes/${node.id}`, { token, body: { config: { servername: "other.example.com" } } })).status).toBe(200);
    // The running flow keeps what it was deployed with until the configuration node is deployed.
    expect((await request("GET", `/config-nodes/${node.id}`, { token })).body.config_node.used_by[0]).toMatchObject({ deployed_revision: 1 });

    const redeploy = await request("POST", `/config-nodes/${node.id}/deploy`, { token });
    expect(redeploy.status, redeploy.text).toBe(200);
    expect(redeploy.body.deployments).toEqual([{ flow_id: flow.id, deployment_id: expect.any(String), revision: flow.revision, state: "running" }]);
    expect((await request("GET", `/config-nodes/${node.id}`, { token })).body.config_node.used_by[0]).toMatchObject({ deployed_revision: 2 });
    const latest = await testApp.app.db.prisma.deployment.findUniqueOrThrow({ where: { id: redeploy.body.deployments[0].deployment_id } });
    expect((latest.snapshot as typeof snapshot).config_nodes[node.id]).toMatchObject({ revision: 2, config: { servername: "other.example.com" } });

    // The new deployment's changes name the node that uses it, nothing else.
    const history = await request("GET", `/flows/${flow.id}/deployments`, { token });
    expect(history.body.deployments[0].changes).toEqual({ added: [], changed: [{ id: requestNode, type: "http-request", name: "" }], removed: [] });
    expectNoMarker(history.text, "GET /flows/{id}/deployments");
    expectNoMarker((await request("GET", `/flows/${flow.id}/deployed`, { token })).text, "GET /flows/{id}/deployed");

    // A configuration node no deployed flow uses deploys nothing.
    const unused = (await create({ type: "http-proxy", config: { url: "http://p.example.com" } })).body.config_node;
    expect((await request("POST", `/config-nodes/${unused.id}/deploy`, { token })).body).toEqual({ deployments: [] });
  });

  it("a flow's export and the audit log never carry a credential", async () => {
    const node = await tls();
    const { flow } = await flowUsing({ tls: node.id });
    await request("PUT", `/config-nodes/${node.id}`, { token, body: { credentials: { passphrase: PASSPHRASE } } });
    const exported = await request("GET", `/flows/${flow.id}/export`, { token });
    expect(exported.status).toBe(200);
    expectNoMarker(exported.text, "GET /flows/{id}/export");
    const audit = await request("GET", "/audit-log?limit=100", { token });
    expect(audit.status).toBe(200);
    expect(audit.body.entries.some((e: { action: string }) => e.action === "config_node.updated")).toBe(true);
    expectNoMarker(audit.text, "GET /audit-log");
  });
});

describe("configuration nodes naming configuration nodes", () => {
  // The shape of mqtt-broker → tls-config (SPEC §19), with types registered on this file's app only.
  beforeAll(() => {
    const registry = testApp.app.nodes;
    registry.register(
      defineNode({
        type: "test-broker",
        version: 1,
        category: "config",
        kind: "config",
        name: "Test broker",
        description: "A configuration node naming a tls-config.",
        inputs: 0,
        outputs: 0,
        configSchema: z.object({ tls: configNodeRef("tls-config", { title: "TLS configuration" }) }),
      }),
    );
    registry.register(
      defineNode({
        type: "test-client",
        version: 1,
        category: "network",
        name: "Test client",
        description: "A node naming a test-broker.",
        inputs: 1,
        outputs: 0,
        configSchema: z.object({ broker: configNodeRef("test-broker", { title: "Broker", required: true }) }),
      }),
    );
  });

  it("checks the reference, lists the user, refuses deleting what it names, and a snapshot follows the chain", async () => {
    const node = await tls();
    const proxy = (await create({ type: "http-proxy", config: { url: "http://p.example.com" } })).body.config_node;
    const wrong = await create({ type: "test-broker", config: { tls: proxy.id } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details[0].path).toBe("config.tls");
    const broker = await create({ type: "test-broker", name: "the broker", config: { tls: node.id } });
    expect(broker.status, broker.text).toBe(201);
    const b = broker.body.config_node;

    expect((await request("GET", `/config-nodes/${node.id}`, { token })).body.config_node.used_by).toEqual([{ config_node_id: b.id, name: "the broker", node_ids: [b.id] }]);
    const del = await request("DELETE", `/config-nodes/${node.id}`, { token });
    expect(del.status).toBe(409);
    expect(del.body.error).toMatchObject({ code: "CONFIG_NODE_IN_USE", message: expect.stringContaining(`configuration node "the broker" (${b.id})`) });

    const snapshot = await snapshotConfigNodes(testApp.app, owner.organizationId, { nodes: [{ id: "c", type: "test-client", name: "", position: { x: 0, y: 0 }, config: { broker: b.id }, disabled: false }] });
    // Beside the organization's global-config (an earlier test made one), which every snapshot carries.
    expect(Object.values(snapshot).filter((c) => c.type !== "global-config").map((c) => c.id).sort()).toEqual([b.id, node.id].sort());
    expect(snapshot[node.id]!.sealed_credentials.keydata).toBeDefined();

    // A required reference refuses "" at save; a flow naming the broker saves.
    const missing = await request("POST", "/flows", { token, body: { name: "x", nodes: [{ id: uid("c"), type: "test-client", config: { broker: "" } }] } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details[0].path).toBe("nodes[0].config.broker");
    const ok = await request("POST", "/flows", { token, body: { name: uid("client "), nodes: [{ id: uid("c"), type: "test-client", config: { broker: b.id } }] } });
    expect(ok.status, ok.text).toBe(201);
  });
});
