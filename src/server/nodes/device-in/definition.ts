import { z } from "zod";
import { defineNode } from "../types";

export const deviceInConfig = z.object({
  /** Messages a device publishes on this topic start a message ("#" for every topic). */
  topic: z.string().min(1).max(256).default("#").meta({ title: "Topic", description: "Topic filter: + matches one level, # everything below (# alone: every topic)" }),
});

export const deviceInNode = defineNode({
  type: "device-in",
  version: 1,
  category: "input",
  name: "Device in",
  description: "Starts a message for each `device.publish` frame a connected device sends on the topic.",
  help: `Starts a message for each message a connected device publishes (a \`device.publish\` frame over the device WebSocket) on a matching topic.

### Inputs

None: devices start the messages.

### Outputs

- \`payload\`: what the device published.
- \`topic\` (string): the topic it published on.
- \`device_key_id\` (string): the device key that published it (answer it with a **Device out** node).

### Details

The topic filter works as MQTT's: \`sensors/+/temperature\` matches one level in place of \`+\`, \`sensors/#\` everything below \`sensors\`. Only devices of your organization reach your flows.

While the flow is busy, a device's message is refused: the device is told to send it again later (\`rejected\`, with \`retry_after\` seconds).`,
  inputs: 0,
  outputs: 1,
  configSchema: deviceInConfig,
});
