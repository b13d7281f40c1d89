import type { AppServices } from "../../app-services";
import { onlineDeviceKeyIds } from "../../realtime/devices";

export interface OnlineDevice {
  key_id: string;
  name: string;
  last_seen_at: string;
}

/** Device keys of the organization connected now over /ws; revoked keys are left out. */
export async function listOnlineDevices(app: AppServices, organizationId: string): Promise<OnlineDevice[]> {
  const online = await onlineDeviceKeyIds(app.store, organizationId);
  if (online.length === 0) return [];
  const keys = await app.db.prisma.apiKey.findMany({
    where: { id: { in: online.map((o) => o.keyId) }, organizationId, revokedAt: null },
    select: { id: true, name: true },
  });
  const names = new Map(keys.map((k) => [k.id, k.name]));
  return online
    .filter((o) => names.has(o.keyId))
    .map((o) => ({ key_id: o.keyId, name: names.get(o.keyId)!, last_seen_at: o.lastSeenAt }));
}
