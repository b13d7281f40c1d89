import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, restClient, testCaller } from "@/test/app";
import { joinAs, signUp } from "@/test/accounts";
import { assertTenantIsolation } from "@/test/tenancy";
import type { AppServices } from "@/server/app-services";
import { appRouter } from "./root";
import { mqttSessionId } from "@/server/services/devices/mqtt-sessions";
import { collectRoutes } from "./rest/routes";
import { atLeast, permissions, roles, type Role } from "@/server/permissions";
import type { Meta } from "./trpc";

let app: AppServices;
let request: ReturnType<typeof restClient>;

beforeAll(async () => {
  app = await createTestApp();
  request = restClient(app);
});
afterAll(async () => app?.close());

/**
 * What a role that may call a route gets for the walk's request: 400, since the "x" path ids, the
 * `limit=abc` query and the empty body fail validation, except on these routes. Anything else (a 500
 * above all) is a bug, not "allowed".
 */
const ALLOWED_STATUS: Record<string, number | number[]> = {
  // No input to refuse: served.
  "GET /api-keys": 200,
  "GET /devices": 200,
  "GET /mqtt/sessions": 200,
  "GET /nodes": 200,
  "GET /context/global": 200,
  // "x" is a well-formed context key: deleting a key that is not there is done.
  "DELETE /context/global/{key}": 204,
  // "x" is a well-formed node id and type that names nothing.
  "POST /nodes/{nodeId}/inject": 404,
  "GET /nodes/{type}/schema": 404,
  "GET /subflows": 200,
  // "x" is a well-formed subflow id that names nothing (a PUT's fields are all optional).
  "GET /subflows/{id}": 404,
  "PUT /subflows/{id}": 404,
  "DELETE /subflows/{id}": 404,
  "POST /subflows/{id}/deploy": 404,
  "GET /config-nodes": 200,
  "GET /dashboards/pages": 200,
  "GET /dashboards/share-links": 200,
  // "x" is a well-formed configuration node id that names nothing (a PUT's fields are all optional).
  "GET /config-nodes/{id}": 404,
  "PUT /config-nodes/{id}": 404,
  "DELETE /config-nodes/{id}": 404,
  "POST /config-nodes/{id}/deploy": 404,
  // "x" is a well-formed file path: missing until the first allowed role's PUT stores the body
  // ("{}") there (201, then 200), and the first allowed DELETE removes it (204, then 404).
  "GET /files/{path}": 404,
  "PUT /files/{path}": [201, 200],
  "DELETE /files/{path}": [204, 404],
};

describe("the permission table", () => {
  it("is declared by every authenticated procedure", () => {
    for (const [path, procedure] of Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { meta?: Meta } }>)) {
      const meta = procedure._def.meta;
      if (meta?.auth) expect(meta.permission, path).toBeDefined();
      if (meta?.permission) expect(permissions[meta.permission], path).toBeDefined();
    }
  });

  it("is enforced for every role on every route (walks the table)", async () => {
    const tokens = await tokensByRole();
    const checked: string[] = [];
    for (const route of collectRoutes(appRouter)) {
      const permission = route.meta.permission;
      if (!permission || permission === "account:self" || permission === "org:create") continue;
      // Path ids that fail validation: the permission is checked before the input is parsed, so an
      // allowed role gets 400 and a refused one 403, and nothing is changed either way.
      const path = route.path.replace(/\{\w+\}/g, "x");
      const key = `${route.method} ${route.path}`;
      for (const role of roles) {
        const res = await request(route.method, route.paramNames.length ? path : `${path}?limit=abc`, { token: tokens[role], body: route.method === "GET" ? undefined : {} });
        const allowed = atLeast(role, permissions[permission].minRole);
        if (allowed) {
          // Allowed: past the permission check, and answered exactly as that route answers this input.
          expect([ALLOWED_STATUS[key] ?? 400].flat(), `${role} ${key}: ${res.status} ${res.text}`).toContain(res.status);
        } else {
          expect(res.status, `${role} ${route.method} ${route.path}`).toBe(403);
          expect(res.body.error.code).toBe("FORBIDDEN");
        }
        checked.push(`${role} ${route.method} ${route.path} ${res.status}`);
      }
    }
    expect(checked.length).toBeGreaterThan(30);
  });

  it("is enforced for every role on the procedures only tRPC serves (through the test caller)", async () => {
    const tokens = await tokensByRole();
    const trpcOnly = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { meta?: Meta } }>).filter(
      ([, procedure]) => procedure._def.meta?.permission && !procedure._def.meta.rest,
    );
    expect(trpcOnly.map(([path]) => path)).toEqual(expect.arrayContaining(["flows.copySelection", "flows.parseSelection"]));
    for (const [path, procedure] of trpcOnly) {
      for (const role of roles) {
        const caller = testCaller(app, { credentials: { authorization: `Bearer ${tokens[role]}` } });
        const call = path.split(".").reduce<any>((node, part) => node[part], caller) as (input: unknown) => Promise<unknown>;
        // An empty input fails validation, which comes after the permission check.
        const outcome = await call({}).then(
          () => "served",
          (err: { code?: string }) => err.code,
        );
        const allowed = atLeast(role, permissions[procedure._def.meta!.permission!].minRole);
        expect(outcome, `${role} ${path}`).toBe(allowed ? "BAD_REQUEST" : "FORBIDDEN");
      }
    }
  });
});

/** An access token for each role, all in one organization. */
async function tokensByRole(): Promise<Record<Role, string>> {
  const owner = await signUp(request);
  const tokens = { owner: owner.accessToken } as Record<Role, string>;
  for (const role of roles.filter((r) => r !== "owner")) {
    tokens[role] = (await joinAs(app, request, owner, role)).token;
  }
  return tokens;
}

describe("tenant isolation", () => {
  it("answers another organization's ids with 404 (or 403) on every tenant-scoped endpoint and changes nothing", async () => {
    const victim = await signUp(request);
    const attacker = await signUp(request);
    const colleague = await signUp(request);
    await app.db.prisma.membership.create({ data: { userId: colleague.userId, organizationId: victim.organizationId, role: "member" } });
    const key = await request("POST", "/api-keys", { token: victim.accessToken, body: { name: "victim key" } });
    await request("POST", "/api-keys", { token: victim.accessToken, body: { name: "victim device", kind: "device" } });
    const victimDevice = (await request("GET", "/devices", { token: victim.accessToken })).body.devices[0];
    expect(victimDevice).toMatchObject({ name: "victim device", kind: "channel" });
    const inv = await request("POST", `/organizations/${victim.organizationId}/invitations`, { token: victim.accessToken, body: { email: "someone@example.com", role: "viewer" } });
    const org = victim.organizationId;
    const injectId = `victim-inject-${Date.now()}`;
    const flow = (
      await request("POST", "/flows", { token: victim.accessToken, body: { name: "victim flow", nodes: [{ id: injectId, type: "inject" }, { id: `${injectId}-dbg`, type: "debug" }], connections: [{ source: injectId, target: `${injectId}-dbg` }] } })
    ).body.flow;
    const deployment = (await request("POST", `/flows/${flow.id}/deploy`, { token: victim.accessToken })).body.deployment;
    await request("POST", "/variables", { token: victim.accessToken, body: { name: "VICTIM_SECRET", value: "victim-value", secret: true } });
    await request("POST", "/variables", { token: victim.accessToken, body: { name: "VICTIM_FLOW", value: "v", flow_id: flow.id } });
    const subflow = (await request("POST", "/subflows", { token: victim.accessToken, body: { name: "victim subflow", nodes: [{ id: "vin", type: "subflow-in" }] } })).body.subflow;
    const configNode = (await request("POST", "/config-nodes", { token: victim.accessToken, body: { type: "http-proxy", name: "victim proxy", config: { url: "http://proxy.example.com" }, credentials: { password: "victim-password" } } })).body.config_node;
    const victimBase = (await request("POST", "/config-nodes", { token: victim.accessToken, body: { type: "ui-base", name: "victim dashboard", config: {} } })).body.config_node;
    const victimPage = (await request("POST", "/config-nodes", { token: victim.accessToken, body: { type: "ui-page", name: "victim page", config: { ui: victimBase.id, path: "/victim" } } })).body.config_node;
    const victimShare = (await request("POST", "/dashboards/share-links", { token: victim.accessToken, body: { page_id: victimPage.id } })).body.share_link;

    await request("POST", `/nodes/${injectId}/inject`, { token: victim.accessToken, body: { payload: "victim" } });
    let victimExecution: string | undefined;
    for (let i = 0; i < 100 && !victimExecution; i++) {
      await new Promise((r) => setTimeout(r, 50));
      victimExecution = (await request("GET", `/flows/${flow.id}/executions`, { token: victim.accessToken })).body.executions?.[0]?.id;
    }
    expect(victimExecution).toBeDefined();

    const results = await assertTenantIsolation(request, attacker.accessToken, {
      "GET /flows/{id}/executions": { params: { id: flow.id } },
      "GET /executions/{id}": { params: { id: victimExecution! } },
      "POST /executions/{id}/replay": { params: { id: victimExecution! } },
      "GET /organizations/{id}": { params: { id: org } },
      "PATCH /organizations/{id}": { params: { id: org }, body: { name: "pwned" } },
      "DELETE /organizations/{id}": { params: { id: org } },
      "GET /organizations/{id}/members": { params: { id: org } },
      "PATCH /organizations/{id}/members/{user_id}": { params: { id: org, user_id: colleague.userId }, body: { role: "owner" } },
      "DELETE /organizations/{id}/members/{user_id}": { params: { id: org, user_id: colleague.userId } },
      "POST /organizations/{id}/invitations": { params: { id: org }, body: { email: "evil@example.com", role: "owner" } },
      "GET /organizations/{id}/invitations": { params: { id: org } },
      "DELETE /organizations/{id}/invitations/{invitation_id}": { params: { id: org, invitation_id: inv.body.invitation.id } },
      "DELETE /api-keys/{id}": { params: { id: key.body.api_key.id } },
      "DELETE /auth/sessions/{id}": { params: { id: victim.sessionId } },
      "GET /flows/{id}": { params: { id: flow.id } },
      "PUT /flows/{id}": { params: { id: flow.id }, body: { name: "pwned", nodes: [] } },
      "DELETE /flows/{id}": { params: { id: flow.id } },
      "POST /flows/{id}/deploy": { params: { id: flow.id } },
      "POST /flows/{id}/debug/active": { params: { id: flow.id }, body: { active: false } },
      "GET /flows/{id}/deployments": { params: { id: flow.id } },
      "POST /flows/{id}/rollback": { params: { id: flow.id }, body: { deployment_id: deployment.id } },
      "GET /flows/{id}/export": { params: { id: flow.id } },
      "PUT /flows/{id}/export": { params: { id: flow.id }, body: { flows: [{ id: "t", type: "tab", label: "pwned" }] } },
      "GET /flows/{id}/deployed": { params: { id: flow.id } },
      "GET /flows/{flowId}/nodes": { params: { flowId: flow.id } },
      "GET /flows/{id}/context": { params: { id: flow.id } },
      "PUT /flows/{id}/context/{key}": { params: { id: flow.id, key: "k" }, body: { value: "pwned" } },
      "DELETE /flows/{id}/context/{key}": { params: { id: flow.id, key: "k" } },
      "POST /nodes/{nodeId}/inject": { params: { nodeId: injectId }, body: {} },
      "POST /nodes/{nodeId}/active": { params: { nodeId: `${injectId}-dbg` }, body: { active: false } },
      "GET /nodes/{type}/schema": { params: { type: "teleport" } },
      "POST /nodes/{type}/validate": { params: { type: "teleport" }, body: { config: {} } },
      // Variables are addressed by name within the caller's organization: the victim's are not there.
      "PUT /variables/{name}": { params: { name: "VICTIM_SECRET" }, body: { value: "pwned" } },
      "DELETE /variables/{name}": { params: { name: "VICTIM_SECRET" } },
      "GET /subflows/{id}": { params: { id: subflow.id } },
      "PUT /subflows/{id}": { params: { id: subflow.id }, body: { name: "pwned" } },
      "DELETE /subflows/{id}": { params: { id: subflow.id } },
      "POST /subflows/{id}/deploy": { params: { id: subflow.id } },
      "GET /config-nodes/{id}": { params: { id: configNode.id } },
      "PUT /config-nodes/{id}": { params: { id: configNode.id }, body: { name: "pwned", credentials: { password: null } } },
      "DELETE /config-nodes/{id}": { params: { id: configNode.id } },
      "POST /config-nodes/{id}/deploy": { params: { id: configNode.id } },
      "DELETE /dashboards/share-links/{id}": { params: { id: victimShare.id } },
      "GET /devices/{id}": { params: { id: victimDevice.id } },
      "PUT /devices/{id}": { params: { id: victimDevice.id }, body: { name: "pwned", tags: ["pwned"] } },
      // The id the victim's session of client id "victim-client" has (a real session stays through a stranger's DELETE: admin-sessions.integration › "is an admin's").
      "DELETE /mqtt/sessions/{id}": { params: { id: mqttSessionId(victim.organizationId, "victim-client") } },
    });
    expect((await request("GET", "/dashboards/share-links", { token: victim.accessToken })).body.share_links).toEqual([expect.objectContaining({ id: victimShare.id, revoked_at: null })]);
    expect((await request("POST", "/dashboards/share-links", { token: attacker.accessToken, body: { page_id: victimPage.id } })).status).toBe(404);
    expect((await request("GET", "/devices", { token: attacker.accessToken })).body.devices).toEqual([]);
    expect((await request("GET", `/devices/${victimDevice.id}`, { token: victim.accessToken })).body.device).toMatchObject({ name: "victim device", tags: [] });
    // A flow of the attacker cannot target the victim's device (refused as a missing one would be).
    const targeting = await request("POST", "/flows", { token: attacker.accessToken, body: { name: "x", target: { device_id: victimDevice.id } } });
    expect(targeting.status).toBe(400);
    expect(targeting.body.error.details).toEqual([{ path: "target.device_id", message: "no such device in this organization" }]);
    expect((await request("GET", `/config-nodes/${configNode.id}`, { token: victim.accessToken })).body.config_node).toMatchObject({ name: "victim proxy", revision: 1, credentials: { password: { set: true } } });
    expect((await request("GET", "/config-nodes", { token: attacker.accessToken })).body.config_nodes).toEqual([]);
    expect((await request("GET", `/subflows/${subflow.id}`, { token: victim.accessToken })).body.subflow).toMatchObject({ name: "victim subflow", revision: 1 });
    expect((await request("GET", "/subflows", { token: attacker.accessToken })).body.subflows).toEqual([]);
    expect(results.length).toBeGreaterThanOrEqual(21);
    const victimFlow = (await request("GET", `/flows/${flow.id}`, { token: victim.accessToken })).body.flow;
    expect(victimFlow).toMatchObject({ name: "victim flow", revision: 1, state: "running" });
    expect(victimFlow.nodes).toHaveLength(2);
    expect((await request("GET", `/flows/${flow.id}/deployments`, { token: victim.accessToken })).body.deployments).toHaveLength(1);
    expect((await request("GET", "/flows", { token: attacker.accessToken })).body.flows).toEqual([]);
    expect((await request("GET", "/variables", { token: attacker.accessToken })).body.variables).toEqual([]);
    // A variable for the victim's flow cannot be made from outside (404, as for any of its flows).
    expect((await request("POST", "/variables", { token: attacker.accessToken, body: { name: "X", value: "1", flow_id: flow.id } })).status).toBe(404);
    expect((await request("DELETE", `/variables/VICTIM_FLOW?flow_id=${flow.id}`, { token: attacker.accessToken })).status).toBe(404);
    expect((await request("GET", "/variables", { token: victim.accessToken })).body.variables.map((v: { name: string }) => v.name)).toEqual(["VICTIM_FLOW", "VICTIM_SECRET"]);

    const state = await request("GET", `/organizations/${org}`, { token: victim.accessToken });
    expect(state.body.organization.name).not.toBe("pwned");
    const members = await request("GET", `/organizations/${org}/members`, { token: victim.accessToken });
    expect(members.body.members.map((m: { role: string }) => m.role).sort()).toEqual(["member", "owner"]);
    expect((await request("GET", `/organizations/${org}`, { headers: { "x-api-key": key.body.secret } })).status).toBe(200);
    expect((await request("GET", `/organizations/${org}/invitations`, { token: victim.accessToken })).body.invitations).toHaveLength(1);
    expect((await request("GET", "/auth/profile", { token: victim.accessToken })).status).toBe(200);

    // Lists only ever show the caller's organization.
    const attackerKeys = await request("GET", "/api-keys", { token: attacker.accessToken });
    expect(attackerKeys.body.api_keys).toEqual([]);
    const attackerAudit = await request("GET", "/audit-log", { token: attacker.accessToken });
    expect(attackerAudit.body.entries.every((e: { actor_id: string }) => e.actor_id === attacker.userId)).toBe(true);
  });
});
