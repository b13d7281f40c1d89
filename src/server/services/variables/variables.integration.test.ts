import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { joinAs, signUp } from "@/test/accounts";
import { testCaller } from "@/test/app";
import { TRPCError } from "@trpc/server";

const testApp = setUpTestApp();
const request = testApp.request;

const SECRET = "s3cr3t-token-value-9f8e7d";

async function newFlow(token: string, name = "uses variables") {
  const res = await request("POST", "/flows", { token, body: { name } });
  expect(res.status).toBe(201);
  return res.body.flow.id as string;
}

describe("variables over REST (SPEC §14)", () => {
  it("creates, lists, changes and deletes organization and flow variables; a secret's value is never returned", async () => {
    const owner = await signUp(request);
    const flowId = await newFlow(owner.accessToken);

    const plain = await request("POST", "/variables", { token: owner.accessToken, body: { name: "API_URL", value: "https://test.example" } });
    expect(plain.status).toBe(201);
    expect(plain.body.variable).toEqual({ name: "API_URL", value: "https://test.example", secret: false, flow_id: null, allowed_hosts: null, updated_at: expect.any(String), updated_by: owner.userId });

    const secret = await request("POST", "/variables", { token: owner.accessToken, body: { name: "API_TOKEN", value: SECRET, secret: true } });
    expect(secret.status).toBe(201);
    expect(secret.body.variable).not.toHaveProperty("value");
    expect(secret.text).not.toContain(SECRET);

    const override = await request("POST", "/variables", { token: owner.accessToken, body: { name: "API_URL", value: "https://flow.example", flow_id: flowId } });
    expect(override.status).toBe(201);
    expect(override.body.variable.flow_id).toBe(flowId);

    const list = await request("GET", "/variables", { token: owner.accessToken });
    expect(list.status).toBe(200);
    expect(list.body.variables).toHaveLength(3);
    expect(list.text).not.toContain(SECRET);
    expect(list.body.variables.find((v: { name: string }) => v.name === "API_TOKEN")).toEqual(expect.not.objectContaining({ value: expect.anything() }));
    const onlyFlow = await request("GET", `/variables?flow_id=${flowId}`, { token: owner.accessToken });
    expect(onlyFlow.body.variables.map((v: { value: string }) => v.value)).toEqual(["https://flow.example"]);

    const changed = await request("PUT", "/variables/API_URL", { token: owner.accessToken, body: { value: "https://live.example" } });
    expect(changed.status).toBe(200);
    expect(changed.body.variable).toMatchObject({ name: "API_URL", value: "https://live.example", flow_id: null });
    const flowOne = await request("PUT", "/variables/API_URL", { token: owner.accessToken, body: { value: "https://flow2.example", flow_id: flowId } });
    expect(flowOne.body.variable).toMatchObject({ value: "https://flow2.example", flow_id: flowId });

    const rotated = await request("PUT", "/variables/API_TOKEN", { token: owner.accessToken, body: { value: `${SECRET}-2` } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.variable).toMatchObject({ name: "API_TOKEN", secret: true });
    expect(rotated.text).not.toContain(SECRET);

    expect((await request("DELETE", `/variables/API_URL?flow_id=${flowId}`, { token: owner.accessToken })).status).toBe(204);
    expect((await request("DELETE", "/variables/API_URL?flow_id=", { token: owner.accessToken })).status).toBe(204);
    const after = await request("GET", "/variables", { token: owner.accessToken });
    expect(after.body.variables.map((v: { name: string }) => v.name)).toEqual(["API_TOKEN"]);
  });

  it("pages with limit and cursor, by name, and refuses a cursor it did not hand out", async () => {
    const owner = await signUp(request);
    const flowId = await newFlow(owner.accessToken);
    for (const name of ["C_VAR", "A_VAR", "B_VAR"]) await request("POST", "/variables", { token: owner.accessToken, body: { name, value: name } });
    await request("POST", "/variables", { token: owner.accessToken, body: { name: "B_VAR", value: "flow", flow_id: flowId } });
    const all = await request("GET", "/variables", { token: owner.accessToken });
    expect(all.body.next_cursor).toBeNull();
    expect(all.body.variables.map((v: { name: string; flow_id: string | null }) => `${v.name}:${v.flow_id ?? "org"}`)).toEqual(["A_VAR:org", "B_VAR:org", `B_VAR:${flowId}`, "C_VAR:org"]);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { variables: Array<{ name: string }>; next_cursor: string | null } } = await request("GET", `/variables?limit=2${cursor ? `&cursor=${cursor}` : ""}`, { token: owner.accessToken });
      seen.push(...page.body.variables.map((v) => v.name));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(["A_VAR", "B_VAR", "B_VAR", "C_VAR"]);
    for (const bad of ["limit=0", "limit=201", "limit=abc", "cursor=not-a-cursor", `cursor=${Buffer.from('["lower",""]').toString("base64url")}`]) {
      expect((await request("GET", `/variables?${bad}`, { token: owner.accessToken })).status, bad).toBe(400);
    }
  });

  it("stores a secret only encrypted (AES-256-GCM, with its key id) and reads it back for flows", async () => {
    const owner = await signUp(request);
    await request("POST", "/variables", { token: owner.accessToken, body: { name: "DB_PASSWORD", value: SECRET, secret: true } });
    const row = await testApp.app.db.prisma.variable.findFirstOrThrow({ where: { organizationId: owner.organizationId, name: "DB_PASSWORD" } });
    expect(JSON.stringify(row)).not.toContain(SECRET);
    expect(row.value).toBeNull();
    expect(row.valueEncrypted).toMatch(/^v1\./);
    expect(row.keyId).toBe(testApp.app.config.keys.variables.currentId);
    const set = await testApp.app.variables.ensure(owner.organizationId);
    expect(set.lookup("flw_none", "DB_PASSWORD")).toEqual({ value: SECRET, secret: true });
  });

  it("refuses bad input with 400 and changes nothing", async () => {
    const owner = await signUp(request);
    const bad = [
      { name: "lower_case", value: "x" },
      { name: "1STARTS_WITH_DIGIT", value: "x" },
      { name: "A".repeat(65), value: "x" },
      { name: "OK", value: 42 },
      { name: "OK", value: "x".repeat(64 * 1024 + 1) },
      { name: "OK", value: "x", flow_id: "not-a-flow" },
      { name: "OK", value: "x", secret: "yes" },
      { value: "x" },
    ];
    for (const body of bad) {
      const res = await request("POST", "/variables", { token: owner.accessToken, body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
    }
    expect((await request("PUT", "/variables/lower", { token: owner.accessToken, body: { value: "x" } })).status).toBe(400);
    expect((await request("GET", "/variables", { token: owner.accessToken })).body.variables).toEqual([]);
    expect(await testApp.app.db.prisma.variable.count({ where: { organizationId: owner.organizationId } })).toBe(0);
  });

  it("answers 404 for a missing variable or a flow of another organization, 409 for a name defined twice", async () => {
    const owner = await signUp(request);
    const other = await signUp(request);
    const foreignFlow = await newFlow(other.accessToken);
    expect((await request("PUT", "/variables/MISSING", { token: owner.accessToken, body: { value: "x" } })).status).toBe(404);
    expect((await request("DELETE", "/variables/MISSING", { token: owner.accessToken })).status).toBe(404);
    const foreign = await request("POST", "/variables", { token: owner.accessToken, body: { name: "X", value: "1", flow_id: foreignFlow } });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("NOT_FOUND");

    expect((await request("POST", "/variables", { token: owner.accessToken, body: { name: "TWICE", value: "1" } })).status).toBe(201);
    const twice = await request("POST", "/variables", { token: owner.accessToken, body: { name: "TWICE", value: "2" } });
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe("VARIABLE_EXISTS");
    // Another organization's variable of the same name is its own.
    expect((await request("POST", "/variables", { token: other.accessToken, body: { name: "TWICE", value: "3" } })).status).toBe(201);
    expect((await request("GET", "/variables", { token: owner.accessToken })).body.variables.map((v: { value: string }) => v.value)).toEqual(["1"]);
  });

  it("lets admins and owners write; members and viewers only list", async () => {
    const owner = await signUp(request);
    await request("POST", "/variables", { token: owner.accessToken, body: { name: "SHARED", value: "v" } });
    for (const role of ["viewer", "member"] as const) {
      const user = await joinAs(testApp.app, request, owner, role);
      expect((await request("GET", "/variables", { token: user.token })).status).toBe(200);
      const refused = await request("POST", "/variables", { token: user.token, body: { name: "MINE", value: "v" } });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe("FORBIDDEN");
      expect((await request("PUT", "/variables/SHARED", { token: user.token, body: { value: "w" } })).status).toBe(403);
      expect((await request("DELETE", "/variables/SHARED", { token: user.token })).status).toBe(403);
    }
    const admin = await joinAs(testApp.app, request, owner, "admin");
    expect((await request("PUT", "/variables/SHARED", { token: admin.token, body: { value: "w" } })).status).toBe(200);
    expect((await request("GET", "/variables")).status).toBe(401);
  });

  it("audits every change with the name and never the value", async () => {
    const owner = await signUp(request);
    await request("POST", "/variables", { token: owner.accessToken, body: { name: "AUDITED", value: SECRET, secret: true } });
    await request("PUT", "/variables/AUDITED", { token: owner.accessToken, body: { value: `${SECRET}-next` } });
    await request("DELETE", "/variables/AUDITED", { token: owner.accessToken });
    const log = await request("GET", "/audit-log?limit=10", { token: owner.accessToken });
    expect(log.status).toBe(200);
    const entries = log.body.entries.filter((e: { action: string }) => e.action.startsWith("variable."));
    expect(entries.map((e: { action: string }) => e.action)).toEqual(["variable.deleted", "variable.updated", "variable.created"]);
    for (const e of entries) expect(e).toMatchObject({ actor_id: owner.userId, target_type: "variable", metadata: { name: "AUDITED", secret: true, flow_id: null } });
    expect(log.text).not.toContain(SECRET);
  });
});

describe("variables over tRPC", () => {
  it("runs the same procedures: create, list without secret values, update, delete, and FORBIDDEN for members", async () => {
    const owner = await signUp(request);
    const caller = testCaller(testApp.app, { credentials: { authorization: `Bearer ${owner.accessToken}` } });
    const created = await caller.variables.create({ name: "TRPC_SECRET", value: SECRET, secret: true });
    expect(created.variable).toMatchObject({ name: "TRPC_SECRET", secret: true, flow_id: null });
    expect(created.variable).not.toHaveProperty("value");
    const listed = await caller.variables.list();
    expect(JSON.stringify(listed)).not.toContain(SECRET);
    await caller.variables.update({ name: "TRPC_SECRET", value: "plain now", secret: false });
    expect((await caller.variables.list()).variables[0]).toMatchObject({ value: "plain now", secret: false });
    await caller.variables.delete({ name: "TRPC_SECRET" });
    expect((await caller.variables.list()).variables).toEqual([]);

    const member = await joinAs(testApp.app, request, owner, "member");
    const memberCaller = testCaller(testApp.app, { credentials: { authorization: `Bearer ${member.token}` } });
    await expect(memberCaller.variables.create({ name: "NOPE", value: "x" })).rejects.toSatisfy((e: unknown) => e instanceof TRPCError && e.code === "FORBIDDEN");
    await expect(caller.variables.create({ name: "bad name", value: "x" })).rejects.toSatisfy((e: unknown) => e instanceof TRPCError && e.code === "BAD_REQUEST");
  });
});

describe("a rotation of ENCRYPTION_KEY", () => {
  it("reads secrets sealed under the previous key and seals them again under the new one", async () => {
    const owner = await signUp(request);
    await request("POST", "/variables", { token: owner.accessToken, body: { name: "ROTATED", value: SECRET, secret: true } });
    const before = await testApp.app.db.prisma.variable.findFirstOrThrow({ where: { organizationId: owner.organizationId, name: "ROTATED" } });
    const { variableKeyring } = await import("./variable-keys");
    const { loadVariableSet } = await import("./variables");
    const rotated = variableKeyring("a-brand-new-encryption-key-32-characters", ["test-encryption-key-at-least-32-characters"]);
    const set = await loadVariableSet({ prisma: testApp.app.db.prisma, keyring: rotated, logger: testApp.app.logger }, owner.organizationId);
    expect(set.lookup("flw_x", "ROTATED")).toEqual({ value: SECRET, secret: true });
    const after = await testApp.app.db.prisma.variable.findFirstOrThrow({ where: { id: before.id } });
    expect(after.keyId).toBe(rotated.currentId);
    expect(after.keyId).not.toBe(before.keyId);
    expect(rotated.open(after.valueEncrypted!, after.keyId!)).toBe(SECRET);
  });
});

describe("Node-RED import and export of a tab's env", () => {
  const flowsJson = (tabId: string) => [
    {
      id: tabId,
      type: "tab",
      label: "with env",
      env: [
        { name: "API_URL", value: "https://api.example.test", type: "str" },
        { name: "RETRIES", value: "3", type: "num" },
        { name: "VERBOSE", value: true, type: "bool" },
        { name: "API_TOKEN", value: "", type: "cred" },
        { name: "lower_case", value: "x", type: "str" },
        { name: "FROM_ENV", value: "HOME", type: "env" },
      ],
      credentials: { API_TOKEN: SECRET },
    },
    { id: `${tabId}-req`, type: "http request", z: tabId, name: "", method: "GET", ret: "obj", url: "${API_URL}/orders", authType: "bearer", credentials: { user: "", password: "${API_TOKEN}" }, x: 100, y: 100, wires: [[]] },
  ];

  it("turns env into the flow's variables (cred into a secret), keeps ${NAME}, and exports them back without the secret's value", async () => {
    const owner = await signUp(request);
    const imported = await request("POST", "/flows/import", { token: owner.accessToken, body: { flows: flowsJson("tab1") } });
    expect(imported.status, imported.text).toBe(201);
    const flowId = imported.body.flows[0].id as string;
    const warnings = imported.body.warnings.join("\n");
    expect(warnings).toContain("lower_case");
    expect(warnings).toContain("FROM_ENV of type env");
    expect(imported.text).not.toContain(SECRET);

    const vars = (await request("GET", `/variables?flow_id=${flowId}`, { token: owner.accessToken })).body.variables;
    expect(vars).toEqual([
      expect.objectContaining({ name: "API_TOKEN", secret: true, flow_id: flowId }),
      expect.objectContaining({ name: "API_URL", value: "https://api.example.test", secret: false }),
      expect.objectContaining({ name: "FROM_ENV", value: "HOME" }),
      expect.objectContaining({ name: "RETRIES", value: "3" }),
      expect.objectContaining({ name: "VERBOSE", value: "true" }),
    ]);
    const set = await testApp.app.variables.ensure(owner.organizationId);
    expect(set.lookup(flowId, "API_TOKEN")).toEqual({ value: SECRET, secret: true });

    const flow = (await request("GET", `/flows/${flowId}`, { token: owner.accessToken })).body.flow;
    expect(flow.nodes[0].config).toMatchObject({ url: "${API_URL}/orders", auth_type: "bearer", auth_password: "${API_TOKEN}" });

    const exported = await request("GET", `/flows/${flowId}/export`, { token: owner.accessToken });
    expect(exported.text).not.toContain(SECRET);
    expect(exported.body[0].env).toEqual([
      { name: "API_TOKEN", value: "", type: "cred" },
      { name: "API_URL", value: "https://api.example.test", type: "str" },
      { name: "FROM_ENV", value: "HOME", type: "str" },
      { name: "RETRIES", value: "3", type: "str" },
      { name: "VERBOSE", value: "true", type: "str" },
    ]);
    expect(exported.body[1]).toMatchObject({ url: "${API_URL}/orders", authType: "bearer", credentials: { password: "${API_TOKEN}" } });

    const log = await request("GET", "/audit-log?action=variable.created", { token: owner.accessToken });
    expect(log.body.entries).toHaveLength(5);
    expect(log.body.entries[0].metadata).toMatchObject({ via: "import", flow_id: flowId });
    expect(log.text).not.toContain(SECRET);
  });

  it("imports a member's flows without their env (defining variables needs admin) and says so", async () => {
    const owner = await signUp(request);
    const member = await joinAs(testApp.app, request, owner, "member");
    const imported = await request("POST", "/flows/import", { token: member.token, body: { flows: flowsJson("tab2") } });
    expect(imported.status, imported.text).toBe(201);
    expect(imported.body.warnings.join("\n")).toMatch(/environment variable\(s\) were not imported: defining variables needs the admin role/);
    expect((await request("GET", "/variables", { token: owner.accessToken })).body.variables).toEqual([]);
  });
});
