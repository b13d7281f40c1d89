import net from "node:net";
import tls from "node:tls";
import type { IClientOptions, IClientPublishOptions, IPublishPacket, MqttClient } from "mqtt";
import { lazyRequire } from "../../lazy-require";
import type { BuiltInMqtt, NodeStatus } from "../../runtime/types";
import type { OutboundRules } from "../../runtime/outbound";
import { isValidPublishTopic, matchTopic, setBoolProp, setBufferProp, setIntProp, setStrProp, setUserProperties } from "./mqtt-values";

/** mqtt.js, loaded by the first mqtt-broker connection (most organizations have none). */
const mqttClient = lazyRequire<typeof import("mqtt")>("mqtt");
const mqttWs = lazyRequire<typeof import("mqtt/lib/connect/ws")>("mqtt/lib/connect/ws");

/**
 * One connection to an MQTT broker, shared by every mqtt-in and mqtt-out node of this instance that
 * names the same broker configuration node revision (SPEC §19, §20; held in the engine's
 * ConnectionPool). Ported from Node-RED 5.0's MQTTBrokerNode (10-mqtt.js): users, the subscriptions
 * by topic and node, birth/close/will messages, the connect/disconnect actions and the status dots;
 * and two things of ours: the broker is reached through the outbound rules, and reading pauses
 * while a flow using the connection is busy (QoS 1/2 are acknowledged once the flow took them).
 */

/** Connection settings as the broker configuration node resolves them now (credentials included). */
export interface BrokerSettings {
  /** The app's own broker (SPEC §20): no address, no credentials. */
  builtIn: boolean;
  broker: string;
  port: number;
  /** A full URL (the `connect` action's `url`), else built from broker and port. */
  url?: string;
  usetls: boolean;
  /** TLS options from the tls-config (ca, cert, key, passphrase, servername, rejectUnauthorized, ALPN). */
  tls?: tls.ConnectionOptions;
  verifyservercert: boolean;
  clientid: string;
  /** Appended to the client id unless the session is persistent (one client per instance). */
  clientSuffix: string;
  autoConnect: boolean;
  protocolVersion: 3 | 4 | 5;
  keepalive: number;
  cleansession: boolean;
  autoUnsubscribe: boolean;
  sessionExpiry: number;
  userProps: string;
  username?: string;
  password?: string;
  birth?: LwtSource;
  close?: LwtSource;
  will?: LwtSource;
}

interface LwtSource {
  topic: string;
  payload: string;
  qos: number;
  retain: boolean;
  props: Record<string, unknown>;
}

interface PublishMessage {
  topic: string;
  payload: Buffer | string;
  qos: 0 | 1 | 2;
  retain: boolean;
  properties?: Record<string, unknown>;
}

/** A node using the connection: its status dot, and (mqtt-in) its flow's backpressure. */
export interface MqttUser {
  id: string;
  status(status: NodeStatus | null): void;
  log: { warn(message: string): void; error(err: unknown): void };
  /** mqtt-in: whether its flow is busy, and when it is ready again (reading pauses meanwhile). */
  busy?(): boolean;
  whenReady?(fn: () => void): () => void;
}

export type MessageCallback = (topic: string, payload: Buffer, packet: ReceivedPacket) => void;

/** What a subscription handler reads of a received publish; `dup`: MQTT's DUP flag (a redelivery). */
export interface ReceivedPacket {
  qos?: number;
  retain?: boolean;
  dup?: boolean;
  properties?: Record<string, unknown>;
}

/**
 * A persistent session's messages stored at the broker arrive as soon as it is connected, possibly
 * before every flow using the connection has started (a placement group's flows start one after
 * the other on failover). For this long after connecting, a message no subscription here matches
 * yet waits (reading paused, not acknowledged) for one that does; then it is acknowledged and
 * dropped, as any message nothing subscribes to.
 */
export const SESSION_SETTLE_MS = 10_000;

interface Subscription {
  topic: string;
  options: { qos?: number; nl?: boolean; rap?: boolean; rh?: number; properties?: Record<string, unknown> };
  ref: string;
  callback?: MessageCallback;
  /** Built-in broker: the function that ends this topic's subscription there. */
}

export interface ConnectionEnvironment {
  organizationId: string;
  outbound?: OutboundRules;
  builtInMqtt?: BuiltInMqtt;
  /**
   * Settings as they resolve now (a rotated credential is read at each connect); with `host`, the
   * credentials for a connection to that host (a connect action's broker), not the configured one.
   */
  settings(host?: string): BrokerSettings;
  /** Reconnect delays: first, and the bound of the doubling (ms). */
  reconnect?: { firstMs: number; maxMs: number };
  log?(message: string): void;
}

const CONNECTED: NodeStatus = { fill: "green", shape: "dot", text: "connected" };
const CONNECTING: NodeStatus = { fill: "yellow", shape: "ring", text: "connecting" };
const DISCONNECTED: NodeStatus = { fill: "red", shape: "ring", text: "disconnected" };

const IPV6 = /^[0-9a-fA-F:]+(%[0-9a-zA-Z]+)?$/;

/** A URL's host name without the brackets around an IPv6 address. */
const bareHostname = (url: URL) => url.hostname.replace(/^\[|\]$/g, "");

/** The host name of a broker URL (no brackets around IPv6); "" when it is not a URL. */
export function brokerHost(url: string): string {
  try {
    return bareHostname(new URL(url));
  } catch {
    return "";
  }
}

/** Node-RED's broker URL: `broker` when it holds `://`, else mqtt(s)://broker:port ([v6]:port). */
export function brokerUrl(s: Pick<BrokerSettings, "broker" | "port" | "usetls" | "url">): string {
  if (s.url) return s.url;
  if (s.broker.includes("://")) return s.broker;
  const scheme = s.usetls ? "mqtts://" : "mqtt://";
  if (s.broker === "") return `${scheme}localhost:1883`;
  const host = s.broker.includes(":") && IPV6.test(s.broker) ? `[${s.broker}]` : s.broker;
  return `${scheme}${host}:${s.port || 1883}`;
}

/** Node-RED's createLWT: a birth/close/will message with its MQTT 5 properties (in `properties` for a will). */
function lwtMessage(src: LwtSource | undefined, v5: boolean, will: boolean): (PublishMessage & Record<string, unknown>) | undefined {
  if (!src || !src.topic) return undefined;
  const message: PublishMessage & Record<string, unknown> = { topic: src.topic, payload: src.payload || "", qos: (Number(src.qos) || 0) as 0 | 1 | 2, retain: src.retain === true };
  if (v5) {
    const o = { ...src.props };
    const props: Record<string, unknown> = {};
    if ("respTopic" in o) o.responseTopic = o.respTopic;
    if ("correl" in o) o.correlationData = o.correl;
    if ("expiry" in o) o.messageExpiryInterval = o.expiry;
    if ("delay" in o) o.willDelayInterval = o.delay;
    if ("userProps" in o) o.userProperties = o.userProps;
    if (typeof o.userProperties === "string" && /^ *{/.test(o.userProperties)) {
      try {
        setUserProperties(JSON.parse(o.userProperties), props);
      } catch {
        // not JSON: left out, as Node-RED does
      }
    } else if (o.userProperties && typeof o.userProperties === "object") setUserProperties(o.userProperties, props);
    setStrProp(o, props, "contentType");
    setStrProp(o, props, "responseTopic");
    setBufferProp(o, props, "correlationData");
    setIntProp(o, props, "messageExpiryInterval");
    if (will) setIntProp(o, props, "willDelayInterval");
    if (will) message.properties = props;
    else Object.assign(message, props);
  }
  return message;
}

export class MqttConnection {
  connected = false;
  connecting = false;
  private closing = false;
  private client: MqttClient | undefined;
  /** The built-in broker's subscriptions by topic: the functions that end them. */
  private builtInSubs = new Map<string, Promise<() => Promise<void>>>();
  private builtInLive = false;
  readonly users = new Map<string, MqttUser>();
  private readonly subscriptions = new Map<string, Map<string, Subscription>>();
  private readonly subscriptionIds = new Map<string, number>();
  private subid = 1;
  /** Topics a node kept subscribed (autoUnsubscribe off) to drop when it subscribes to another (Node-RED's unsubscribeCandidates). */
  private readonly candidates = new Map<string, string[]>();
  serverProperties: Record<string, unknown> = {};
  private topicAliases: Record<number, string> = {};
  /** Overrides from a `connect` action's `msg.broker` (Node-RED's setOptions). */
  private overrides: Record<string, unknown> = {};
  private current: BrokerSettings;
  private reconnectDelay: number;
  /** The last connection error reported (reported once until a connect succeeds). */
  private lastError: string | undefined;
  /** Callers of connect() waiting for the connection: told when it is made, or that it cannot be (settings that do not read, no built-in broker). */
  private connectWaiters: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];
  /** Waiters of paused reads, by user, released when the user goes. */
  private readonly pausedBy = new Map<string, Set<() => void>>();
  /** QoS 0 publishes written while the socket was full, done when it drains (afterDrain). */
  private drainWaiters: Array<() => void> = [];
  private drainingStream: SocketLike | undefined;
  /** performance.now() until which a persistent session's unmatched message waits for a subscription (SESSION_SETTLE_MS). */
  private settleUntil = 0;
  /** Received messages no subscription matched while settling, until mqtt.js hands them to handleMessage. */
  private readonly unmatched = new WeakMap<object, { topic: string; payload: Buffer }>();
  /** The message waiting for a subscription (reading is paused meanwhile: one at a time). */
  private waiting: { topic: string; payload: Buffer; packet: ReceivedPacket; resume: () => void; timer: NodeJS.Timeout } | undefined;

  /** The last reconnect's settings error, said once until the settings read again. */
  private lastSettingsError: string | undefined;

  constructor(private readonly env: ConnectionEnvironment) {
    this.current = env.settings();
    this.reconnectDelay = env.reconnect?.firstMs ?? 1000;
  }

  get autoConnect() {
    return this.current.autoConnect;
  }

  v5(): boolean {
    // The built-in broker speaks MQTT 5 too (Aedes 2): its properties as the configuration asks.
    return this.current.protocolVersion === 5;
  }

  private subscriptionIdentifiersAvailable(): boolean {
    return this.v5() && this.serverProperties.subscriptionIdentifiersAvailable === true;
  }

  /** Settings with the connect action's overrides applied. */
  private settings(): BrokerSettings {
    const base = this.env.settings();
    const s = { ...base };
    const o = this.overrides;
    for (const k of ["url", "broker", "port", "clientid", "autoConnect", "usetls", "verifyservercert", "protocolVersion", "keepalive", "cleansession", "autoUnsubscribe"] as const) {
      if (Object.hasOwn(o, k)) (s as Record<string, unknown>)[k] = k === "port" || k === "keepalive" || k === "protocolVersion" ? Number(o[k]) : o[k];
    }
    if (Object.hasOwn(o, "compatmode") && (o.compatmode === true || o.compatmode === "true")) s.protocolVersion = 3;
    if (Object.hasOwn(o, "sessionExpiry")) s.sessionExpiry = Number(o.sessionExpiry) || 0;
    if (Object.hasOwn(o, "userProps")) s.userProps = typeof o.userProps === "string" ? o.userProps : JSON.stringify(o.userProps);
    if (Object.hasOwn(o, "username")) s.username = String(o.username ?? "");
    if (Object.hasOwn(o, "password")) s.password = String(o.password ?? "");
    for (const w of ["birth", "close", "will"] as const) {
      if (!Object.hasOwn(o, w)) continue;
      const m = (o[w] && typeof o[w] === "object" ? o[w] : {}) as Record<string, unknown>;
      s[w] = { topic: typeof m.topic === "string" ? m.topic : "", payload: m.payload == null ? "" : typeof m.payload === "string" ? m.payload : JSON.stringify(m.payload), qos: Number(m.qos) || 0, retain: m.retain === true || m.retain === "true", props: (m.properties && typeof m.properties === "object" ? m.properties : {}) as Record<string, unknown> };
    }
    if (s.url === "" || s.url === undefined) delete s.url;
    // A connect action pointing the connection at another host: the credentials are read again for
    // that host, so a secret allowed only for the configured broker never goes there (SPEC §14).
    const host = brokerHost(brokerUrl(s));
    if (!s.builtIn && host !== brokerHost(brokerUrl(base))) {
      const there = this.env.settings(host);
      if (!Object.hasOwn(o, "username")) s.username = there.username;
      if (!Object.hasOwn(o, "password")) s.password = there.password;
      if (there.tls) s.tls = there.tls;
      else delete s.tls;
    }
    // Node-RED: no client id, then a clean session.
    if (!s.cleansession && !s.clientid) s.cleansession = true;
    return s;
  }

  /** The connect action's broker overrides (Node-RED's setOptions(msg.broker)). */
  setOptions(opts: Record<string, unknown>) {
    this.overrides = { ...this.overrides, ...opts };
    delete this.overrides.force;
    this.current = this.settings();
  }

  register(user: MqttUser) {
    this.users.set(user.id, user);
    if (this.users.size === 1 && this.current.autoConnect) {
      // Its failure is each user's error already (failConnect).
      void this.connect().catch(() => undefined);
      setTimeout(() => this.updateStatus(), 1);
    } else if (this.connecting) {
      // Node-RED's nodes all register in their constructors, within the tick of the first one's
      // connect, so each shows "connecting"; an mqtt-in here registers when its flow starts, which
      // on a busy server may be after that tick: it is told now.
      user.status(CONNECTING);
    } else if (!this.connected && this.lastError !== undefined) {
      // The connection failed before this node came (an address the outbound rules refuse, a bad
      // URL): it is this node's error too, or only the first node of a flow would say why.
      user.status(DISCONNECTED);
      user.log.error(new Error(this.lastError));
    }
  }

  async deregister(user: MqttUser, autoDisconnect: boolean) {
    user.status(DISCONNECTED);
    this.users.delete(user.id);
    // Reads paused for this user's flow go on: it is gone.
    for (const release of this.pausedBy.get(user.id) ?? []) release();
    this.pausedBy.delete(user.id);
    if (autoDisconnect && !this.closing && this.connected && this.users.size === 0) await this.disconnect();
  }

  canConnect() {
    return !this.connected && !this.connecting;
  }

  private setStatus(status: NodeStatus) {
    for (const u of this.users.values()) u.status(status);
  }

  updateStatus() {
    this.setStatus(this.connecting ? CONNECTING : this.connected ? CONNECTED : DISCONNECTED);
  }

  /** Connects (once connected, the returned promise settles); a connection already under way is left as it is. */
  connect(): Promise<void> {
    if (!this.canConnect()) return this.connected ? Promise.resolve() : new Promise((resolve, reject) => this.connectWaiters.push({ resolve, reject }));
    const waiting = new Promise<void>((resolve, reject) => this.connectWaiters.push({ resolve, reject }));
    this.closing = false;
    this.connecting = true;
    this.setStatus(CONNECTING);
    this.serverProperties = {};
    try {
      // Throws when a ${NAME} in a number field is unset or not a number (runtime/number-or-variable.ts).
      this.current = this.settings();
    } catch (err) {
      this.failConnect(err, DISCONNECTED);
      return waiting;
    }
    if (this.current.builtIn) this.connectBuiltIn();
    else {
      try {
        this.connectClient();
      } catch (err) {
        this.failConnect(err, DISCONNECTED);
      }
    }
    return waiting;
  }

  /** A connection that cannot be made: each user is told (status and error), and each caller of connect(). */
  private failConnect(err: unknown, status: NodeStatus) {
    this.connecting = false;
    this.lastError = typeof (err as { message?: unknown } | null)?.message === "string" ? (err as Error).message : String(err);
    this.setStatus(status);
    for (const u of this.users.values()) u.log.error(err);
    for (const w of this.connectWaiters.splice(0)) w.reject(err);
  }

  private onConnected() {
    this.closing = false;
    this.connecting = false;
    this.connected = true;
    this.topicAliases = {};
    this.lastError = undefined;
    this.reconnectDelay = this.env.reconnect?.firstMs ?? 1000;
    this.settleUntil = !this.current.builtIn && !this.current.cleansession ? performance.now() + SESSION_SETTLE_MS : 0;
    for (const w of this.connectWaiters.splice(0)) w.resolve();
    this.setStatus(CONNECTED);
    for (const byRef of this.subscriptions.values()) for (const sub of byRef.values()) this.subscribeNow(sub);
    const birth = lwtMessage(this.current.birth, this.v5(), false);
    if (birth) setTimeout(() => void this.publish(birth).catch((err) => this.env.log?.(`birth message: ${String(err)}`)), 1);
  }

  private connectBuiltIn() {
    if (!this.env.builtInMqtt) {
      this.failConnect(new Error("the built-in MQTT broker is not available on this server"), { fill: "red", shape: "ring", text: "built-in broker not available" });
      return;
    }
    this.builtInLive = true;
    this.builtInSubs.clear();
    this.onConnected();
  }

  private clientOptions(s: BrokerSettings): IClientOptions {
    const v5 = s.protocolVersion === 5;
    const options: IClientOptions = {
      username: s.username || undefined,
      password: s.password || undefined,
      keepalive: s.keepalive,
      clean: s.cleansession,
      clientId: s.clientid ? (s.cleansession ? `${s.clientid}-${s.clientSuffix}` : s.clientid) : `flowplane_${Math.random().toString(16).slice(2, 10)}_${s.clientSuffix}`,
      reconnectPeriod: this.reconnectDelay,
      // mqtt.js logs every packet through \`debug\`: even switched off, a call and a check per packet.
      log: () => undefined,
      connectTimeout: 10_000,
      // Node-RED resubscribes itself on each connect (its stored subscriptions), so mqtt.js must not.
      resubscribe: false,
    };
    if (s.protocolVersion === 3) {
      options.protocolId = "MQIsdp";
      options.protocolVersion = 3;
    } else if (v5) {
      options.protocolVersion = 5;
      const properties: Record<string, unknown> = { requestResponseInformation: true, requestProblemInformation: true };
      if (s.userProps && /^ *{/.test(s.userProps)) {
        try {
          setUserProperties(JSON.parse(s.userProps), properties);
        } catch {
          // not JSON: none, as Node-RED
        }
      }
      if (s.sessionExpiry) setIntProp({ sessionExpiryInterval: s.sessionExpiry }, properties, "sessionExpiryInterval");
      options.properties = properties as IClientOptions["properties"];
    } else options.protocolVersion = 4;
    const will = lwtMessage(s.will, v5, true);
    if (will) {
      const payload = will.payload;
      options.will = { topic: will.topic, payload: typeof payload === "string" ? Buffer.from(payload) : payload, qos: will.qos, retain: will.retain, ...(v5 && will.properties ? { properties: will.properties } : {}) } as IClientOptions["will"];
    }
    return options;
  }

  private connectClient() {
    const s = this.current;
    const url = new URL(brokerUrl(s));
    const protocol = url.protocol.replace(/:$/, "");
    if (!["mqtt", "mqtts", "tcp", "ssl", "tls", "ws", "wss"].includes(protocol)) throw new Error(`unsupported broker URL scheme ${protocol}:`);
    const secure = ["mqtts", "ssl", "tls", "wss"].includes(protocol);
    const host = bareHostname(url);
    const port = url.port ? Number(url.port) : protocol.startsWith("ws") ? (secure ? 443 : 80) : secure ? 8883 : 1883;
    const outbound = this.env.outbound;
    // A literal address never goes through lookup: checked here (throws for a blocked one).
    outbound?.checkHost(host);
    const lookup = outbound?.lookup;
    const tlsOptions: tls.ConnectionOptions = { ...(s.usetls && s.tls ? s.tls : {}) };
    if (tlsOptions.rejectUnauthorized === undefined) tlsOptions.rejectUnauthorized = s.verifyservercert;
    const options = this.clientOptions(s);
    // mqtt.js passes on only stream errors with a code: a refused address (the outbound rules) has none.
    const watched = <S extends NodeJS.EventEmitter>(stream: S, owner: MqttClient): S => {
      // mqtt.js waits for 'drain' once per publish written while the socket is full.
      (stream as unknown as { setMaxListeners?(n: number): void }).setMaxListeners?.(0);
      stream.on("error", (err: Error & { code?: string }) => {
        if (!err.code && this.client === owner) this.reportError(err);
      });
      return stream;
    };
    const builder = (client: MqttClient) => watched(build(client), client);
    const build = (client: MqttClient) => {
      if (protocol.startsWith("ws")) {
        const wsOpts = { ...client.options, protocol: secure ? "wss" : "ws", hostname: host, host, port, path: `${url.pathname}${url.search}`, wsOptions: { ...(lookup ? { lookup } : {}), ...(secure ? tlsOptions : {}) } };
        return mqttWs().streamBuilder(client, wsOpts as never);
      }
      if (secure) {
        const servername = tlsOptions.servername || (net.isIP(host) ? undefined : host);
        return tls.connect({ ...tlsOptions, host, port, ...(servername ? { servername } : {}), ...(lookup ? { lookup } : {}) });
      }
      return net.connect({ host, port, ...(lookup ? { lookup } : {}) });
    };
    if (this.client) {
      this.client.removeAllListeners();
      this.client.end(true);
    }
    this.dropWaiting();
    const client = new (mqttClient().MqttClient)(builder, options);
    this.client = client;
    client.setMaxListeners(0);
    // Backpressure (SPEC §20): a received publish is acknowledged (QoS 1/2) and the next one read only
    // once every flow using this connection can take more.
    client.handleMessage = (packet, callback) => {
      const held = this.unmatched.get(packet);
      if (!held) return this.whenUsersReady(() => callback());
      this.unmatched.delete(packet);
      this.waitForSubscriber(held.topic, held.payload, packet, () => this.whenUsersReady(() => callback()));
    };
    client.on("connect", (connack) => {
      if (client !== this.client) return;
      if (this.v5() && connack?.properties && typeof connack.properties === "object") {
        const p = connack.properties as Record<string, unknown>;
        const sp = this.serverProperties;
        setIntProp(p, sp, "topicAliasMaximum", 0);
        setIntProp(p, sp, "receiveMaximum", 0);
        setIntProp(p, sp, "sessionExpiryInterval", 0, 0xffffffff);
        setIntProp(p, sp, "maximumQoS", 0, 2);
        setBoolProp(p, sp, "retainAvailable", true);
        setBoolProp(p, sp, "wildcardSubscriptionAvailable", true);
        setBoolProp(p, sp, "subscriptionIdentifiersAvailable", true);
        setBoolProp(p, sp, "sharedSubscriptionAvailable");
        setIntProp(p, sp, "maximumPacketSize", 0);
        setIntProp(p, sp, "serverKeepAlive");
        setStrProp(p, sp, "assignedClientIdentifier");
      }
      this.onConnected();
    });
    client.on("message", (topic, payload, packet) => {
      if (!this.dispatch(topic, payload, packet) && performance.now() < this.settleUntil) this.unmatched.set(packet, { topic, payload });
    });
    client.on("reconnect", () => {
      if (client !== this.client) return;
      // A rotated credential (${NAME}) is used by the next attempt, without a redeploy. Settings
      // that no longer read (a port's variable deleted) leave the attempt as it was, said once.
      let now: BrokerSettings;
      try {
        now = this.settings();
      } catch (err) {
        if (this.lastSettingsError !== String(err)) for (const u of this.users.values()) u.log.error(err);
        this.lastSettingsError = String(err);
        this.connecting = true;
        this.setStatus(CONNECTING);
        return;
      }
      this.lastSettingsError = undefined;
      client.options.username = now.username || undefined;
      client.options.password = (now.password || undefined) as never;
      this.connecting = true;
      this.setStatus(CONNECTING);
    });
    client.on("close", () => {
      if (client !== this.client) return;
      // Backoff: each failed attempt waits twice as long, up to the bound; a connect resets it.
      this.reconnectDelay = Math.min(this.reconnectDelay * 2, this.env.reconnect?.maxMs ?? 30_000);
      client.options.reconnectPeriod = this.reconnectDelay;
      if (this.connected) {
        this.connected = false;
        this.setStatus(DISCONNECTED);
      } else if (this.connecting) {
        this.connecting = false;
        this.setStatus(DISCONNECTED);
      }
    });
    client.on("disconnect", () => {
      if (client !== this.client) return;
      this.connected = false;
      this.setStatus(DISCONNECTED);
    });
    client.on("error", (err) => {
      if (client !== this.client) return;
      this.reportError(err);
    });
  }

  /**
   * A connection error, said on the nodes once until the next successful connect (not at every
   * attempt); the client's reconnect handles it.
   */
  private reportError(err: Error) {
    // Never a user or password written in the address (a save moves them to the credentials; a
    // configuration stored before that may still hold them): node errors reach every member.
    const text = `MQTT broker ${brokerUrl(this.current).replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/?#]*@/i, "$1***@")}: ${err.message}`;
    if (text === this.lastError) return;
    this.lastError = text;
    for (const u of this.users.values()) u.log.error(new Error(text));
  }

  /** Runs `fn` once no flow of this connection's mqtt-in nodes is busy (at once when none is). */
  private whenUsersReady(fn: () => void) {
    const busy = [...this.users.values()].filter((u) => u.busy?.() && u.whenReady);
    if (busy.length === 0) return fn();
    let left = busy.length;
    const one = (user: MqttUser) => {
      let done = false;
      const release = () => {
        if (done) return;
        done = true;
        set.delete(release);
        if (--left === 0) this.whenUsersReady(fn);
      };
      const set = this.pausedBy.get(user.id) ?? new Set();
      this.pausedBy.set(user.id, set);
      set.add(release);
      user.whenReady!(release);
    };
    busy.forEach(one);
  }

  /** A persistent session's message nothing here subscribes to yet: held until a subscription matches it, or the settling ends. */
  private waitForSubscriber(topic: string, payload: Buffer, packet: ReceivedPacket, resume: () => void) {
    const timer = setTimeout(() => {
      if (this.waiting?.timer !== timer) return;
      this.waiting = undefined;
      resume();
    }, Math.max(0, this.settleUntil - performance.now()));
    this.waiting = { topic, payload, packet, resume, timer };
  }

  /** The connection that held a waiting message is gone: the broker sends it again on the next (its session keeps it unacknowledged). */
  private dropWaiting() {
    if (this.waiting) clearTimeout(this.waiting.timer);
    this.waiting = undefined;
  }

  /** After a subscription was added: the waiting message goes to the subscriptions matching it now, and reading resumes. */
  private deliverWaiting() {
    const w = this.waiting;
    if (!w || !this.dispatch(w.topic, w.payload, w.packet)) return;
    clearTimeout(w.timer);
    this.waiting = undefined;
    w.resume();
  }

  /** Sends a received message to every matching subscription's handler; false when none matched. */
  private dispatch(topic: string, payload: Buffer, packet: ReceivedPacket): boolean {
    let matched = false;
    const subIds = this.subscriptionIdentifiersAvailable();
    for (const [filter, byRef] of this.subscriptions) {
      for (const sub of byRef.values()) {
        if (!sub.callback) continue;
        const sops = sub.options.properties ?? {};
        const pops = packet.properties ?? {};
        try {
          if (subIds && pops.subscriptionIdentifier && sops.subscriptionIdentifier && !idMatches(pops.subscriptionIdentifier, sops.subscriptionIdentifier)) continue;
          if (matchTopic(filter, topic)) {
            matched = true;
            sub.callback(topic, payload, packet);
          }
        } catch (err) {
          for (const u of this.users.values()) if (u.id === sub.ref) u.log.error(`MQTT subscription handler error: ${String(err)}`);
        }
      }
    }
    return matched;
  }

  async disconnect(): Promise<void> {
    const finish = () => {
      if (this.connected || this.connecting) this.setStatus(DISCONNECTED);
      this.connecting = false;
      this.connected = false;
    };
    if (this.closing) return finish();
    if (this.current.builtIn) {
      const close = lwtMessage(this.current.close, false, false);
      if (this.connected && close) await this.publish(close).catch(() => undefined);
      this.builtInLive = false;
      const subs = [...this.builtInSubs.values()];
      this.builtInSubs.clear();
      await Promise.all(subs.map(async (s) => (await s.catch(() => async () => undefined))().catch(() => undefined)));
      return finish();
    }
    const client = this.client;
    if (!client) return finish();
    this.closing = true;
    this.dropWaiting();
    const close = lwtMessage(this.current.close, this.v5(), false);
    if (this.connected && close) await this.publish(close).catch(() => undefined);
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        client.end(true);
        resolve();
      }, 2000);
      client.end(false, {}, () => {
        clearTimeout(t);
        resolve();
      });
    });
    client.removeAllListeners();
    client.on("error", () => undefined);
    if (this.client === client) this.client = undefined;
    finish();
  }

  subscribe(topic: string, options: Subscription["options"], callback: MessageCallback, ref: string) {
    // Topics this node kept subscribed (autoUnsubscribe off) and no longer wants.
    for (const old of this.candidates.get(ref) ?? []) if (old !== topic) this.unsubscribe(old, ref, true);
    this.candidates.delete(ref);
    const byRef = this.subscriptions.get(topic) ?? new Map<string, Subscription>();
    this.subscriptions.set(topic, byRef);
    // A persistent session's messages stored at the broker carry the identifiers of the connection
    // that subscribed (another instance's, after a failover): numbered by the filter there, not by order.
    if (!this.subscriptionIds.has(topic)) this.subscriptionIds.set(topic, this.current.cleansession ? this.subid++ : stableSubscriptionId(topic));
    const sub: Subscription = { topic, options: { ...options, properties: { ...(options.properties ?? {}), subscriptionIdentifier: this.subscriptionIds.get(topic) } }, ref, callback };
    byRef.set(ref, sub);
    if (this.connected) this.subscribeNow(sub);
    if (this.waiting && matchTopic(topic, this.waiting.topic)) this.deliverWaiting();
  }

  private subscribeNow(sub: Subscription) {
    const options = { ...sub.options, properties: { ...sub.options.properties } };
    if (this.current.builtIn) {
      if (!this.builtInLive || this.builtInSubs.has(sub.topic) || !this.env.builtInMqtt) return;
      const filter = sub.topic;
      const opened = this.env.builtInMqtt.subscribe(
        this.env.organizationId,
        filter,
        { qos: ((options.qos ?? 0) as 0 | 1 | 2), ...(options.nl !== undefined ? { nl: options.nl } : {}), ...(options.rap !== undefined ? { rap: options.rap } : {}), ...(options.rh !== undefined ? { rh: options.rh as 0 | 1 | 2 } : {}) },
        (m) =>
          new Promise<void>((resolve) => {
            for (const s of this.subscriptions.get(filter)?.values() ?? []) s.callback?.(m.topic, m.payload, { qos: m.qos, retain: m.retain, properties: m.properties });
            this.whenUsersReady(resolve);
          }),
      );
      this.builtInSubs.set(filter, opened);
      opened.catch((err) => {
        this.builtInSubs.delete(filter);
        for (const u of this.users.values()) if (u.id === sub.ref) u.log.error(err);
      });
      return;
    }
    if (!this.client) return;
    if (options.properties.subscriptionIdentifier && this.subscriptionIdentifiersAvailable() !== true) delete options.properties.subscriptionIdentifier;
    if (!this.v5()) {
      delete (options as Record<string, unknown>).properties;
      delete options.nl;
      delete options.rap;
      delete options.rh;
    }
    this.client.subscribe(sub.topic, options as never);
  }

  unsubscribe(topic: string, ref: string, removeClientSubscription: boolean) {
    const unsub = removeClientSubscription || this.current.autoUnsubscribe !== false;
    const byRef = this.subscriptions.get(topic);
    if (!byRef) return;
    const sub = byRef.get(ref);
    if (sub) sub.callback = undefined;
    if (!unsub) {
      this.candidates.set(ref, [...(this.candidates.get(ref) ?? []), topic]);
      return;
    }
    byRef.delete(ref);
    if (byRef.size > 0) return;
    this.subscriptions.delete(topic);
    this.subscriptionIds.delete(topic);
    if (this.current.builtIn) {
      const opened = this.builtInSubs.get(topic);
      this.builtInSubs.delete(topic);
      void opened?.then((stop) => stop()).catch(() => undefined);
    } else {
      try {
        this.client?.unsubscribe(topic);
      } catch {
        // as Node-RED: nothing to do
      }
    }
  }

  /**
   * Publishes (Node-RED's brokerConn.publish): payload as text/JSON/bytes, MQTT 5 properties from the
   * message, topic aliases. Rejects with Node-RED's errors; an invalid topic is a warning (`warn`).
   * Nothing is sent while disconnected (as Node-RED).
   */
  publish(msg: Record<string, unknown>): Promise<void> {
    if (!this.connected) return Promise.resolve();
    const payload = msg.payload === null || msg.payload === undefined ? "" : Buffer.isBuffer(msg.payload) ? msg.payload : typeof msg.payload === "object" ? JSON.stringify(msg.payload) : String(msg.payload);
    const options: IClientPublishOptions = { qos: ((msg.qos as number) || 0) as 0 | 1 | 2, retain: (msg.retain as boolean) || false };
    let topic = msg.topic;
    let topicOK = typeof topic === "string" && isValidPublishTopic(topic);
    let properties: Record<string, unknown> | undefined;
    if (this.v5()) {
      const bsp = this.serverProperties;
      const m: Record<string, unknown> = { ...msg };
      if (m.userProperties && typeof m.userProperties !== "object") delete m.userProperties;
      if (Object.hasOwn(m, "topicAlias") && !isNaN(Number(m.topicAlias))) m.topicAlias = parseInt(String(m.topicAlias));
      else delete m.topicAlias;
      properties = {};
      setStrProp(m, properties, "responseTopic");
      setBufferProp(m, properties, "correlationData");
      setStrProp(m, properties, "contentType");
      setIntProp(m, properties, "messageExpiryInterval", 0);
      setUserProperties(m.userProperties, properties);
      setIntProp(m, properties, "topicAlias", 1, (bsp.topicAliasMaximum as number) || 0);
      setBoolProp(m, properties, "payloadFormatIndicator");
      if (topicOK && properties.topicAlias) {
        const alias = properties.topicAlias as number;
        if (!(bsp.topicAliasMaximum && (bsp.topicAliasMaximum as number) >= alias)) return Promise.reject(new Error("Invalid topicAlias"));
        if (this.topicAliases[alias] === topic) topic = "";
        else this.topicAliases[alias] = topic as string;
      } else if (!topic && properties.responseTopic) {
        topic = m.responseTopic;
        topicOK = typeof topic === "string" && isValidPublishTopic(topic);
      }
      options.properties = properties as IClientPublishOptions["properties"];
    }
    if (!topicOK) {
      const error = new Error("Invalid topic specified") as Error & { warn?: boolean };
      error.warn = true;
      return Promise.reject(error);
    }
    if (this.current.builtIn) {
      if (!this.env.builtInMqtt) return Promise.reject(new Error("the built-in MQTT broker is not available on this server"));
      return this.env.builtInMqtt.publish(this.env.organizationId, {
        topic: topic as string,
        payload: Buffer.isBuffer(payload) ? payload : Buffer.from(payload),
        qos: options.qos ?? 0,
        retain: options.retain ?? false,
        ...(properties ? { properties } : {}),
      });
    }
    const client = this.client;
    if (!client) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const stream = client.stream as SocketLike | undefined;
      // A QoS 0 publish is done once written to the socket, or once it drains when full; mqtt.js
      // then waits with a 'drain' listener per message, and removing thousands of them one by one
      // (in order) showed in the QoS 0 profile. While the socket is full, the message is given to
      // mqtt.js at once (written in order, batched as before) and waits behind one listener here.
      if (options.qos === 0 && stream?.writableNeedDrain && !stream.destroyed) {
        if (client.disconnecting) return reject(new Error("client disconnecting"));
        client.publish(topic as string, payload, options);
        this.afterDrain(stream, resolve);
        return;
      }
      client.publish(topic as string, payload, options, (err?: Error) => (err ? reject(err) : resolve()));
    });
  }

  /** Runs `done` when the socket has drained (or closed): one listener for every waiting publish. */
  private afterDrain(stream: SocketLike, done: () => void) {
    if (this.drainingStream !== stream) {
      this.drainingStream = stream;
      this.drainWaiters = [];
      const release = () => {
        stream.off("drain", release);
        stream.off("close", release);
        if (this.drainingStream === stream) this.drainingStream = undefined;
        for (const waiter of this.drainWaiters.splice(0)) waiter();
      };
      stream.on("drain", release);
      stream.on("close", release);
    }
    this.drainWaiters.push(done);
  }

  /** Publishes a received packet's type for tests: the client's id (as the broker saw it). */
  clientId(): string | undefined {
    return this.client?.options.clientId;
  }
}

/**
 * A subscription identifier from the topic filter alone (FNV-1a, in MQTT's range 1..268,435,455), so
 * every instance taking over a persistent session numbers its subscriptions as the one before. Two
 * filters with one number both pass the identifier check, and the topic match decides.
 */
export function stableSubscriptionId(filter: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(filter, "utf8")) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return (hash % 268_435_455) + 1;
}

/** What the publish queue reads of mqtt.js's stream (a socket, a TLS socket or a WebSocket stream). */
type SocketLike = NodeJS.EventEmitter & { writableNeedDrain?: boolean; destroyed?: boolean };

function idMatches(packetIds: unknown, id: unknown): boolean {
  return Array.isArray(packetIds) ? packetIds.includes(id) : packetIds === id;
}

export type { IPublishPacket };
