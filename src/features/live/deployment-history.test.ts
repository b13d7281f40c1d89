import { describe, expect, it } from "vitest";
import { describeDeployments, type DeploymentLike } from "./deployment-history";

const d = (id: string, revision: number, minute: number, rolledBackFrom: string | null = null): DeploymentLike => ({
  id,
  revision,
  deployed_at: `2026-12-05T22:${String(minute).padStart(2, "0")}:00.000Z`,
  rolled_back_from: rolledBackFrom,
});

describe("describeDeployments", () => {
  it("marks only the newest as current and never offers Roll back on it", () => {
    const info = describeDeployments([d("c", 1, 3), d("b", 1, 2), d("a", 1, 1)], true);
    expect(info.map((i) => i.current)).toEqual([true, false, false]);
    expect(info.map((i) => i.canRollBack)).toEqual([false, true, true]);
  });

  it("offers Roll back to nobody who may not deploy", () => {
    expect(describeDeployments([d("b", 2, 2), d("a", 1, 1)], false).map((i) => i.canRollBack)).toEqual([false, false]);
  });

  it("tells deployments of the same revision apart: redeploys and rollbacks", () => {
    // a: revision 1; b: revision 2; c: rollback to a; e: the same revision again.
    const list = [d("e", 1, 4), d("c", 1, 3, "a"), d("b", 2, 2), d("a", 1, 1)];
    const info = describeDeployments(list, true);
    expect(info.map((i) => i.redeploy)).toEqual([true, false, false, false]);
    expect(info[1]!.rolledBackTo?.id).toBe("a");
  });

  it("a rollback whose target is beyond this page names no target", () => {
    expect(describeDeployments([d("c", 1, 3, "gone")], true)[0]!.rolledBackTo).toBeNull();
  });

  it("is empty for a flow never deployed", () => {
    expect(describeDeployments([], true)).toEqual([]);
  });
});
