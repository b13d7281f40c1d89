import { z } from "zod";
import { authedProcedure, router } from "../trpc";
import { listOnlineDevices } from "../../services/devices/list-online-devices";

export const devicesRouter = router({
  online: authedProcedure
    .meta({ permission: "devices:read", rest: { method: "GET", path: "/devices" }, summary: "Devices connected now over /ws (by device key)", tags: ["devices"] })
    .output(z.object({ devices: z.array(z.object({ key_id: z.string(), name: z.string(), last_seen_at: z.string() })) }))
    .query(async ({ ctx }) => ({ devices: await listOnlineDevices(ctx.services, ctx.principal.organizationId) })),
});
