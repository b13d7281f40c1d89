import { z } from "zod";
import { authedProcedure, router } from "../trpc";
import { onlineDeviceKeyIds } from "../../realtime/devices";

export const devicesRouter = router({
  online: authedProcedure
    .meta({ permission: "devices:read", rest: { method: "GET", path: "/devices" }, summary: "Devices connected now over /ws (by device key)", tags: ["devices"] })
    .output(z.object({ devices: z.array(z.object({ key_id: z.string(), name: z.string(), last_seen_at: z.string() })) }))
    .query(async ({ ctx }) => {
      const online = await onlineDeviceKeyIds(ctx.app.store, ctx.principal.organizationId);
      const keys = await ctx.app.db.prisma.apiKey.findMany({
        where: { id: { in: online.map((o) => o.keyId) }, organizationId: ctx.principal.organizationId, revokedAt: null },
        select: { id: true, name: true },
      });
      const names = new Map(keys.map((k) => [k.id, k.name]));
      return { devices: online.filter((o) => names.has(o.keyId)).map((o) => ({ key_id: o.keyId, name: names.get(o.keyId)!, last_seen_at: o.lastSeenAt })) };
    }),
});
