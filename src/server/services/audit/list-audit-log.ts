import { z } from "zod";
import type { AppServices } from "../../app-services";
import { decodeKeysetCursor, encodeKeysetCursor } from "../cursor";
import type { Principal } from "../../auth/principal";

export const auditEntryView = z.object({
  id: z.string(),
  actor_id: z.string().nullable(),
  action: z.string(),
  target_type: z.string().nullable(),
  target_id: z.string().nullable(),
  ip_address: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  created_at: z.string(),
});
export const listAuditLogInput = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional(),
  action: z.string().max(100).optional(),
});
export const listAuditLogOutput = z.object({ entries: z.array(auditEntryView), next_cursor: z.string().nullable() });

/** Newest first, keyset-paginated on (created_at, id) so pages stay stable while entries arrive. */
export async function listAuditLog(app: AppServices, principal: Principal, input: z.infer<typeof listAuditLogInput>) {
  const after = input.cursor ? decodeKeysetCursor(input.cursor) : null;
  const rows = await app.db.prisma.auditEntry.findMany({
    where: {
      organizationId: principal.organizationId,
      ...(input.action ? { action: input.action } : {}),
      ...(after ? { OR: [{ createdAt: { lt: after.at } }, { createdAt: after.at, id: { lt: after.id } }] } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
  });
  const page = rows.slice(0, input.limit);
  const last = page[page.length - 1];
  return {
    entries: page.map((e) => ({
      id: e.id,
      actor_id: e.actorId,
      action: e.action,
      target_type: e.targetType,
      target_id: e.targetId,
      ip_address: e.ipAddress,
      metadata: (e.metadata as Record<string, unknown> | null) ?? null,
      created_at: e.createdAt.toISOString(),
    })),
    next_cursor: rows.length > input.limit && last ? encodeKeysetCursor(last.createdAt, last.id) : null,
  };
}
