import { publicProcedure, router } from "../trpc";
import { getSettings, settingsSchema } from "../../services/system/get-settings";
import { checkReadiness, readinessSchema } from "../../services/system/check-readiness";
import { health, healthSchema } from "../../services/system/health";
import { AppError } from "../../errors";

export const systemRouter = router({
  health: publicProcedure
    .meta({ rest: { method: "GET", path: "/health" }, summary: "Liveness: the process is up", tags: ["system"] })
    .output(healthSchema)
    // The custom server answers GET /api/v1/health without this procedure (http/health.ts), with the same service.
    .query(({ ctx }) => health(ctx.services)),

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
