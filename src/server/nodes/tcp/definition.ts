import { z } from "zod";
import { defineNode } from "../types";
import { WHOLE_VARIABLE_REFERENCE } from "../../../shared/variable-references";
import { configNodeRef, configRefFromNodeRed } from "../../../shared/config-nodes";

/**
 * Node-RED's TCP clients (`31-tcpin.js`, SPEC §23): `tcp request`, and `tcp in` and `tcp out` in
 * their client modes. Listening servers (`tcp in` and `tcp out` as a server, `tcp out` replying to
 * one) stay out of the shared runtime; the import keeps them as disabled unknown nodes and says why.
 */

const host = (title: string, description: string) => z.string().trim().max(253).default("").meta({ title, description });
const port = (title: string, description: string) =>
  z
    .string()
    .trim()
    .refine((v) => v === "" || WHOLE_VARIABLE_REFERENCE.test(v) || (/^\d{1,5}$/.test(v) && Number(v) >= 1 && Number(v) <= 65535), "must be a port number from 1 to 65535, or ${NAME}")
    .default("")
    .meta({ title, description });
const text = (p: Record<string, unknown>, key: string) => (p[key] === undefined || p[key] === null ? "" : String(p[key]).trim());
const tls = configNodeRef("tls-config", { title: "TLS configuration", description: "Connect with TLS, with these certificates and checks" });

const OUTBOUND = `- The connection passes the outbound rules of the shared runtime: private, loopback and link-local addresses are refused unless the operator sets \`OUTBOUND_ALLOW_PRIVATE=true\` (the node reports the reason).`;

export const tcpRequestConfig = z.object({
  server: host("Server", "The host to connect to; empty: msg.host"),
  port: port("Port", "Empty: msg.port"),
  out: z
    .enum(["time", "char", "count", "sit", "immed"])
    .default("time")
    .meta({ title: "Return", description: "time: after a timeout; char: when a character arrives; count: after a number of bytes; sit: keep the connection open; immed: at once, without waiting for an answer" }),
  splitc: z.string().max(20).default("0").meta({ title: "Split / wait", description: "ms for time, the character for char (\\n, 0x0A, a), the byte count for count" }),
  ret: z.enum(["buffer", "string"]).default("buffer").meta({ title: "Output", description: "A Buffer or a string" }),
  newline: z.string().max(20).default("").meta({ title: "Split stream on", description: "With keep connection open and string output: a message per delimited part" }),
  trim: z.boolean().default(false).meta({ title: "Keep the delimiter" }),
  tls,
});

export const tcpRequestNode = defineNode({
  type: "tcp-request",
  version: 1,
  category: "network",
  name: "TCP request",
  description: "Sends msg.payload to a TCP server and waits for the answer.",
  help: `A simple TCP request node: sends \`msg.payload\` to a server's TCP port and expects an answer.

### Inputs

- \`payload\`: what is sent (a Buffer or a string; anything else as its string form).
- \`host\`, \`port\` (optional): the server, when the node sets none.
- \`reset\` (optional): with *keep connection open*, \`true\` closes every connection, \`"host:port"\` that one.

### Outputs

- \`payload\`: the answer, a Buffer or a string; the rest of the message is the one sent.

### Details

The server and the port may each be one \`\${NAME}\` (a variable), read when the flow starts, as in Node-RED.

It connects, sends, and returns what comes back:
- **after a timeout** (ms after the first byte; the default, 0 ms),
- **when a character arrives** (\`\\n\`, \`0x0A\`, or a character),
- **after a number of bytes**,
- **never** (*keep connection open*): every chunk is a message (with string output and *Split stream on*, one per part), or
- **at once**, without waiting for an answer.

Then it closes the connection, except with *keep connection open*. The status shows the number of open connections.

### Differences from Node-RED

${OUTBOUND}
- An answer is bounded at 16 MiB (Node-RED's buffer is 64 KiB and loses what goes past it), and so is
  the text *keep connection open* holds while it waits for the delimiter: more is the node's error.
  What they hold counts against the organization's bytes being downloaded at once
  (\`HTTP_REQUEST_BYTES_PER_ORGANIZATION\`, shared with http request's responses); past it, the node's error too.
- One node keeps at most 100 connections open at once (one per host and port); a message for another
  is the node's error until \`msg.reset\` closes some. Node-RED has no bound.`,
  inputs: 1,
  outputs: 1,
  configSchema: tcpRequestConfig,
  nodeRed: {
    type: "tcp request",
    toNodeRed: (c) => ({ server: c.server, port: c.port, out: c.out, ret: c.ret, splitc: c.splitc, newline: c.newline, trim: c.trim, tls: c.tls }),
    fromNodeRed: (p) => ({
      server: text(p, "server"),
      port: text(p, "port"),
      out: typeof p.out === "string" && p.out !== "" ? p.out : "time",
      ret: p.ret === "string" ? "string" : "buffer",
      splitc: p.splitc === undefined || p.splitc === null ? "0" : String(p.splitc),
      newline: typeof p.newline === "string" ? p.newline : "",
      trim: p.trim === true,
      tls: configRefFromNodeRed(p.tls),
    }),
  },
});

export const tcpOutConfig = z.object({
  host: host("Host", "The server to connect to"),
  port: port("Port", "The server's port"),
  beserver: z
    .enum(["client"])
    .default("client")
    .meta({ title: "Type", description: "A client of a TCP server (listening modes are not offered in the shared runtime)", enumLabels: { client: "Connect to" } }),
  base64: z.boolean().default(false).meta({ title: "Decode Base64 message" }),
  end: z.boolean().default(false).meta({ title: "Close connection after each message is sent" }),
  tls,
});

export const tcpOutNode = defineNode({
  type: "tcp-out",
  version: 1,
  category: "network",
  name: "TCP out",
  description: "Sends msg.payload to a TCP server over a connection it keeps open.",
  help: `Sends \`msg.payload\` over a TCP connection to a server.

### Inputs

- \`payload\`: what is sent: a Buffer as it is, a string as UTF-8 (or decoded from Base64 with *Decode Base64*), anything else as its string form.

### Outputs

None.

### Details

The host and the port may each be one \`\${NAME}\` (a variable), read when the flow starts, as in Node-RED.

The node connects to the server when the flow starts and keeps the connection, connecting again 10 s after it is lost (at once when *close connection after each message* closed it). While it is not connected, messages are dropped, as in Node-RED. The status shows connecting, connected or disconnected.

### Differences from Node-RED

- Only the client mode (*Connect to*) is offered: listening on a TCP port (*Listen on*) and replying to a \`tcp in\` (*Reply to TCP*) are not, in a shared runtime. A Node-RED flow with them imports as a disabled unknown node that says so.
${OUTBOUND}`,
  inputs: 1,
  outputs: 0,
  configSchema: tcpOutConfig,
  nodeRed: {
    type: "tcp out",
    toNodeRed: (c) => ({ host: c.host, port: c.port, beserver: c.beserver, base64: c.base64, end: c.end, tls: c.tls }),
    fromNodeRed: (p) => ({ host: text(p, "host"), port: text(p, "port"), beserver: "client", base64: p.base64 === true, end: p.end === true, tls: configRefFromNodeRed(p.tls) }),
  },
});

export const tcpInConfig = z.object({
  server: z
    .enum(["client"])
    .default("client")
    .meta({ title: "Type", description: "A client of a TCP server (listening on a port is not offered in the shared runtime)", enumLabels: { client: "Connect to" } }),
  host: host("Host", "The server to connect to"),
  port: port("Port", "The server's port"),
  datamode: z
    .enum(["stream", "single"])
    .default("stream")
    .meta({
      title: "Output",
      description: "A stream: a message per chunk (or per delimited part); single: one message with all that came, when the server closes the connection",
      enumLabels: { stream: "A stream of messages", single: "A single message" },
    }),
  datatype: z
    .enum(["buffer", "utf8", "base64"])
    .default("buffer")
    .meta({ title: "Payload", description: "A Buffer, a UTF-8 string or a Base64 string", enumLabels: { buffer: "Buffer", utf8: "String", base64: "Base64 string" } }),
  newline: z.string().max(20).default("").meta({ title: "Delimited by", description: "With stream and a string payload: a message per part (\\n, \\r, \\t as escapes); empty: per chunk" }),
  trim: z.boolean().default(false).meta({ title: "Re-attach the delimiter" }),
  topic: z.string().max(1024).default("").meta({ title: "Topic", description: "msg.topic of the messages" }),
  tls,
});

export const tcpInNode = defineNode({
  type: "tcp-in",
  version: 1,
  category: "network",
  name: "TCP in",
  description: "Connects to a TCP server and sends on what it receives.",
  help: `Connects to a remote TCP port and sends a message with what arrives (Node-RED's \`tcp in\` in its *Connect to* mode).

### Inputs

None: what the server sends starts the messages.

### Outputs

- \`payload\`: what arrived: a Buffer, a UTF-8 string or a Base64 string.
- \`topic\`: the node's topic.
- \`_session\`: \`{type: "tcp", id}\`, the connection it came from.

### Details

The host and the port may each be one \`\${NAME}\` (a variable), read when the flow starts, as in Node-RED.

As a **stream**, each chunk is a message; with a string payload and a delimiter (\`\\n\`), each delimited part is one (with the delimiter again if *Re-attach* is on), and text left without one is sent when the connection closes. As a **single** message, all that arrived is sent when the server closes the connection.

The node connects when the flow starts and connects again 10 s after the connection is lost, or at once when the server closed it after sending something. The status shows connecting, connected or disconnected. While the flow is busy (too many messages waiting), it stops reading: the server waits.

### Differences from Node-RED

- Only the client mode (*Connect to*) is offered: listening on a TCP port (*Listen on*) is not, in a shared runtime (on a device it is Node-RED's own). A Node-RED flow with it imports as a disabled unknown node that says so.
${OUTBOUND}
- What a single message or undelimited text holds is bounded at 16 MiB (Node-RED has no bound), and counts against the organization's bytes being downloaded at once (\`HTTP_REQUEST_BYTES_PER_ORGANIZATION\`, shared with http request's responses): past either, the node's error; what was held is dropped and the connection closed (connected again 10 s later).
- Connecting again "at once" after a server closed is after 20 ms as in Node-RED, but at most once a second: a server that answers and closes is not called 50 times a second from a shared runtime.
- A UTF-8 character split between two chunks is decoded whole (Node-RED decodes each chunk alone), and a single Base64 message is the Base64 of all the bytes (Node-RED joins each chunk's).`,
  inputs: 0,
  outputs: 1,
  configSchema: tcpInConfig,
  nodeRed: {
    type: "tcp in",
    toNodeRed: (c) => ({ server: c.server, host: c.host, port: c.port, datamode: c.datamode, datatype: c.datatype, newline: c.newline, topic: c.topic, trim: c.trim, base64: false, tls: c.tls }),
    fromNodeRed: (p) => ({
      server: "client",
      host: text(p, "host"),
      port: text(p, "port"),
      datamode: p.datamode === "single" ? "single" : "stream",
      datatype: p.datatype === "utf8" || p.datatype === "base64" ? p.datatype : "buffer",
      newline: typeof p.newline === "string" ? p.newline : "",
      trim: p.trim === true,
      topic: typeof p.topic === "string" ? p.topic : "",
      tls: configRefFromNodeRed(p.tls),
    }),
  },
});
