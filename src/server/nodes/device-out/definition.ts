import { z } from "zod";
import { defineNode } from "../types";

export const deviceOutConfig = z.object({
  topic: z.string().min(1).max(256).default("commands"),
  /** The device key id to send to; null: every connected device of the organization. */
  device_key_id: z.string().regex(/^key_[\w-]{10,64}$/).nullable().default(null),
});

export const deviceOutNode = defineNode({
  type: "device-out",
  version: 1,
  category: "output",
  name: "Device out",
  description: "Sends msg.payload to connected devices as a `device.message` frame on the topic.",
  inputs: 1,
  outputs: 0,
  configSchema: deviceOutConfig,
});
