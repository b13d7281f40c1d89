import { randomBytes } from "node:crypto";
import { afterAll } from "vitest";
import type { AppServices } from "@/server/app-services";
import { DeviceBus } from "@/server/realtime/device-bus";
import { WebhookRegistry } from "@/server/runtime/webhooks";
import { createSafeFetch } from "@/server/runtime/safe-fetch";
import { SandboxPool } from "@/server/runtime/sandbox/sandbox-pool";
import type { KeyValueStore } from "@/server/store/types";
import { ClusteredFlowRuntime, type ClusterTimings } from "@/server/flow-runtime/clustered";

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
