import { describe, expect, it } from "vitest";
import type { AppServices } from "../../app-services";
import { checkReadiness, CONTEXT_STALL_MS } from "./check-readiness";

describe("readiness", () => {
  it("GET /ready is unavailable once context writes have failed for CONTEXT_STALL_MS", async () => {
    let since: number | null = null;
    const app = {
      db: { kind: "embedded", ping: async () => undefined },
      store: { kind: "memory", ping: async () => undefined },
      context: { journal: { stalledSince: () => since, backlog: () => 7 } },
    } as unknown as AppServices;
    expect((await checkReadiness(app)).status).toBe("ready");
    since = Date.now() - 1000;
    expect((await checkReadiness(app)).status).toBe("ready");
    since = Date.now() - CONTEXT_STALL_MS - 1;
    const stalled = await checkReadiness(app);
    expect(stalled.status).toBe("unavailable");
    expect(stalled.checks.context).toMatchObject({ status: "unavailable", kind: "journal", error: expect.stringContaining("(7 waiting)") });
  });
});
