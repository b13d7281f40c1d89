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
  checks: z.object({ database: checkSchema, store: checkSchema, context: checkSchema }),
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

/** How long context writes may fail to be stored before the instance stops being ready. */
export const CONTEXT_STALL_MS = 10_000;

/**
 * The context journal drains: a journal whose flushes have failed for CONTEXT_STALL_MS holds the
 * messages of every flow that wrote context, so the instance should take no more traffic.
 */
function contextCheck(app: AppServices): z.infer<typeof checkSchema> {
  const since = app.context.journal.stalledSince();
  const stalled = since === null ? 0 : Date.now() - since;
  if (stalled < CONTEXT_STALL_MS) return { status: "ok", kind: "journal", latency_ms: 0 };
  return {
    status: "unavailable",
    kind: "journal",
    latency_ms: stalled,
    error: `context writes have not been stored for ${Math.round(stalled / 1000)} s (${app.context.journal.backlog()} waiting)`,
  };
}

export async function checkReadiness(app: AppServices): Promise<Readiness> {
  const [database, store] = await Promise.all([
    timed(app.db.kind, () => app.db.ping(2000)),
    timed(app.store.kind, () => app.store.ping()),
  ]);
  const context = contextCheck(app);
  const ready = database.status === "ok" && store.status === "ok" && context.status === "ok";
  return { status: ready ? "ready" : "unavailable", checks: { database, store, context } };
}
