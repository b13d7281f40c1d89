import { z } from "zod";
import { defineNode } from "../types";
import { WHOLE_VARIABLE_REFERENCE } from "../../../shared/variable-references";

const text = (p: Record<string, unknown>, key: string) => (p[key] === undefined || p[key] === null ? "" : String(p[key]).trim());
const port = (title: string, description: string) =>
  z
    .string()
    .trim()
    .refine((v) => v === "" || WHOLE_VARIABLE_REFERENCE.test(v) || (/^\d{1,5}$/.test(v) && Number(v) >= 1 && Number(v) <= 65535), "must be a port number from 1 to 65535, or ${NAME}")
    .default("")
    .meta({ title, description });

export const udpOutConfig = z.object({
  addr: z.string().trim().max(253).default("").meta({ title: "Address", description: "The destination host; empty: msg.ip" }),
  port: port("Port", "The destination port; empty: msg.port"),
  ipv: z.enum(["udp4", "udp6"]).default("udp4").meta({ title: "IP version", description: "udp4 or udp6" }),
  multicast: z
    .enum(["false", "broad", "multi"])
    .default("false")
    .meta({ title: "Send a", description: "false: a UDP message; broad: a broadcast; multi: a multicast message (both only where the operator allows private addresses)" }),
  outport: port("Local port", "Kept from Node-RED; messages leave from a port the system picks"),
  iface: z.string().trim().max(64).default("").meta({ title: "Local interface", description: "Kept from Node-RED; not used in the shared runtime" }),
  base64: z.boolean().default(false).meta({ title: "Decode Base64 encoded payload" }),
});

export const udpOutNode = defineNode({
  type: "udp-out",
  version: 1,
  category: "network",
  name: "UDP out",
  description: "Sends msg.payload as a UDP datagram to a host and port.",
  help: `Sends \`msg.payload\` as a UDP message to the given host and port.

### Inputs

- \`payload\`: what is sent: a Buffer as it is, Base64 text decoded with *Decode Base64*, anything else as its string form.
- \`ip\`, \`port\` (optional): the destination, when the node sets none.

### Outputs

None.

### Details

Without an address or port (on the node or the message) the node warns and sends nothing. The address and the port may each be one \`\${NAME}\` (a variable), read when the flow starts, as in Node-RED.

### Differences from Node-RED

- Destinations pass the outbound rules of the shared runtime: private, loopback, link-local, broadcast and multicast addresses are refused unless the operator sets \`OUTBOUND_ALLOW_PRIVATE=true\` (the node reports the reason). Broadcast and multicast (*Send a*) are refused with them.
- Messages leave from a port the system picks: the local port and interface of a Node-RED flow are kept for export but not bound (binding the host's ports is not offered in a shared runtime), and no multicast group is joined.`,
  inputs: 1,
  outputs: 0,
  configSchema: udpOutConfig,
  nodeRed: {
    type: "udp out",
    toNodeRed: (c) => ({ addr: c.addr, iface: c.iface, port: c.port, ipv: c.ipv, outport: c.outport, base64: c.base64, multicast: c.multicast }),
    fromNodeRed: (p) => ({
      addr: text(p, "addr"),
      port: text(p, "port"),
      ipv: p.ipv === "udp6" ? "udp6" : "udp4",
      multicast: p.multicast === "broad" || p.multicast === "multi" ? p.multicast : "false",
      outport: text(p, "outport"),
      iface: text(p, "iface"),
      base64: p.base64 === true,
    }),
  },
});
