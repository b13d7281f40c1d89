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
