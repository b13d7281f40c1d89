import { z } from "zod";
import { defineNode } from "../types";
import { configNodeRef, configRefFromNodeRed } from "../../../shared/config-nodes";
import { socketListenerPath } from "../../runtime/socket-hooks";

/**
 * Node-RED's websocket nodes (`22-websocket.js`, SPEC §23): two configuration nodes (a listener
 * served by the app, a client to an outside URL) and the in/out nodes that use either. The
 * listener's sockets may land on any instance (`runtime/socket-hooks.ts`); the client connects
 * through the outbound rules, one connection per instance and deployed revision (ConnectionPool).
 */

const wholemsg = z
  .enum(["false", "true"])
  .default("false")
  .meta({ title: "Send/Receive", description: "false: the payload only; true: the entire message as JSON" });

const wholemsgOf = (p: Record<string, unknown>) => (p.wholemsg === true || p.wholemsg === "true" ? "true" : "false");

export const websocketListenerConfig = z.object({
  path: z
    .string()
    .trim()
    .refine((v) => v === "" || /^\/[A-Za-z0-9._~\-/]{1,200}$/.test(v), "must start with / and use URL-safe characters, e.g. /chat")
    .default("")
    .meta({ title: "Path", description: "Served at /ws/hooks/{your organization}{path}" }),
  wholemsg,
});

export const websocketListenerNode = defineNode({
  type: "websocket-listener",
  version: 1,
  category: "config",
  kind: "config",
  name: "WebSocket listener",
  description: "A WebSocket endpoint served by the app at /ws/hooks/{org_slug}{path}, for websocket in/out nodes.",
  help: `A WebSocket server endpoint: clients connect to it, **WebSocket in** nodes receive what they send, and **WebSocket out** nodes answer them or send to all of them.

### Inputs

None: a configuration node has no wires.

### Outputs

None.

### Details

- **Path**: the endpoint is \`/ws/hooks/{your organization's slug}{path}\` on the app's own address (\`wss://\` where the app is served over https), e.g. \`/ws/hooks/acme/ws1\` for the path \`/ws1\`.
- **Send/Receive**: *payload* (the default) sends and receives \`msg.payload\`; *entire message* sends the whole message as JSON and parses what arrives as a message (a value that is not an object becomes \`msg.payload\`).
- A message a client sent carries \`msg._session\` (\`{type: "websocket", id}\`); a WebSocket out node sends a message that still has it back to that client only, and any other message to every client connected to the listener.

### Differences from Node-RED

- The endpoint lives under \`/ws/hooks/{organization}\`, so organizations cannot take each other's paths; a path no running flow serves is refused with 404.
- Any instance of the app accepts the connection; what the client sends reaches each flow using the listener once, wherever it runs (every WebSocket in node on the listener gets every message, as in Node-RED, even when the flows run on different instances), and replies reach the client wherever it is connected.
- The nodes' status counts the listener's clients (\`connected N\`); a client of an instance that stopped without closing it stops counting a few seconds after that instance left the cluster.
- Bounds protect the shared runtime: frames of at most \`WS_HOOK_MAX_FRAME_BYTES\` (1 MiB by default; a bigger frame closes the socket with 1009), at most \`WS_HOOK_SOCKETS_PER_ORGANIZATION\` sockets per organization on each instance and \`WS_HOOK_SOCKETS_PER_IP\` (100) of them from one client address (then 429), and a client that does not read what is sent to it is closed (1013) once \`WS_HOOK_SEND_QUEUE_BYTES\` wait for it. The webhooks' per-IP and per-organization rate limits count each connection attempt.
- Like a webhook, the endpoint is public: anyone who knows the path can connect, from any web page (no \`Origin\` check, and no cookie or credential of the app is ever looked at or passed on). Check a token in the messages if the endpoint must not be open to all.
- While the flow is busy, what clients send waits (reading from the socket pauses) instead of queueing without bound.`,
  inputs: 0,
  outputs: 0,
  configSchema: websocketListenerConfig,
  nodeRed: {
    type: "websocket-listener",
    toNodeRed: (c) => ({ path: c.path, wholemsg: c.wholemsg }),
    fromNodeRed: (p) => ({ path: typeof p.path === "string" ? socketListenerPath(p.path) : "", wholemsg: wholemsgOf(p) }),
  },
});

const headerEntry = z.object({
  keyType: z.string().max(200).meta({ title: "Header", description: "A header name, or other (then Name)" }),
  keyValue: z.string().max(200).default("").meta({ title: "Name" }),
  valueType: z.string().max(200).meta({ title: "Value type", description: "other: the text in Value; env: a variable named by Value" }),
  valueValue: z.string().max(8192).default("").meta({ title: "Value" }),
});

export const websocketClientConfig = z.object({
  path: z
    .string()
    .trim()
    .max(4096)
    .refine((v) => v === "" || /^wss?:\/\/[^\s]+$/i.test(v), "must be a ws:// or wss:// URL")
    .default("")
    .meta({ title: "URL", description: "The server to connect to, e.g. wss://example.com/socket" }),
  tls: configNodeRef("tls-config", { title: "TLS configuration", description: "Certificates and checks for wss:// servers" }),
  wholemsg,
  hb: z
    .union([z.literal(""), z.string().regex(/^\d{1,6}$/, "must be a whole number of seconds")])
    .default("")
    .meta({ title: "Send heartbeat (s)", description: "Pings the server this often; no answer before the next one closes the connection. Empty or 0: never" }),
  subprotocol: z.string().max(1024).default("").meta({ title: "Subprotocol", description: "Comma-separated protocols offered to the server" }),
  headers: z.array(headerEntry).max(50).default([]).meta({ title: "Headers", description: "Sent with the connection request" }),
});

export const websocketClientNode = defineNode({
  type: "websocket-client",
  version: 1,
  category: "config",
  kind: "config",
  name: "WebSocket client",
  description: "A WebSocket connection to an outside server, for websocket in/out nodes.",
  help: `Connects a WebSocket client to a server: **WebSocket in** nodes receive what the server sends, **WebSocket out** nodes send to it.

### Inputs

None: a configuration node has no wires.

### Outputs

None.

### Details

- **URL**: \`ws://\` or \`wss://\`. A lost or refused connection is tried again every 3 seconds, as in Node-RED.
- **TLS configuration**: certificates and checks for \`wss://\` servers.
- **Send/Receive**: *payload* or *entire message* (JSON), as for the listener.
- **Send heartbeat**: pings the server every so many seconds; when no answer came before the next ping, the connection is closed and tried again.
- **Subprotocol**: offered to the server (comma-separated).
- **Headers**: sent with the connection request; a value of type *env* names a variable (\`\${NAME}\` works in every value).

The connection opens when the first flow using this client starts on an instance and is shared by every flow there using the same deployed version of it; it closes when the last of them stops.

### Differences from Node-RED

- The connection passes the outbound rules of the shared runtime: private, loopback and link-local addresses (\`localhost\`, \`10.x\`, \`192.168.x\` …) are refused unless the operator sets \`OUTBOUND_ALLOW_PRIVATE=true\`; the node shows an error and warns with the reason.
- To reach a listener of this app, use its public address: \`wss://{app}/ws/hooks/{organization}{path}\`.
- The server's proxy environment variables are not used.`,
  inputs: 0,
  outputs: 0,
  configSchema: websocketClientConfig,
  nodeRed: {
    type: "websocket-client",
    toNodeRed: (c) => ({ path: c.path, tls: c.tls, wholemsg: c.wholemsg, hb: c.hb, subprotocol: c.subprotocol, headers: c.headers }),
    fromNodeRed: (p) => ({
      path: typeof p.path === "string" ? p.path : "",
      tls: configRefFromNodeRed(p.tls),
      wholemsg: wholemsgOf(p),
      hb: p.hb === undefined || p.hb === null ? "" : String(p.hb).trim(),
      subprotocol: typeof p.subprotocol === "string" ? p.subprotocol : "",
      headers: Array.isArray(p.headers) ? p.headers : [],
    }),
  },
});

const endpointRefs = {
  server: configNodeRef("websocket-listener", { title: "Listen on", description: "A WebSocket listener of this app (type: Listen on)" }),
  client: configNodeRef("websocket-client", { title: "Connect to", description: "A WebSocket client to an outside server (type: Connect to); used when set" }),
};

// Neither set: the node's error at run time (Node-RED's "Missing server configuration"), as an unset reference of any node.
export const websocketInConfig = z.object(endpointRefs);
export const websocketOutConfig = z.object(endpointRefs);

const endpointMapping = {
  toNodeRed: (c: { server: string; client: string }) => ({ server: c.server, client: c.client }),
  // Node-RED uses the client when both are set (`n.client ? n.client : n.server`); so do we.
  fromNodeRed: (p: Record<string, unknown>) => ({ server: configRefFromNodeRed(p.server), client: configRefFromNodeRed(p.client) }),
};

const STATUS_HELP = `The node shows \`connected N\` (green dot) with the number of clients of a listener, or \`connected\` for a client connection, and \`disconnected\` (red ring) when there are none.`;

export const websocketInNode = defineNode({
  type: "websocket-in",
  version: 1,
  category: "network",
  name: "WebSocket in",
  description: "Messages from WebSocket clients of a listener, or from the server a WebSocket client is connected to.",
  help: `WebSocket input: each message a WebSocket sends starts a message.

### Inputs

None.

### Outputs

- \`payload\`: the text of the frame (a string), or a Buffer for a binary frame. With *entire message* on the listener or client, the frame parsed as JSON is the whole message.
- \`_session\` (object): \`{type: "websocket", id}\`, the client that sent it; a WebSocket out node answers only that client while the message keeps it.

### Details

Choose a **listener** (*Listen on*: clients connect to this app at \`/ws/hooks/{organization}{path}\`) or a **client** (*Connect to*: this app connects to an outside server).

${STATUS_HELP}

### Differences from Node-RED

See the listener's and the client's help: the endpoint's address under \`/ws/hooks/{organization}\`, its bounds, and the outbound rules for clients.`,
  inputs: 0,
  outputs: 1,
  configSchema: websocketInConfig,
  nodeRed: { type: "websocket in", ...endpointMapping },
});

export const websocketOutNode = defineNode({
  type: "websocket-out",
  version: 1,
  category: "network",
  name: "WebSocket out",
  description: "Sends messages to WebSocket clients of a listener, or to the server a WebSocket client is connected to.",
  help: `WebSocket output: sends \`msg.payload\` (or the entire message as JSON) over a WebSocket.

### Inputs

- \`payload\`: what is sent: a Buffer as a binary frame, anything else as text (objects as JSON). Nothing is sent when it is empty.
- \`_session\` (object, optional): when the message came from a WebSocket in node of the same listener, it goes back to that client only; delete \`msg._session\` to send to every client.

### Outputs

None.

### Details

With a **listener**, a message without \`_session\` goes to every client connected to it (on every instance of the app); with a **client**, to the server it is connected to (a warning when it is not connected).

${STATUS_HELP}

### Differences from Node-RED

See the listener's and the client's help.`,
  inputs: 1,
  outputs: 0,
  configSchema: websocketOutConfig,
  nodeRed: { type: "websocket out", ...endpointMapping },
});
