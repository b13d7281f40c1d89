import { z } from "zod";
import { defineNode } from "../types";
import { QOS_CHOICES, RETAIN_HANDLING_CHOICES } from "../mqtt-choices";
import { configNodeRef, configRefFromNodeRed } from "../../../shared/config-nodes";

const HELP = `Connects to an MQTT broker and subscribes to messages from the specified topic.

### Inputs

Only with **Dynamic subscription** on (Node-RED's \`inputs: 1\`): the node has an input port then,
and none otherwise (turning it off removes the wires into it), as in Node-RED.

- \`action\` (string): \`"subscribe"\`, \`"unsubscribe"\`, \`"getSubscriptions"\`, \`"connect"\` or \`"disconnect"\`.
- \`topic\` (string | object | array): for subscribe and unsubscribe, a topic filter, an object
  \`{topic, qos, nl, rap, rh, datatype}\`, or an array of either. \`unsubscribe\` with \`topic: true\`
  ends every subscription of the node.
- \`broker\` (object): for \`connect\`, settings that override the broker configuration's: \`broker\`,
  \`port\`, \`url\` (a complete connection URL), \`username\`, \`password\`, \`clientid\` … When the broker
  is already connected this is an error, unless it has \`force: true\`: then it disconnects, applies the
  settings and connects again.

After subscribe and unsubscribe the message (see the **Complete** node) carries \`subscriptions\`;
\`getSubscriptions\` sends a message with \`topic: "subscriptions"\` and the list as its payload.

### Outputs

- \`payload\` (string | object | buffer): a string unless detected as binary (see *Output*).
- \`topic\` (string): the MQTT topic, \`/\` separating its levels.
- \`qos\` (number): 0 fire and forget, 1 at least once, 2 once and once only.
- \`retain\` (boolean): true when the message was retained and may be old.
- \`dup\` (boolean): \`true\` when the broker sent the message again (MQTT's DUP flag: it may have
  been delivered before, e.g. to an instance that stopped before acknowledging it); absent otherwise.
- MQTT 5: \`responseTopic\`, \`correlationData\` (buffer), \`contentType\`, \`userProperties\`,
  \`messageExpiryInterval\`, when the message has them.

### Details

The topic may hold MQTT's wildcards: \`+\` for one level, \`#\` for every level below. A topic that is exactly \`\${NAME}\` (or \`$(NAME)\`) is that variable's value when the flow starts, as in Node-RED: a subflow's env property, the flow's or the organization's variable (a secret is not).

**Output**: *auto-detect* (a parsed JSON object, a string, or a buffer for binary data), *a UTF-8
string*, *a parsed JSON object* (an error for anything else), *a Base64 string*, or *a buffer*. With
MQTT 5, a message's content type decides first (\`application/json\` is parsed, \`text/plain\` is a string).
Node-RED's legacy *auto* (string or buffer, never parsed) is kept for imported nodes.

MQTT 5 subscription options: **No local** (not your own publishes), **Retain as published**,
**Retain handling** (0: send retained messages, 1: only for a new subscription, 2: never).

Several MQTT nodes (in or out) share the broker's connection (see the **MQTT broker**
configuration). The node shows *connected*, *connecting* or *disconnected*.

**Several instances and backpressure.** Only the instance that runs the flow subscribes for it: each message enters the flow once. QoS 1 and
2 messages are acknowledged to the broker once the flow took them. While the flow is busy (too many
messages waiting) reading from the broker's connection pauses until it has caught up, and with it
every flow sharing that broker configuration on the instance: give a flow that must not wait a
broker configuration of its own. With a clean session, messages published while no instance runs the
flow (a failover) are not kept for it (MQTT promises nothing then). With a persistent session
(**Clean session** off in the broker configuration) every flow using that broker runs on one
instance, and after a failover the next one takes the session over: QoS 1 and 2 messages published
meanwhile arrive, at least once; those sent again are marked \`dup\`.

### Differences from Node-RED

- The node always has an input in the editor; it is only used with dynamic subscription (Node-RED
  shows it only then). A message reaching a static node is taken as an action, as in Node-RED.
- \`msg._topic\` (Node-RED sets it for a broker on localhost) is not set.
- \`msg.dup\` is set on a redelivered message (Node-RED's message never has it).`;

export const mqttInConfig = z.object({
  topic: z.string().max(65_535).default("").meta({ title: "Topic", description: "+ matches one level, # every level below" }),
  qos: z.number().int().min(0).max(2).default(2).meta({ title: "QoS", ...QOS_CHOICES }),
  datatype: z.enum(["auto-detect", "auto", "utf8", "json", "base64", "buffer"]).default("auto-detect").meta({ title: "Output", description: "auto-detect: JSON parsed, text as a string, binary as a buffer" }),
  broker: configNodeRef("mqtt-broker", { title: "Server", description: "The broker connection" }),
  nl: z.boolean().default(false).meta({ title: "No local", description: "MQTT 5: not the messages this connection publishes" }),
  rap: z.boolean().default(true).meta({ title: "Retain as published", description: "MQTT 5" }),
  rh: z.number().int().min(0).max(2).default(0).meta({ title: "Retain handling", description: "MQTT 5: whether the broker sends its retained messages on subscribing", ...RETAIN_HANDLING_CHOICES }),
  inputs: z.number().int().min(0).max(1).default(0).meta({ title: "Action", enum: [0, 1], enumLabels: { 0: "Subscribe to a single topic", 1: "Dynamic subscription (action messages)" } }),
});
export type MqttInConfig = z.infer<typeof mqttInConfig>;

const int = (v: unknown, fallback: number) => {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
  return Number.isInteger(n) ? n : fallback;
};

export const mqttInNode = defineNode({
  type: "mqtt-in",
  version: 1,
  category: "network",
  name: "MQTT in",
  description: "Subscribes to a topic of an MQTT broker and sends each message it receives.",
  help: HELP,
  // An input port only with dynamic subscription, as in Node-RED.
  inputs: { value_of: "inputs" },
  outputs: 1,
  configSchema: mqttInConfig,
  nodeRed: {
    type: "mqtt in",
    toNodeRed: (c) => ({ topic: c.topic, qos: String(c.qos), datatype: c.datatype, broker: c.broker, nl: c.nl, rap: c.rap, rh: c.rh, inputs: c.inputs }),
    fromNodeRed: (p) => {
      const qos = int(p.qos, 2);
      const rh = int(p.rh, 0);
      return {
        topic: typeof p.topic === "string" ? p.topic : "",
        qos: qos >= 0 && qos <= 2 ? qos : 2,
        // Node-RED's runtime reads a missing datatype as utf8.
        datatype: ["auto-detect", "auto", "utf8", "json", "base64", "buffer"].includes(String(p.datatype)) ? p.datatype : "utf8",
        broker: configRefFromNodeRed(p.broker),
        nl: p.nl === true || p.nl === "true",
        rap: !(p.rap === false || p.rap === "false"),
        rh: rh >= 0 && rh <= 2 ? rh : 0,
        inputs: int(p.inputs, 0) === 1 ? 1 : 0,
      };
    },
  },
});
