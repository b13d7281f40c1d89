/**
 * The webhook limits (per client IP and per organization), counted in one store round trip: a
 * client over its own limit gets 429 with Retry-After, and its refused requests do not use up the
 * organization's budget, which other clients still reach. Runs on the in-process store and, with
 * REDIS_URL, on Redis (the round's script).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { restClient } from "@/test/app";
import { handleWebhookUrl } from "@/server/api/rest/webhook-handler";
import { CLIENT_IP_HEADER } from "./client-ip";

const testApp = setUpTestApp({ RATE_LIMIT_WEBHOOK_PER_IP: "3", RATE_LIMIT_WEBHOOK_PER_ORG: "5" });
let slug = "";

beforeAll(async () => {
  const rest = restClient(testApp.app);
  const user = await signUp(rest);
  ({ slug } = await testApp.app.db.prisma.organization.findUniqueOrThrow({ where: { id: user.organizationId } }));
  const created = await rest("POST", "/flows", {
    token: user.accessToken,
    body: {
      name: "limited",
      nodes: [
        { id: "lim-in", type: "http-in", config: { method: "get", path: "/ping" } },
        { id: "lim-out", type: "http-response", config: {} },
      ],
      connections: [{ source: "lim-in", target: "lim-out" }],
    },
  });
  expect(created.status, created.text).toBe(201);
  const deployed = await rest("POST", `/flows/${created.body.flow.id}/deploy`, { token: user.accessToken });
  expect(deployed.body.deployment?.state, deployed.text).toBe("running");
});

/** A request as the custom server hands it on: the client IP header set from the socket. */
const ping = (ip: string) => handleWebhookUrl(testApp.app, new Request(`http://app.test/hooks/${slug}/ping`, { headers: { [CLIENT_IP_HEADER]: ip } }));

describe("webhook rate limits", () => {
  it("refuses a client past its own limit without spending the organization's budget on it", async () => {
    const statuses = async (ip: string, n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await ping(ip)).status);
      return out;
    };
    expect(await statuses("203.0.113.1", 3)).toEqual([200, 200, 200]);
    const refused = await ping("203.0.113.1");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("RATE_LIMITED");
    // Ten more refused requests from the same client: the organization has 2 of its 5 left still.
    expect(await statuses("203.0.113.1", 10)).toEqual(Array(10).fill(429));
    expect(await statuses("203.0.113.2", 2)).toEqual([200, 200]);
    // The organization's budget is spent now, for every client.
    expect((await ping("203.0.113.3")).status).toBe(429);
  });
});
