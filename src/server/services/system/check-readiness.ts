import { z } from "zod";
import type { AppServices } from "../../app-services";

const checkSchema = z.object({
  status: z.enum(["ok", "unavailable"]),
  kind: z.string(),
  latency_ms: z.number().nonnegative(),
  error: z.string().optional(),
});

export const readinessSchema = z.object({
  status: z.enum(["ready", "unavailable"]),
  checks: z.object({ database: checkSchema, store: checkSchema }),
});

export type Readiness = z.infer<typeof readinessSchema>;

async function timed(kind: string, probe: () => Promise<void>): Promise<z.infer<typeof checkSchema>> {
  const start = performance.now();
  try {
    await probe();
    return { status: "ok", kind, latency_ms: Math.round(performance.now() - start) };
  } catch (err) {
    return {
      status: "unavailable",
      kind,
      latency_ms: Math.round(performance.now() - start),
      error: err instanceof Error ? err.message : "unreachable",
    };
  }
}

export async function checkReadiness(app: AppServices): Promise<Readiness> {
  const [database, store] = await Promise.all([
    timed(app.db.kind, () => app.db.ping(2000)),
    timed(app.store.kind, () => app.store.ping()),
  ]);
  return { status: database.status === "ok" && store.status === "ok" ? "ready" : "unavailable", checks: { database, store } };
}
