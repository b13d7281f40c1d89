import { z } from "zod";
import { defineNode, type NodeRedProps } from "../types";
import { FLOWS_INSTANCE, isValidInstance, isValidLinkTopic } from "./link-topics";

/**
 * FlowFuse's project link nodes (`@flowfuse/nr-project-nodes` 0.7: `project link in`, `project
 * link out`, `project link call`), which FlowFuse's blueprints use to pass messages between
 * Node-RED instances of a team. Here they pass messages between flows (and MQTT devices) of one
 * organization, over its built-in broker, wherever in the cluster the flows run.
 */

const topic = z
  .string()
  .trim()
  .min(1, "a topic is required")
  .max(256)
  .refine(isValidLinkTopic, "must not contain + # $ or control characters, start or end with /, or have an empty level")
  .default("messages")
  .meta({ title: "Topic", description: "Like an MQTT topic, without wildcards, e.g. plant/line1/measurements" });

const instance = (title: string, description: string, fallback: string) =>
  z.string().trim().refine(isValidInstance, "an instance is `flows` (this organization's flows), `all`, or `dev:` and a device's id").default(fallback).meta({ title, description });

const timeoutSeconds = z
  .number()
  .min(0)
  .max(86_400)
  .default(30)
  .meta({ title: "Timeout (seconds)", description: "How long to wait for the answer before reporting the error \"timeout\" (to catch nodes)" });

/** An imported instance that is not ours (a FlowFuse instance's UUID): this organization's flows. */
const instanceFrom = (value: unknown, fallback: string) => {
  const v = typeof value === "string" ? value : "";
  if (v === "all" || v === FLOWS_INSTANCE || v.startsWith("dev:")) return v;
  return fallback;
};

const foreignInstanceNote = (p: NodeRedProps, applies: boolean, role: string) => {
  const v = typeof p.project === "string" ? p.project : "";
  if (!applies || v === "" || v === "all" || v === FLOWS_INSTANCE || v.startsWith("dev:")) return [];
  return [`its ${role}, FlowFuse instance ${v}, is this organization's flows here (instance "${FLOWS_INSTANCE}")`];
};

const broadcastOf = (p: NodeRedProps) => p.broadcast === true || p.broadcast === "true";
/** FlowFuse's `parseFloat(n.timeout || '30')`: 0, "" and a missing timeout are 30 s. */
const timeoutOf = (p: NodeRedProps) => {
  const t = parseFloat(String(p.timeout || "30"));
  return Number.isNaN(t) ? 30 : Math.min(Math.max(t, 0), 86_400);
};
/** A missing topic stays missing: the schema refuses it (FlowFuse's node fails with "Invalid topic"). */
const topicOf = (p: NodeRedProps) => (typeof p.topic === "string" ? p.topic : "");

const differences = `### Differences from Node-RED

From FlowFuse's project nodes, which run only on FlowFuse:

- The instances are the organization's: its flows, wherever in the cluster they run, are one instance, \`flows\`. An imported FlowFuse instance id becomes \`flows\`, and the import report says so.
- Messages travel over the organization's built-in MQTT broker (SPEC §20), on FlowFuse's topics with the organization's id as the team: \`ff/v1/{organization id}/p/{instance}/in|out|res/{topic}\`. An MQTT device of the organization can publish and subscribe there. No other organization's flows or devices ever see them.
- The broker's limits apply: a message larger than the broker's message limit, or sent faster than the organization's publish rate, fails with an error a catch node can handle.
- Functions in a message are left out (FlowFuse sends their source and compiles it on arrival).
- As in FlowFuse, a project in wired (through other nodes) to a project out on its own topic is a loop the hop limit cannot see (each pass is a new message): it runs at the organization's publish rate, which its devices share, until it is broken.`;

export const projectLinkInConfig = z.object({
  broadcast: z
    .boolean()
    .default(false)
    .meta({ title: "Listen for broadcasts", description: "On: messages project link out nodes broadcast; off: messages sent to this instance" }),
  project: instance("Source", "With broadcasts: `all` (any sender) or the instance whose broadcasts to take (`flows`: this organization's flows)", "all"),
  topic,
});

export const projectLinkInNode = defineNode({
  type: "project-link-in",
  version: 1,
  category: "network",
  name: "Project in",
  description: "Receives the messages project link out and project link call nodes send on its topic (FlowFuse's project nodes).",
  help: `Receives messages from project link out and project link call nodes of the organization's flows, or of its devices over MQTT: FlowFuse's *project in* node.

### Inputs

None: messages arrive on the node's topic.

### Outputs

- The whole message as the sender sent it, and:
- \`projectLink\` (object): where it came from: \`instanceId\` (and \`projectId\`, the same) the sending instance (\`flows\` for the organization's flows), \`topic\` the topic it arrived on, \`deviceId\` / \`deviceName\` / \`deviceType\` when a device says so, and \`callStack\` when a project link call sent it: leave that as it is, a project link out in "return" mode needs it to answer.

### Details

The node either listens for messages sent directly to this instance (the organization's flows), or, with **Listen for broadcasts**, for messages project link out nodes broadcast: from any instance (**Source** \`all\`) or from one.

The topic works like an MQTT topic, without wildcards. Every project in node on the topic gets its own copy of each message, whichever flow it is in and wherever that flow runs. A message that arrives while the flow is busy is taken all the same (the broker does not hold it).

Each message starts an execution of its own.

${differences}`,
  inputs: 0,
  outputs: 1,
  configSchema: projectLinkInConfig,
  nodeRed: {
    type: "project link in",
    toNodeRed: (c) => ({ project: c.project, broadcast: c.broadcast, topic: c.topic }),
    fromNodeRed: (p) => ({ broadcast: broadcastOf(p), project: instanceFrom(p.project, broadcastOf(p) ? FLOWS_INSTANCE : "all"), topic: topicOf(p) }),
    importNotes: (p) => foreignInstanceNote(p, broadcastOf(p), "source"),
  },
});

export const projectLinkOutConfig = z.object({
  mode: z
    .enum(["link", "return"])
    .default("link")
    .meta({ title: "Mode", description: "Send (or broadcast) on the topic, or return the message to the project link call that sent it", enumLabels: { link: "Send on the topic", return: "Return to the calling node" } }),
  broadcast: z.boolean().default(false).meta({ title: "Broadcast", description: "On: to every project in node listening for broadcasts on the topic; off: to the target instance" }),
  project: instance("Target", "Without broadcast: the instance to send to (`flows`: this organization's flows)", FLOWS_INSTANCE),
  topic: z.string().trim().max(256).default("messages").meta({ title: "Topic", description: "Like an MQTT topic, without wildcards (not used in return mode)" }),
});

export const projectLinkOutNode = defineNode({
  type: "project-link-out",
  version: 1,
  category: "network",
  name: "Project out",
  description: "Sends the message to project in nodes on its topic, broadcasts it, or returns it to a project link call (FlowFuse's project nodes).",
  help: `Sends messages to project in nodes of the organization's flows, or of its devices over MQTT: FlowFuse's *project out* node.

### Inputs

- The whole message is sent.
- \`projectLink.callStack\` (array): in "return" mode, where to return the message; a project in node that a project link call reached sets it.

### Outputs

None.

### Details

Three ways to send:

- **Send on the topic** to one instance (**Target**, \`flows\` for this organization's flows): its project in nodes that listen for messages sent to them receive it;
- **Broadcast** on the topic: every project in node listening for broadcasts (from any source, or from this one) receives it;
- **Return to the calling node**: the message goes back to the project link call that sent it, which sends it on. Without a call stack the node warns \`Project Link Source missing\`.

A message that cannot be sent (larger than the broker allows, or past the organization's publish rate) is an error a catch node can handle. The node's status shows \`connected\` while the broker takes messages.

${differences}`,
  inputs: 1,
  outputs: 0,
  configSchema: projectLinkOutConfig.superRefine((c, ctx) => {
    if (c.mode === "link" && !isValidLinkTopic(c.topic)) ctx.addIssue({ code: "custom", path: ["topic"], message: "a topic is required: no + # $ or control characters, no empty level" });
    if (c.mode === "link" && !c.broadcast && c.project === "all") ctx.addIssue({ code: "custom", path: ["project"], message: "choose one instance to send to, or broadcast" });
  }),
  nodeRed: {
    type: "project link out",
    toNodeRed: (c) => ({ mode: c.mode, broadcast: c.broadcast, project: c.project, topic: c.topic }),
    fromNodeRed: (p) => ({
      mode: p.mode === "return" ? "return" : "link",
      broadcast: broadcastOf(p),
      project: instanceFrom(p.project, FLOWS_INSTANCE),
      topic: topicOf(p),
    }),
    importNotes: (p) => foreignInstanceNote(p, p.mode !== "return" && !broadcastOf(p), "target"),
  },
});

export const projectLinkCallConfig = z.object({
  project: instance("Target", "The instance to call (`flows`: this organization's flows)", FLOWS_INSTANCE).refine((v) => v !== "all", "choose one instance to call"),
  topic,
  timeout_seconds: timeoutSeconds,
});

export const projectLinkCallNode = defineNode({
  type: "project-link-call",
  version: 1,
  category: "network",
  name: "Project call",
  description: "Sends the message to project in nodes on its topic and sends on the answer a project link out returns (FlowFuse's project nodes).",
  help: `Sends a message to project in nodes of another flow (or a device over MQTT) and waits for the answer: FlowFuse's *project call* node.

### Inputs

The whole message is sent.

### Outputs

The message a project link out node in "return" mode sent back, with \`projectLink\` saying where it came from.

### Details

The called flow starts with a project in node on the same topic (listening for messages sent to this instance) and ends with a project link out in "return" mode. If no answer comes within the timeout (30 seconds by default), the node reports the error \`timeout\`, with the message as it came in, to catch nodes.

A message of an http in node keeps its request and response here: the called flow sees \`msg.req\` and \`msg.res\` as the strings \`REQ:<event id>\` and \`RES:<event id>\` (as FlowFuse sends them), and the answer gets its own back, so an http response node after this node answers the request.

${differences}`,
  inputs: 1,
  outputs: 1,
  configSchema: projectLinkCallConfig,
  nodeRed: {
    type: "project link call",
    toNodeRed: (c) => ({ project: c.project, topic: c.topic, timeout: String(c.timeout_seconds) }),
    fromNodeRed: (p) => ({ project: instanceFrom(p.project, FLOWS_INSTANCE), topic: topicOf(p), timeout_seconds: timeoutOf(p) }),
    importNotes: (p) => [
      ...foreignInstanceNote(p, true, "target"),
      ...(parseFloat(String(p.timeout || "30")) > 86_400 ? [`its timeout of ${p.timeout} s is 86400 s here (the longest)`] : []),
    ],
  },
});
