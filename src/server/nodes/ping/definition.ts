import { z } from "zod";
import { defineNode } from "../types";

/** At most this many hosts per ping (a node's list, or a message's): the runtime is shared. */
export const MAX_PING_HOSTS = 64;

/** node-red-node-ping's list: comma-separated, trimmed, empty entries left out. */
export const pingList = (text: string) =>
  text
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e !== "");

export const pingConfig = z.object({
  mode: z
    .enum(["timed", "triggered"])
    .default("timed")
    .meta({ title: "Mode", description: "Timed: ping the targets every few seconds; triggered: ping when a message arrives", enumLabels: { timed: "Timed", triggered: "Triggered" } }),
  host: z
    .string()
    .trim()
    .max(4096)
    .refine((v) => pingList(v).length <= MAX_PING_HOSTS, `at most ${MAX_PING_HOSTS} targets`)
    .refine((v) => pingList(v).every((h) => /^[A-Za-z0-9.:\-_[\]]{1,253}$/.test(h)), "each target is a host name or an IP address, separated by commas")
    .default("")
    .meta({ title: "Target", description: "Host names or IP addresses, separated by commas, e.g. 192.0.2.10, example.com (triggered mode: empty takes them from msg.payload)" }),
  timer: z.number().min(1).max(86_400).default(20).meta({ title: "Ping (seconds)", description: "Timed mode: seconds between pings" }),
  protocol: z
    .enum(["Automatic", "IPv4", "IPv6"])
    .default("Automatic")
    .meta({ title: "Protocol", description: "Which addresses of a host name to try", enumLabels: { Automatic: "Automatic", IPv4: "IPv4", IPv6: "IPv6" } }),
});
export type PingConfig = z.infer<typeof pingConfig>;

export const pingNode = defineNode({
  type: "ping",
  version: 1,
  category: "network",
  name: "Ping",
  description: "Checks that hosts answer and sends the round-trip time in ms, or false (node-red-node-ping).",
  help: `Checks that a machine answers and sends the round-trip time in milliseconds as \`msg.payload\`: node-red-node-ping's *ping* node.

### Inputs

- \`payload\` (string | array): in **Triggered** mode with no **Target**, the hosts to ping: a comma-separated list (\`"192.0.2.10, example.com"\`), or an array of host names and objects such as \`{"host": "example.com", "timeout": 2000, "name": "web"}\` (\`timeout\` in ms, 1000 to 30000, 5000 by default; the other properties come back in \`msg.ping\`).

### Outputs

One message per host:

- \`payload\` (number | boolean): the round-trip time in ms, or \`false\` when the host did not answer in time or its name does not resolve.
- \`topic\` (string): the host.
- \`ping\` (object): with an array payload, the host's entry (\`host\`, \`timeout\` and the rest).

### Details

- **Timed**: the targets are pinged every **Ping** seconds (20 by default), the first time one period after the flow starts.
- **Triggered**: each message pings the **Target** list, or the hosts in \`msg.payload\` when there is no target; each answer is a copy of the message.
- **Protocol**: *IPv4* or *IPv6* takes only that kind of address of a host name; *Automatic* takes the first the name resolves to.

### Differences from Node-RED

- The shared runtime does not send ICMP (Node-RED runs the system's \`ping\` program, which needs privileges a hosted server does not give). The node measures the time a host takes to accept a TCP connection on port 443 or 80 (the operator may choose other ports with \`PING_PORTS\`): that is one round trip, as an ICMP echo is. A host that answers ICMP but accepts neither port reads as \`false\` (a refused connection is no answer: firewalls refuse on behalf of hosts that are not there). To ping machines of your own network with ICMP, deploy the flow to a device (its Node-RED runs node-red-node-ping itself).
- The outbound rules apply as to every client node: private, loopback and link-local addresses are refused unless the operator sets \`OUTBOUND_ALLOW_PRIVATE=true\`, and the node reports the reason instead of an answer.
- A list holds at most ${MAX_PING_HOSTS} hosts (a longer one in a message is the node's error), and the shortest timed period is 1 second.`,
  inputs: 1,
  outputs: 1,
  configSchema: pingConfig,
  nodeRed: {
    type: "ping",
    absorbed: ["inputs"],
    toNodeRed: (c) => ({ protocol: c.protocol, mode: c.mode, host: c.host, timer: String(c.timer), inputs: c.mode === "timed" ? 0 : 1 }),
    fromNodeRed: (p) => {
      const timer = parseFloat(String(p.timer ?? ""));
      // Node-RED's timed ping with no period (0, empty) never pings by itself: a triggered one here.
      const idle = p.mode !== "triggered" && !(timer > 0);
      return {
        mode: p.mode === "triggered" || idle ? "triggered" : "timed",
        host: typeof p.host === "string" ? p.host : "",
        timer: Number.isNaN(timer) || timer <= 0 ? 20 : Math.min(Math.max(timer, 1), 86_400),
        protocol: p.protocol === "IPv4" || p.protocol === "IPv6" ? p.protocol : "Automatic",
      };
    },
    importNotes: (p) => {
      if (p.mode === "triggered") return [];
      const timer = parseFloat(String(p.timer ?? ""));
      if (!(timer > 0)) return ["it has no period, so in Node-RED it never pings by itself: it is a triggered ping here"];
      return timer < 1 ? [`its period of ${p.timer} s is 1 s here (the shortest)`] : [];
    },
  },
});
