import { z } from "zod";
import { authedProcedure, requestMeta, router } from "../trpc";
import * as s from "../../services/devices/device.schemas";
import { getDevice, listDevices, updateDevice } from "../../services/devices/devices";
import { endMqttSession, listMqttSessions } from "../../services/devices/mqtt-sessions";

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

  mqttSessions: authedProcedure
    .meta({
      permission: "devices:read",
      rest: { method: "GET", path: "/mqtt/sessions" },
      summary: "The built-in MQTT broker's persistent sessions of the organization (SPEC §20)",
      description:
        "Each session the broker keeps for a client while it is away (MQTT 3.1.1 clean session false; MQTT 5 a session expiry interval), or that a connected client will leave behind: its subscriptions, the QoS 1/2 messages queued for it and their payload bytes, and when it ends unless its client returns (`expires_at`, null without an expiry). `queued_bytes` and `limits`: the organization's bounds (MQTT_MAX_SESSIONS_PER_ORGANIZATION, MQTT_MAX_QUEUED_BYTES_PER_ORGANIZATION, MQTT_MAX_QUEUED_PER_SESSION).",
      tags,
    })
    .output(s.listMqttSessionsOutput)
    .query(({ ctx }) => listMqttSessions(ctx.services, ctx.principal)),

  endMqttSession: authedProcedure
    .meta({
      permission: "devices:write",
      rest: { method: "DELETE", path: "/mqtt/sessions/{id}", status: 204 },
      summary: "End a persistent MQTT session (admin+)",
      description:
        "Its subscriptions and queued messages are dropped, and the organization's queued bytes given back. A connected client is disconnected first (MQTT 5: DISCONNECT 0x98, administrative action; its will is published); when it connects again it starts a new session (CONNACK session present 0) and subscribes again.",
      tags,
    })
    .input(s.mqttSessionIdInput)
    .output(z.void())
    .mutation(({ ctx, input }) => endMqttSession(ctx.services, ctx.principal, input.id, requestMeta(ctx))),
});
