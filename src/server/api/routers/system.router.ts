import { z } from "zod";
import { publicProcedure, router } from "../trpc";
import { getSettings, settingsSchema } from "../../services/system/get-settings";
import { checkReadiness, readinessSchema } from "../../services/system/check-readiness";
import { AppError } from "../../errors";

const healthSchema = z.object({
  status: z.literal("ok"),
  version: z.string(),
  uptime_sec: z.number().int().nonnegative(),
  instance_id: z.string().meta({ description: "This instance's id: flows report where they run with it (`runtime.instance_id`)." }),
});

export const systemRouter = router({
  health: publicProcedure
    .meta({ rest: { method: "GET", path: "/health" }, summary: "Liveness: the process is up", tags: ["system"] })
    .output(healthSchema)
    .query(({ ctx }) => ({
      status: "ok" as const,
      version: ctx.services.config.version,
      uptime_sec: Math.floor((Date.now() - ctx.services.startedAt.getTime()) / 1000),
      instance_id: ctx.services.flowRuntime.instanceId,
    })),

  ready: publicProcedure
    .meta({
      rest: { method: "GET", path: "/ready" },
      summary: "Readiness: the database and the session store answer, and context writes are being stored",
      description:
        "200 when both answer within 2 s and the context journal drains (its writes have not been failing for 10 s); 503 `UNAVAILABLE` with the failing check in `details` otherwise.",
      tags: ["system"],
    })
    .output(readinessSchema)
    .query(async ({ ctx }) => {
      const readiness = await checkReadiness(ctx.services);
      if (readiness.status !== "ready") {
        const failing = Object.entries(readiness.checks).filter(([, c]) => c.status !== "ok");
        throw new AppError("UNAVAILABLE", `not ready: ${failing.map(([name]) => name).join(", ")} ${failing.length === 1 && failing[0]![0] === "context" ? "not draining" : "unreachable"}`, {
          details: failing.map(([name, c]) => ({ path: name, message: c.error ?? "unreachable" })),
        });
      }
      return readiness;
    }),

  settings: publicProcedure
    .meta({ rest: { method: "GET", path: "/settings" }, summary: "Public system settings and policies", tags: ["system"] })
    .output(settingsSchema)
    .query(({ ctx }) => getSettings(ctx.services)),
});
