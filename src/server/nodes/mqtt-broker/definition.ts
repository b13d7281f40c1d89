import { z } from "zod";
import { defineNode } from "../types";
import { PROTOCOL_CHOICES, QOS_CHOICES } from "../mqtt-choices";
import { configNodeRef, configRefFromNodeRed } from "../../../shared/config-nodes";
import { numberOrVariable, variableFromNodeRed } from "../../runtime/number-or-variable";

/** The reserved `broker` value naming the app's own broker (SPEC §20, "Built-in broker"). */
export const BUILT_IN_BROKER = "built-in";

const HELP = `Configuration for a connection to an MQTT broker, shared by every **MQTT in** and **MQTT out**
node that names it.

### Inputs

None: a configuration node has no wires.

### Outputs

None.

### Details

- **Server**: a host name or address (with **Port**, 1883 by default; **Use TLS** for \`mqtts\`), or a
  full URL: \`mqtt://host:1883\`, \`mqtts://host:8883\`, \`ws://example.com:4000/mqtt\`,
  \`wss://example.com/mqtt\`. The reserved value \`built-in\` is this application's own broker: no
  address, no credentials, your organization's topics only; with **Protocol** 5 the nodes send and
  receive MQTT 5 properties there as with any MQTT 5 broker. Unlike Mosquitto, it has no shared
  subscriptions: an **MQTT in** on a \`$share/…\` topic there logs an error and receives nothing
  (other brokers are used as they are).
- **Use TLS** with a **TLS configuration** (certificates, trusted authorities, server checks).
- **Client ID**: left empty, a random one is made. **Clean session** off asks the broker to keep the
  session (subscriptions and QoS 1/2 messages) while the client is away; it needs a client ID.
- **Protocol**: MQTT 3.1 (3), 3.1.1 (4, the default) or 5. MQTT 5 adds **Session expiry**, the
  connection's **User properties** (a JSON object of strings) and the birth/close/will messages'
  properties (\`respTopic\`, \`correl\`, \`contentType\`, \`expiry\`, \`userProps\`, and the will's \`delay\`).
- **Birth message**: published on its topic whenever the connection is established.
  **Close message**: published before the connection is closed normally (redeploy, stop).
  **Will message**: published by the broker if the connection is lost unexpectedly.
- **Port**, **Keep alive** and **Session expiry** may each be \`\${NAME}\` instead of a number, as in
  Node-RED: the variable's value is read when the connection is made (the flow's deploy or start, a
  \`connect\` action); the automatic reconnects after a lost connection keep the address they had. A
  variable that is not set, or not a number the field accepts, is the nodes' error and no
  connection is made until the next deploy.
- **Username** and **Password** are credentials: stored encrypted, never shown again, left out of
  exports. Either may be \`\${NAME}\`, a variable or secret of the organization; a changed secret is
  used the next time the connection is made (a reconnect), without a redeploy. A user and password
  written in the **Server**'s URL (\`mqtt://user:password@host\`, as Node-RED accepts) become these
  credentials when the node is saved or imported, and the URL is kept without them: unlike
  Node-RED, which shows the URL as written to everyone who opens the node.
- A lost connection is made again every 5 seconds; the nodes show *connecting* (yellow ring),
  *connected* (green dot) or *disconnected* (red ring).

**One connection per instance.** Each instance of the application opens one connection per broker configuration (and deployed
revision of it) for all the flows running there that use it, and closes it when the last stops. Each
instance connects with its own client ID: the configured one followed by \`-\` and the instance's id.
With **Clean session** off the configured client ID is used as it is, and every flow using this
broker configuration runs on one instance (the broker keeps one session per client ID): they are
moved together when instances are rebalanced, and when their instance fails the next one takes the
session over, so QoS 1 and 2 messages published meanwhile arrive (marked \`dup\` when the broker
sends one again). Where flows run follows the configuration as deployed: a \`connect\` action whose
\`msg.broker\` turns clean session off does not bring them together.

QoS 1 and 2 messages are acknowledged to the broker once the flow took them. While a flow using the
connection is busy (too many messages waiting), reading from the connection pauses until it has caught
up: *every* flow sharing this broker configuration waits meanwhile; give a flow that must not wait
a broker configuration of its own.

### Differences from Node-RED

- The broker's address passes the outbound rules: private, loopback and link-local addresses are
  refused unless the operator allows them (\`OUTBOUND_ALLOW_PRIVATE\`).
- Without a TLS configuration, a TLS connection checks the server's certificate unless **Verify
  server certificate** is off (Node-RED's default for this legacy property is off).
- The proxy environment variables (\`http_proxy\`) are not used for WebSocket brokers.
- Node-RED's \`compatmode\` is read as protocol 3 on import.
- With **Clean session** off, stored messages arriving as soon as the session is connected wait up
  to 10 seconds for a flow that subscribes to them (the flows using the broker start one after the
  other), and MQTT 5 subscription identifiers are numbered from the topic filter rather than in
  order, so another instance taking the session over reads them the same.`;

const qos = z.number().int().min(0).max(2);
const publishTopic = z
  .string()
  .max(65_535)
  .refine((t) => !/[+#\b\f\n\r\t\v\0]/.test(t), "must not hold + or # or control characters")
  .default("");

/** MQTT 5 properties of a birth, close or will message (Node-RED's birthMsg/closeMsg/willMsg). */
const messageProps = z
  .object({
    respTopic: z.string().max(65_535).optional(),
    correl: z.string().max(65_535).optional(),
    contentType: z.string().max(255).optional(),
    expiry: z.union([z.number().int().min(0), z.string().max(12)]).optional(),
    userProps: z.union([z.string().max(65_535), z.record(z.string(), z.unknown())]).optional(),
    delay: z.union([z.number().int().min(0), z.string().max(12)]).optional(),
  })
  .default({});

export const mqttBrokerConfig = z.object({
  broker: z.string().trim().min(1).max(2048).default("localhost").meta({ title: "Server", description: "Host, or a URL (mqtt://, mqtts://, ws://, wss://); built-in: this application's broker" }),
  port: numberOrVariable(z.number().int().min(1).max(65_535)).default(1883).meta({ title: "Port", description: "Or ${NAME}: a variable holding it" }),
  usetls: z.boolean().default(false).meta({ title: "Use TLS" }),
  tls: configNodeRef("tls-config", { title: "TLS configuration", description: "Certificates and checks, with Use TLS" }),
  verifyservercert: z.boolean().default(true).meta({ title: "Verify server certificate", description: "Without a TLS configuration" }),
  clientid: z.string().max(256).default("").meta({ title: "Client ID", description: "Empty: a random one" }),
  autoConnect: z.boolean().default(true).meta({ title: "Connect automatically" }),
  protocolVersion: z.number().int().min(3).max(5).default(4).meta({ title: "Protocol", ...PROTOCOL_CHOICES }),
  keepalive: numberOrVariable(z.number().int().min(0).max(65_535)).default(60).meta({ title: "Keep alive (s)", description: "Or ${NAME}" }),
  cleansession: z.boolean().default(true).meta({ title: "Clean session" }),
  autoUnsubscribe: z.boolean().default(true).meta({ title: "Unsubscribe when a node stops" }),
  sessionExpiry: numberOrVariable(z.number().int().min(0).max(0xffffffff)).default(0).meta({ title: "Session expiry (s)", description: "MQTT 5; or ${NAME}" }),
  userProps: z.string().max(65_535).default("").meta({ title: "User properties", description: "MQTT 5: a JSON object of strings sent with CONNECT" }),
  birthTopic: publishTopic.meta({ title: "Birth message topic", description: "Empty: none" }),
  birthQos: qos.default(0).meta({ title: "Birth message QoS", ...QOS_CHOICES }),
  birthRetain: z.boolean().default(false).meta({ title: "Birth message retain" }),
  birthPayload: z.string().max(1_048_576).default("").meta({ title: "Birth message payload" }),
  birthMsg: messageProps.meta({ title: "Birth message MQTT 5 properties", description: "respTopic, correl, contentType, expiry, userProps" }),
  closeTopic: publishTopic.meta({ title: "Close message topic", description: "Empty: none" }),
  closeQos: qos.default(0).meta({ title: "Close message QoS", ...QOS_CHOICES }),
  closeRetain: z.boolean().default(false).meta({ title: "Close message retain" }),
  closePayload: z.string().max(1_048_576).default("").meta({ title: "Close message payload" }),
  closeMsg: messageProps.meta({ title: "Close message MQTT 5 properties", description: "respTopic, correl, contentType, expiry, userProps" }),
  willTopic: publishTopic.meta({ title: "Will message topic", description: "Empty: none" }),
  willQos: qos.default(0).meta({ title: "Will message QoS", ...QOS_CHOICES }),
  willRetain: z.boolean().default(false).meta({ title: "Will message retain" }),
  willPayload: z.string().max(1_048_576).default("").meta({ title: "Will message payload" }),
  willMsg: messageProps.meta({ title: "Will message MQTT 5 properties", description: "respTopic, correl, contentType, expiry, userProps, delay" }),
});
export type MqttBrokerConfig = z.infer<typeof mqttBrokerConfig>;

const str = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");
const bool = (v: unknown, fallback: boolean) => (v === true || v === "true" ? true : v === false || v === "false" ? false : fallback);
const int = (v: unknown, fallback: number) => {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
  return Number.isInteger(n) ? n : fallback;
};
const qosOf = (v: unknown) => {
  const n = int(v, 0);
  return n === 1 || n === 2 ? n : 0;
};
const propsOf = (v: unknown) => {
  if (!v || typeof v !== "object" || Array.isArray(v)) return {};
  const o = v as Record<string, unknown>;
  return Object.fromEntries(Object.entries(o).filter(([k, x]) => ["respTopic", "correl", "contentType", "expiry", "userProps", "delay"].includes(k) && x !== undefined && x !== ""));
};

/**
 * Whether a broker configuration (as deployed) asks for a persistent session: clean session off
 * with a client id (without one the session is clean anyway, as Node-RED's), at an external broker.
 * Its flows then run on one instance (SPEC §20): the session is one client id at the broker.
 */
export function persistentSession(config: Record<string, unknown>): boolean {
  const clean = config.cleansession;
  const clientid = config.clientid;
  return (clean === false || clean === "false") && typeof clientid === "string" && clientid !== "" && config.broker !== BUILT_IN_BROKER;
}

/** `scheme://user:password@host…`: the user information of a broker URL, and the URL without it. */
export function splitUserinfo(url: string): { url: string; user?: string; password?: string } | null {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*)@(.*)$/is.exec(url);
  if (!m) return null;
  const [userPart, ...rest] = m[2]!.split(":");
  const decode = (v: string) => {
    try {
      return decodeURIComponent(v);
    } catch {
      return v;
    }
  };
  const user = decode(userPart ?? "");
  const password = rest.length > 0 ? decode(rest.join(":")) : "";
  return { url: `${m[1]}${m[3]}`, ...(user ? { user } : {}), ...(password ? { password } : {}) };
}

export const mqttBrokerNode = defineNode({
  type: "mqtt-broker",
  version: 1,
  category: "config",
  kind: "config",
  name: "MQTT broker",
  description: "A connection to an MQTT broker (3.1.1 or 5, TCP, TLS or WebSocket), shared by the MQTT nodes naming it.",
  help: HELP,
  inputs: 0,
  outputs: 0,
  configSchema: mqttBrokerConfig,
  placeTogether: persistentSession,
  // `mqtt://user:password@host` (mqtt.js and Node-RED take it so): the URL is shown to everyone who
  // reads the organization's configuration, so the user and password become the node's credentials.
  liftCredentials: (c) => {
    const split = splitUserinfo(c.broker);
    if (!split) return null;
    const credentials: Record<string, string> = {};
    if (split.user) credentials.user = split.user;
    if (split.password) credentials.password = split.password;
    return { config: { ...c, broker: split.url }, credentials };
  },
  credentials: {
    user: { type: "text", title: "Username", description: "May be ${NAME}" },
    password: { type: "password", title: "Password", description: "May be ${NAME}: a secret variable" },
  },
  nodeRed: {
    type: "mqtt-broker",
    toNodeRed: (c) => ({
      broker: c.broker,
      port: c.port,
      tls: c.tls,
      clientid: c.clientid,
      autoConnect: c.autoConnect,
      usetls: c.usetls,
      verifyservercert: c.verifyservercert,
      compatmode: false,
      protocolVersion: c.protocolVersion,
      keepalive: c.keepalive,
      cleansession: c.cleansession,
      autoUnsubscribe: c.autoUnsubscribe,
      birthTopic: c.birthTopic,
      birthQos: String(c.birthQos),
      birthRetain: String(c.birthRetain),
      birthPayload: c.birthPayload,
      birthMsg: c.birthMsg,
      closeTopic: c.closeTopic,
      closeQos: String(c.closeQos),
      closeRetain: String(c.closeRetain),
      closePayload: c.closePayload,
      closeMsg: c.closeMsg,
      willTopic: c.willTopic,
      willQos: String(c.willQos),
      willRetain: String(c.willRetain),
      willPayload: c.willPayload,
      willMsg: c.willMsg,
      userProps: c.userProps,
      sessionExpiry: c.sessionExpiry,
    }),
    // Node-RED 1.x's "use legacy MQTT 3.1 support": protocol 3 (its runtime connects so; its editor rewrites the node once opened).
    absorbed: ["compatmode"],
    fromNodeRed: (p) => ({
      broker: str(p.broker).trim() || "localhost",
      port: variableFromNodeRed(p.port) ?? (int(p.port, 1883) || 1883),
      tls: configRefFromNodeRed(p.tls),
      clientid: str(p.clientid),
      autoConnect: bool(p.autoConnect, true),
      usetls: bool(p.usetls, false),
      // Node-RED's legacy default is false; an imported node says what it had.
      verifyservercert: bool(p.verifyservercert, false),
      protocolVersion: bool(p.compatmode, false) ? 3 : ([3, 4, 5].includes(int(p.protocolVersion, 4)) ? int(p.protocolVersion, 4) : 4),
      keepalive: variableFromNodeRed(p.keepalive) ?? int(p.keepalive, 60),
      cleansession: bool(p.cleansession, true),
      autoUnsubscribe: bool(p.autoUnsubscribe, true),
      sessionExpiry: variableFromNodeRed(p.sessionExpiry) ?? int(p.sessionExpiry, 0),
      userProps: typeof p.userProps === "string" ? p.userProps : p.userProps && typeof p.userProps === "object" ? JSON.stringify(p.userProps) : "",
      ...Object.fromEntries(
        ["birth", "close", "will"].flatMap((w) => [
          [`${w}Topic`, str(p[`${w}Topic`])],
          [`${w}Qos`, qosOf(p[`${w}Qos`])],
          [`${w}Retain`, bool(p[`${w}Retain`], false)],
          [`${w}Payload`, str(p[`${w}Payload`])],
          [`${w}Msg`, propsOf(p[`${w}Msg`])],
        ]),
      ),
    }),
  },
});
