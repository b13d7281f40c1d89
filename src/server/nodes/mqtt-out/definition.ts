import { z } from "zod";
import { defineNode } from "../types";
import { configNodeRef, configRefFromNodeRed } from "../../../shared/config-nodes";

const HELP = `Connects to an MQTT broker and publishes messages.

### Inputs

- \`payload\` (string | object | buffer): what to publish. An object is sent as JSON, a buffer as it
  is. Without \`payload\` nothing is published; to publish an empty message set it to \`""\`.
- \`topic\` (string, optional): the topic, when the node has none.
- \`qos\` (number, optional): 0, 1 or 2, when the node has none. Default 0.
- \`retain\` (boolean, optional): keep the message on the broker, when the node says nothing. Default false.
- MQTT 5: \`responseTopic\`, \`correlationData\` (buffer), \`contentType\`, \`userProperties\` (object),
  \`messageExpiryInterval\` (seconds), \`topicAlias\` (number).
- \`action\` (string): \`"connect"\` or \`"disconnect"\` controls the shared connection instead of
  publishing; \`connect\` may carry \`broker\` overrides (see **MQTT in**).

### Outputs

None: the messages go to the broker.

### Details

The node's topic, QoS and retain, when set, win over the message's; a topic that is exactly \`\${NAME}\` (or \`$(NAME)\`) is that variable's value when the flow starts, as in Node-RED. To clear a retained topic, publish
an empty message to it with retain set. With MQTT 5 the node's own response topic, correlation data,
content type, user properties (a JSON object) and expiry win over the message's.

A topic alias (MQTT 5) is used only when the broker allows that many; the first message with an alias
carries the topic, the next ones on the same topic only the alias.

The message is done once the broker took it (QoS 1 and 2: acknowledged), so a **Complete** or
**Catch** node sees the outcome. Several MQTT nodes share the broker's connection (see the **MQTT
broker** configuration); while it is not connected, nothing is published (as in Node-RED) and the message is done.

### Differences from Node-RED

- The broker's address passes the outbound rules (private addresses only when the operator allows them).`;

export const mqttOutConfig = z.object({
  topic: z
    .string()
    .max(65_535)
    .refine((t) => !/[+#\b\f\n\r\t\v\0]/.test(t), "must not hold + or # or control characters")
    .default("")
    .meta({ title: "Topic", description: "Empty: msg.topic" }),
  qos: z.enum(["", "0", "1", "2"]).default("").meta({ title: "QoS", description: "Empty: msg.qos (default 0)" }),
  retain: z.enum(["", "true", "false"]).default("").meta({ title: "Retain", description: "Empty: msg.retain (default false)" }),
  respTopic: z.string().max(65_535).default("").meta({ title: "Response topic", description: "MQTT 5" }),
  contentType: z.string().max(255).default("").meta({ title: "Content type", description: "MQTT 5" }),
  userProps: z.string().max(65_535).default("").meta({ title: "User properties", description: "MQTT 5: a JSON object" }),
  correl: z.string().max(65_535).default("").meta({ title: "Correlation data", description: "MQTT 5" }),
  expiry: z.string().max(12).default("").meta({ title: "Message expiry (s)", description: "MQTT 5" }),
  broker: configNodeRef("mqtt-broker", { title: "Server", description: "The broker connection" }),
});
export type MqttOutConfig = z.infer<typeof mqttOutConfig>;

const text = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");

export const mqttOutNode = defineNode({
  type: "mqtt-out",
  version: 1,
  category: "network",
  name: "MQTT out",
  description: "Publishes each message it receives to an MQTT broker.",
  help: HELP,
  inputs: 1,
  outputs: 0,
  configSchema: mqttOutConfig,
  nodeRed: {
    type: "mqtt out",
    toNodeRed: (c) => ({ topic: c.topic, qos: c.qos, retain: c.retain, respTopic: c.respTopic, contentType: c.contentType, userProps: c.userProps, correl: c.correl, expiry: c.expiry, broker: c.broker }),
    fromNodeRed: (p) => ({
      topic: text(p.topic),
      qos: ["0", "1", "2"].includes(text(p.qos)) ? text(p.qos) : "",
      // Node-RED: true or "true" forces retain, the string "false" forbids it, false or "" leaves it to msg.retain.
      retain: p.retain === true || p.retain === "true" ? "true" : p.retain === "false" ? "false" : "",
      respTopic: text(p.respTopic),
      contentType: text(p.contentType),
      userProps: typeof p.userProps === "string" ? p.userProps : p.userProps && typeof p.userProps === "object" ? JSON.stringify(p.userProps) : "",
      correl: text(p.correl),
      expiry: text(p.expiry),
      broker: configRefFromNodeRed(p.broker),
    }),
  },
});
