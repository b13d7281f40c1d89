/**
 * Issue 23 on the embedded backend: a webhook counter's flow context survives a restart of the
 * process (the app closed and a new one opened on the same DATA_DIR, whose PGlite database holds
 * the context), and a write answered just before the restart is there afterwards. (PostgreSQL with
 * several instances, kill -9 included: context.cluster.test.ts.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import type { AppServices } from "@/server/app-services";
import { restClient, startEmbeddedApp } from "@/test/app";
import { signUp } from "@/test/accounts";
import { handleWebhook } from "@/server/api/rest/webhook-handler";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "fp-context-restart-"));
const open: AppServices[] = [];

async function start(): Promise<AppServices> {
  const app = await startEmbeddedApp(dataDir);
  open.push(app);
  await app.flowRuntime.start();
  return app;
}

afterAll(async () => {
  for (const app of open) await app.close().catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
});

it("the counter goes on after the process restarts on the same embedded database", async () => {
  let app = await start();
  const request = restClient(app);
  const owner = await signUp(request);
  const slug = (await app.db.prisma.organization.findUniqueOrThrow({ where: { id: owner.organizationId } })).slug;
  const created = await request("POST", "/flows", {
    token: owner.accessToken,
    body: {
      name: "restart counter",
      nodes: [
        { id: "rc-in", type: "http-in", config: { method: "get", path: "/count" } },
        { id: "rc-fn", type: "function", config: { code: "msg.payload = String(flow.increment('count')); global.increment('total'); return msg;" } },
        { id: "rc-out", type: "http-response" },
      ],
      connections: [{ source: "rc-in", target: "rc-fn" }, { source: "rc-fn", target: "rc-out" }],
    },
  });
  expect(created.status, created.text).toBe(201);
  const flowId = created.body.flow.id as string;
  expect((await request("POST", `/flows/${flowId}/deploy`, { token: owner.accessToken })).body.deployment.state).toBe("running");
  const call = async (a: AppServices) => (await handleWebhook(a, new Request(`http://app.test/hooks/${slug}/count`), slug, ["count"])).text();
  expect([await call(app), await call(app), await call(app)]).toEqual(["1", "2", "3"]);

  await app.close();
  open.splice(open.indexOf(app), 1);
  app = await start();
  expect(await call(app)).toBe("4");
  // Sessions lived in the old process's in-process store: log in again.
  const again = restClient(app);
  const login = await again("POST", "/auth/login", { body: { email: owner.email, password: owner.password } });
  const global = await again("GET", "/context/global", { token: login.body.access_token });
  expect(global.body).toEqual({ context: { total: 4 } });
});
