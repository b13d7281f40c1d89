import { z } from "zod";

export const deviceIdSchema = z.string().regex(/^dev_[\w-]{10,64}$/, "must be an id starting with dev_");
const tag = z.string().trim().min(1, "must not be empty").max(64, "must be at most 64 characters");

export const deviceView = z.object({
  id: z.string(),
  key_id: z.string(),
  name: z.string(),
  kind: z.enum(["agent", "mqtt", "channel"]),
  online: z.boolean(),
  last_seen_at: z.string().nullable(),
  tags: z.array(z.string()),
  agent_version: z.string().optional(),
  node_red_version: z.string().optional(),
  node_types: z.array(z.string()).optional(),
  deployment_id: z.string().optional(),
  /** An agent's flows whose current deployment it cannot run, and why (node types it lacks, or its Node-RED's error); it goes on with what it ran. */
  refused: z.array(z.object({ flow_id: z.string(), flow_name: z.string(), deployment_id: z.string(), error: z.string() })).optional(),
});
export const listDevicesOutput = z.object({ devices: z.array(deviceView) });
export const deviceOutput = z.object({ device: deviceView });
export const deviceIdInput = z.object({ id: deviceIdSchema });
export const updateDeviceInput = z.object({
  id: deviceIdSchema,
  name: z.string().trim().min(1, "is required").max(200, "must be at most 200 characters").optional(),
  tags: z.array(tag).max(20, "at most 20 tags").optional(),
});
export type UpdateDeviceInput = z.infer<typeof updateDeviceInput>;

export const mqttSessionIdSchema = z.string().regex(/^mqs_[\w-]{22}$/, "must be an id starting with mqs_");
export const mqttSessionView = z.object({
  id: z.string(),
  /** The client id its client connects with. */
  client_id: z.string(),
  connected: z.boolean(),
  subscriptions: z.array(z.object({ topic: z.string(), qos: z.number().int() })),
  /** Messages queued for it (sent or not, not yet acknowledged), and their payload bytes. */
  queued_messages: z.number().int(),
  queued_bytes: z.number().int(),
  /** When it ends unless its client returns first; null while connected, or when it has no expiry. */
  expires_at: z.string().nullable(),
});
export type MqttSessionView = z.infer<typeof mqttSessionView>;
export const listMqttSessionsOutput = z.object({
  sessions: z.array(mqttSessionView),
  /** All of the organization's sessions together. */
  queued_bytes: z.number().int(),
  limits: z.object({ sessions: z.number().int(), queued_bytes: z.number().int(), queued_messages_per_session: z.number().int() }),
});
export const mqttSessionIdInput = z.object({ id: mqttSessionIdSchema });
