import { z } from "zod";
import { defineNode } from "../types";

export const deviceOutConfig = z.object({
  topic: z.string().min(1).max(256).default("commands").meta({ title: "Topic", description: "The topic the devices receive the message on" }),
  /** The device key id to send to; null: every connected device of the organization. */
  device_key_id: z.string().regex(/^key_[\w-]{10,64}$/).nullable().default(null).meta({ title: "Device key", description: "Send to the devices of this key only; empty: every connected device of the organization" }),
});

export const deviceOutNode = defineNode({
  type: "device-out",
  version: 1,
  category: "output",
  name: "Device out",
  description: "Sends msg.payload to connected devices as a `device.message` frame on the topic.",
  help: `Sends \`msg.payload\` to connected devices, as a \`device.message\` frame on the node's topic.

### Inputs

- \`payload\`: what the devices receive.

### Outputs

None: the node ends a flow.

### Details

With a *Device key*, only the devices connected with that key receive the message; without one, every connected device of your organization does. Devices connected to any instance of the platform receive it. A device that is not connected misses it: nothing is queued.`,
  inputs: 1,
  outputs: 0,
  configSchema: deviceOutConfig,
});
