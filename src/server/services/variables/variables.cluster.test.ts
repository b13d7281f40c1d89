/**
 * Issue 24 on two real instances against the machine's PostgreSQL and Redis: a secret changed
 * through one instance reaches the flow running on the other within 2 s, without a redeploy (the
 * change is announced on Redis pub/sub and every instance reads the organization's variables again).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp } from "@/test/accounts";
import { TestCluster, until, type ClusterNode } from "@/test/cluster";

const BASE_PORT = 3950;

let cluster: TestCluster;
let token: string;
let slug: string;
let currentToken = "cluster-first-0a1b2c";
let baseUrl = "";
const api = http.createServer((req, res) => {
  const ok = req.headers.authorization === `Bearer ${currentToken}`;
  res.writeHead(ok ? 200 : 401, { "content-type": "application/json" }).end(JSON.stringify({ ok }));
});

beforeAll(async () => {
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  cluster = new TestCluster({ basePort: BASE_PORT, env: { HTTP_REQUEST_ALLOW_PRIVATE: "true" } });
  await Promise.all([cluster.start("a", 0), cluster.start("b", 1)]);
  const user = await signUp(cluster.node("a").request);
  token = user.accessToken;
  slug = (await cluster.node("a").request("GET", "/organizations", { token })).body.organizations[0].slug;
}, 90_000);

afterAll(async () => {
  await cluster?.dispose();
  await new Promise<void>((resolve) => api.close(() => resolve()));
}, 60_000);

describe("variables across instances", () => {
  it("a rotated secret reaches the flow on the other instance within 2 s, with no redeploy", async () => {
    try {
      const a = cluster.node("a");
      expect((await a.request("POST", "/variables", { token, body: { name: "API_URL", value: baseUrl } })).status).toBe(201);
      expect((await a.request("POST", "/variables", { token, body: { name: "API_TOKEN", value: currentToken, secret: true } })).status).toBe(201);
      const created = await a.request("POST", "/flows", {
        token,
        body: {
          name: "protected call",
          nodes: [
            { id: "vc_in", type: "http-in", config: { method: "post", path: "/call" } },
            { id: "vc_req", type: "http-request", config: { url: "${API_URL}/x", return: "obj", auth_type: "bearer", auth_password: "${API_TOKEN}" } },
            { id: "vc_out", type: "http-response", config: { status_code: 200 } },
          ],
          connections: [
            { source: "vc_in", target: "vc_req" },
            { source: "vc_req", target: "vc_out" },
          ],
        },
      });
      expect(created.status, created.text).toBe(201);
      const flowId = created.body.flow.id as string;
      expect((await a.request("POST", `/flows/${flowId}/deploy`, { token })).body.deployment.state).toBe("running");
      const runner = await until("the flow is placed", async () => {
        const res = await a.request("GET", `/flows/${flowId}`, { token });
        return (res.body.flow?.runtime?.instance_id as string | undefined) ?? undefined;
      });
      const running: ClusterNode = cluster.byInstance(runner);
      const other = cluster.live().find((n) => n !== running)!;
      const call = async (via: ClusterNode) => (await via.request("POST", `/hooks/${slug}/call`, { body: {} })).body as { ok?: boolean };
      expect(await call(other)).toEqual({ ok: true });

      // Rotated through the instance that does not run the flow.
      currentToken = "cluster-second-3d4e5f";
      const changedAt = Date.now();
      expect((await other.request("PUT", "/variables/API_TOKEN", { token, body: { value: currentToken } })).status).toBe(200);
      await until("the new secret is used", async () => ((await call(running)).ok ? true : undefined), 2000, 50);
      expect(Date.now() - changedAt).toBeLessThan(2000);
      expect(await call(other)).toEqual({ ok: true });
      expect((await a.request("GET", `/flows/${flowId}/deployments`, { token })).body.deployments).toHaveLength(1);
    } catch (err) {
      console.error(cluster.logs());
      throw err;
    }
  });
});
