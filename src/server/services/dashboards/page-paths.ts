import type { Prisma } from "../../../generated/prisma/client";
import { AppError } from "../../errors";

/**
 * Dashboard page paths are unique in an organization (SPEC §21): a ui-page written with a path
 * another ui-page of the organization has is refused (409 DASHBOARD_PATH_TAKEN, naming it). Imports
 * give a clashing page a suffix instead (flows/dashboard1.ts, uniquePagePaths).
 */
export async function assertPagePathFree(tx: Prisma.TransactionClient, organizationId: string, id: string, config: Record<string, unknown>): Promise<void> {
  const path = config.path;
  if (typeof path !== "string") return;
  const pages = await tx.configNode.findMany({ where: { organizationId, type: "ui-page", NOT: { id } }, select: { id: true, name: true, config: true } });
  const other = pages.find((p) => (p.config as Record<string, unknown>).path === path);
  if (other) {
    throw new AppError("DASHBOARD_PATH_TAKEN", `the dashboard page ${other.name || other.id} (${other.id}) has the path ${path} already: page paths are unique in the organization`, {
      details: [{ path: "config.path", message: "taken by another page" }],
    });
  }
}
