import { z } from "zod";
import type { AppServices } from "../../app-services";

export const healthSchema = z.object({
  status: z.literal("ok"),
  version: z.string(),
  uptime_sec: z.number().int().nonnegative(),
  instance_id: z.string().meta({ description: "This instance's id: flows report where they run with it (`runtime.instance_id`)." }),
});

export type Health = z.infer<typeof healthSchema>;

/** Liveness: the process is up. Reads nothing but memory, so it answers while the database or Redis is down (SPEC §17). */
export function health(app: Pick<AppServices, "config" | "startedAt" | "flowRuntime">): Health {
  return {
    status: "ok",
    version: app.config.version,
    uptime_sec: Math.floor((Date.now() - app.startedAt.getTime()) / 1000),
    instance_id: app.flowRuntime.instanceId,
  };
}
