import { authedProcedure, requestMeta, router } from "../trpc";
import * as s from "../../services/devices/device.schemas";
import { getDevice, listDevices, updateDevice } from "../../services/devices/devices";

const tags = ["devices"];

export const devicesRouter = router({
  list: authedProcedure
    .meta({
      permission: "devices:read",
      rest: { method: "GET", path: "/devices" },
      summary: "Every device of the organization: agents, device-channel sockets, MQTT clients (SPEC §22)",
      description:
        "One device per `device_` key that connected (or was created): `kind` `agent` (the flowplane agent, with its versions, node types and the deployment it runs), `channel` (the device channel of /ws), `mqtt` (a client of the built-in broker). `online`: connected now, on any instance.",
      tags,
    })
    .output(s.listDevicesOutput)
    .query(({ ctx }) => listDevices(ctx.services, ctx.principal)),

  get: authedProcedure
    .meta({ permission: "devices:read", rest: { method: "GET", path: "/devices/{id}" }, summary: "One device", tags })
    .input(s.deviceIdInput)
    .output(s.deviceOutput)
    .query(({ ctx, input }) => getDevice(ctx.services, ctx.principal, input.id)),

  update: authedProcedure
    .meta({
      permission: "devices:write",
      rest: { method: "PUT", path: "/devices/{id}" },
      summary: "Rename a device or set its tags (admin+)",
      description: "`tags` replaces the device's tags; a flow whose target is `{device_tag}` runs on every device carrying the tag (deploy it again after a change).",
      tags,
    })
    .input(s.updateDeviceInput)
    .output(s.deviceOutput)
    .mutation(({ ctx, input }) => updateDevice(ctx.services, ctx.principal, input, requestMeta(ctx))),
});
