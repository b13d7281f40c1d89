import { randomBytes } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import type { AppServices } from "@/server/app-services";
import { DeviceBus } from "@/server/realtime/device-bus";
import { WebhookRegistry } from "@/server/runtime/webhooks";
import { createSafeFetch } from "@/server/runtime/safe-fetch";
import { SandboxPool } from "@/server/runtime/sandbox/sandbox-pool";
import type { KeyValueStore } from "@/server/store/types";
import { ClusteredFlowRuntime, type ClusterTimings } from "@/server/flow-runtime/clustered";
import { handleWebhookUrl } from "@/server/api/rest/webhook-handler";
import { CLIENT_IP_HEADER } from "@/server/http/client-ip";

/**
 * Several ClusteredFlowRuntime instances in one test process over the test app's database, each
 * on the store it is given (the app's, or a cuttable one to play a kill -9), with its own device
 * bus and sandbox pool; all closed after the file's tests.
 */
export function clusteredInstances(appOf: () => AppServices, timings: Partial<ClusterTimings>): (name: string, store: KeyValueStore) => ClusteredFlowRuntime {
  const sandboxes: SandboxPool[] = [];
  const runtimes: ClusteredFlowRuntime[] = [];
  afterAll(async () => {
    await Promise.all(runtimes.map((r) => r.close()));
    await Promise.all(sandboxes.map((pool) => pool.close()));
  });
  return (name, store) => {
    const app = appOf();
    const devices = new DeviceBus(app.store, app.logger);
    const pool = new SandboxPool();
    sandboxes.push(pool);
    const runtime = new ClusteredFlowRuntime({
      prisma: app.db.prisma,
      store,
      events: app.events,
      logger: app.logger,
      nodes: app.nodes,
      devices,
      instanceId: `${name}-${randomBytes(3).toString("hex")}`,
      flowsChanged: (organizationId) => app.flowReads.changed(organizationId),
      services: {
        sendToDevices: (organizationId, message) => devices.sendToDevices(organizationId, message),
        onDeviceMessage: (organizationId, handler) => devices.onDeviceMessage(organizationId, handler),
        webhooks: new WebhookRegistry(),
        httpRequest: createSafeFetch({ allowPrivate: false }),
        sandboxes: pool,
      },
      timings,
    });
    runtimes.push(runtime);
    return runtime;
  };
}

export interface ClusteredPair {
  a: ClusteredFlowRuntime;
  b: ClusteredFlowRuntime;
  /** The test app as each instance (by instance id): the same database and store, its own flow runtime. */
  apps: Map<string, AppServices>;
}

/**
 * Two instances on the test app's store, started before the file's tests (the object is filled
 * then), and closed after them.
 */
export function clusteredPair(appOf: () => AppServices, timings: Partial<ClusterTimings>): ClusteredPair {
  const instance = clusteredInstances(appOf, timings);
  const pair = { apps: new Map() } as ClusteredPair;
  beforeAll(async () => {
    pair.a = instance("a", appOf().store);
    pair.b = instance("b", appOf().store);
    pair.apps = new Map([
      [pair.a.instanceId, { ...appOf(), flowRuntime: pair.a }],
      [pair.b.instanceId, { ...appOf(), flowRuntime: pair.b }],
    ]);
    await Promise.all([pair.a.start(), pair.b.start()]);
  });
  return pair;
}

/** POST /hooks/{slug}{path} with a small JSON body through `app` (one instance), by the door the server mounts. */
export async function postHook(app: AppServices, slug: string, path: string): Promise<{ status: number; body: any }> {
  const res = await handleWebhookUrl(
    app,
    new Request(`http://app.test/hooks/${slug}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", [CLIENT_IP_HEADER]: "203.0.113.40" },
      body: JSON.stringify({ hello: "world" }),
    }),
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
