/**
 * Issue 15: each finding, through the door an attacker uses (REST, /hooks, a deployed flow).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, restClient } from "@/test/app";
import { signUp } from "@/test/accounts";
import type { AppServices } from "@/server/app";
import { handleWebhook } from "@/server/api/rest/webhook-handler";

let app: AppServices;
let request: ReturnType<typeof restClient>;
let user: Awaited<ReturnType<typeof signUp>>;

beforeAll(async () => {
  app = await createTestApp();
  request = restClient(app);
  user = await signUp(request);
});
afterAll(async () => app?.close());

let seq = 0;
const uid = (p: string) => `${p}-${Date.now().toString(36)}-${++seq}`;

async function slugOf(organizationId: string): Promise<string> {
  return (await app.db.prisma.organization.findUniqueOrThrow({ where: { id: organizationId } })).slug;
}

/** Creates and deploys a flow; returns its id. */
async function deploy(token: string, nodes: unknown[], connections: unknown[] = []): Promise<string> {
  const created = await request("POST", "/flows", { token, body: { name: uid("flow"), nodes, connections } });
  expect(created.status, created.text).toBe(201);
  const dep = await request("POST", `/flows/${created.body.flow.id}/deploy`, { token });
  expect(dep.status, dep.text).toBe(200);
  expect(dep.body.deployment.state).toBe("running");
  return created.body.flow.id as string;
}

function hook(slug: string, path: string, init: RequestInit = {}) {
  const segments = path.split("/").filter(Boolean);
  return handleWebhook(app, new Request(`http://app.test/hooks/${slug}/${segments.join("/")}`, init), slug, segments);
}

describe("1. prototype pollution", () => {
  it("a change node `delete __proto__.hasOwnProperty` is refused at save with 400, in every path field", async () => {
    const bad = [
      { type: "change", config: { rules: [{ t: "delete", p: "__proto__.hasOwnProperty" }] } },
      { type: "change", config: { rules: [{ t: "set", p: "payload.constructor.prototype.x", to: "1" }] } },
      { type: "change", config: { rules: [{ t: "move", p: "payload", to: "__proto__" }] } },
      { type: "switch", config: { property: "__proto__" } },
      { type: "json", config: { property: "constructor" } },
      { type: "template", config: { field: "prototype" } },
    ];
    for (const node of bad) {
      const res = await request("POST", "/flows", { token: user.accessToken, body: { name: uid("evil"), nodes: [{ id: uid("n"), ...node }] } });
      expect(res.status, JSON.stringify(node)).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
    }
    expect(({} as Record<string, unknown>).hasOwnProperty).toBe(Object.prototype.hasOwnProperty);
  });
});
