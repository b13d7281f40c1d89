import type { AppServices } from "../../app-services";
import { newId } from "../../ids";

import type { AuditAction } from "../../../shared/audit-actions";

export type { AuditAction };

export interface AuditInput {
  action: AuditAction;
  organizationId?: string | null;
  actorId?: string | null;
  targetType?: string;
  targetId?: string;
  ipAddress?: string;
  metadata?: Record<string, string | number | boolean | null>;
}

/**
 * Appends an audit entry. The audit trail must never break the action it records, so a failure
 * to write is logged, not thrown.
 */
export async function recordAudit(app: AppServices, entry: AuditInput): Promise<void> {
  try {
    await app.db.prisma.auditEntry.create({
      data: {
        id: newId("aud"),
        action: entry.action,
        organizationId: entry.organizationId ?? null,
        actorId: entry.actorId ?? null,
        targetType: entry.targetType,
        targetId: entry.targetId,
        ipAddress: entry.ipAddress,
        metadata: entry.metadata,
      },
    });
  } catch (err) {
    app.logger.error({ err, action: entry.action }, "audit entry could not be written");
  }
}
