import { z } from "zod";
import { defineNode } from "../types";

export const deviceInConfig = z.object({
  /** Messages a device publishes on this topic start a message ("#" for every topic). */
  topic: z.string().min(1).max(256).default("#"),
});

export const deviceInNode = defineNode({
  type: "device-in",
  version: 1,
  category: "input",
  name: "Device in",
  description: "Starts a message for each `device.publish` frame a connected device sends on the topic.",
  inputs: 0,
  outputs: 1,
  configSchema: deviceInConfig,
});
