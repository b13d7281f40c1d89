/**
 * A flow moving to another instance (a hand-over) is found through its lease before it runs
 * there: the new holder takes the lease, then loads and starts the flow. A /hooks request that
 * arrives in that moment waits for the start and gets the flow's answer, where it used to get a
 * 404 (ClusteredFlowRuntime.startsSettled).
 *
 * Two ClusteredFlowRuntime instances in this process over the test app's database and store (the
 * in-process store, or Redis with REDIS_URL); the one taking the flow over starts it slowly (800 ms
 * more), so the moment is long enough to hit. Requests go through the /hooks door the server
 * mounts (handleWebhookUrl).
 */
import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { clusteredPair, postHook } from "@/test/clustered-instances";
import { until } from "@/test/cluster";
import { restClient } from "@/test/app";
import { signUp } from "@/test/accounts";
import type { ClusteredFlowRuntime } from "./clustered";
import type { LocalFlowRuntime } from "./local";

const testApp = setUpTestApp();
const pair = clusteredPair(() => testApp.app, { tickMs: 100, leaseTtlMs: 1_000, routeTtlMs: 1_500 });

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const hook = async (slug: string, path: string, via: ClusteredFlowRuntime) => (await postHook(pair.apps.get(via.instanceId)!, slug, path)).status;

describe("a webhook during a hand-over", () => {
  it("reaches the flow once its new holder has started it, instead of a 404", async () => {
    const { a, b } = pair;
    const rest = restClient(pair.apps.get(a.instanceId)!);
    const user = await signUp(rest);
    const { slug } = await testApp.app.db.prisma.organization.findUniqueOrThrow({ where: { id: user.organizationId } });
    const created = await rest("POST", "/flows", {
      token: user.accessToken,
      body: {
        name: "moving",
        nodes: [
          { id: "mv-in", type: "http-in", config: { method: "post", path: "/moving" } },
          { id: "mv-out", type: "http-response", config: { status_code: 201 } },
        ],
        connections: [{ source: "mv-in", target: "mv-out" }],
      },
    });
    expect(created.status, created.text).toBe(201);
    const flowId = created.body.flow.id as string;
    expect((await rest("POST", `/flows/${flowId}/deploy`, { token: user.accessToken })).body.deployment?.state).toBe("running");
    const holderId = await until("placed", async () => (await a.placement(flowId))?.instanceId, 10_000, 10);
    const [holder, next] = holderId === a.instanceId ? [a, b] : [b, a];
    expect(await hook(slug, "/moving", next)).toBe(201);

    // The next holder starts the flow 800 ms late.
    const local = (next as unknown as { local: LocalFlowRuntime }).local;
    const apply = local.apply.bind(local);
    local.apply = async (...args: Parameters<LocalFlowRuntime["apply"]>) => {
      await sleep(800);
      return apply(...args);
    };
    try {
      const handedOver = holder.close();
      // The lease is the next holder's, the flow not running there yet.
      await until("the lease taken over", async () => (next.heldFlowIds().includes(flowId) ? true : undefined), 10_000, 10);
      expect(local.runningDeployment(flowId)).toBeNull();
      expect(await hook(slug, "/moving", next)).toBe(201);
      await handedOver;
    } finally {
      local.apply = apply;
    }
  });
});
