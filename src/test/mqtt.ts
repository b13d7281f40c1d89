/**
 * The built-in MQTT broker on real ports for tests: the app's /mqtt upgrade on an HTTP server of its
 * own (as the app server, http/app-server.ts, routes it) and its TCP listener, and a real MQTT
 * client (the `mqtt` package) that resolves what a device would see: CONNACK codes, SUBACK codes,
 * messages, closes.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import mqtt, { type IClientOptions, type IConnackPacket, type IDisconnectPacket, type MqttClient } from "mqtt";
import mqttPacket, { type Packet } from "mqtt-packet";
import { Redis } from "ioredis";
import WebSocket from "ws";
import { afterAll, beforeAll } from "vitest";
import type { AppServices } from "@/server/app-services";
import type { FileApp } from "./set-up-test-app";

export interface MqttEndpoints {
  /** ws://127.0.0.1:<port>/mqtt */
  ws: string;
  /** mqtt://127.0.0.1:<port> */
  tcp: string;
  close(): Promise<void>;
}

export async function serveMqtt(app: AppServices): Promise<MqttEndpoints> {
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  // An upgraded socket leaves the server's HTTP bookkeeping (closeAllConnections does not reach it)
  // but still holds server.close() open: a test that failed with a WebSocket client connected would
  // hang in its clean-up, its own error lost to the test's timeout (a CI run did). Kept and destroyed.
  const upgraded = new Set<Duplex>();
  server.on("upgrade", (req, socket, head) => {
    upgraded.add(socket);
    socket.once("close", () => upgraded.delete(socket));
    if (new URL(req.url ?? "/", "http://localhost").pathname === "/mqtt") app.mqtt.handleUpgrade(req, socket, head);
    else socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const tcpPort = await app.mqtt.listen({ port: 0, host: "127.0.0.1" });
  return {
    ws: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/mqtt`,
    tcp: `mqtt://127.0.0.1:${tcpPort}`,
    close: async () => {
      server.closeAllConnections();
      for (const socket of upgraded) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The built-in broker's endpoints for a whole test file, over its setUpTestApp: served in a
 * beforeAll; every client made with `connect` is ended, and the endpoints closed, in an afterAll
 * (before the app). Read `.ws` and `.tcp` inside tests.
 */
export function setUpTestMqtt(fileApp: FileApp): { readonly ws: string; readonly tcp: string; connect(url: string, options?: IClientOptions): Promise<TestMqttClient> } {
  let endpoints: MqttEndpoints | undefined;
  const clients: TestMqttClient[] = [];
  beforeAll(async () => {
    endpoints = await serveMqtt(fileApp.app);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    await endpoints?.close();
  });
  const started = () => {
    if (!endpoints) throw new Error("setUpTestMqtt: the broker is not served yet (read it inside a test)");
    return endpoints;
  };
  return {
    get ws() {
      return started().ws;
    },
    get tcp() {
      return started().tcp;
    },
    async connect(url, options) {
      const client = await connectMqtt(url, options);
      clients.push(client);
      return client;
    },
  };
}

export interface Received {
  topic: string;
  payload: string;
  retain: boolean;
  qos: number;
  /** MQTT 5 properties as received (user properties, content type, …). */
  properties?: Record<string, unknown>;
}

export interface TestMqttClient {
  client: MqttClient;
  /** The CONNACK it was accepted with (MQTT 5: its properties). */
  connack: IConnackPacket;
  /** DISCONNECT packets the broker sent (MQTT 5). */
  disconnects: IDisconnectPacket[];
  messages: Received[];
  /** Resolves with the first message matching `accept` (received already or later). */
  next(accept?: (m: Received) => boolean, timeoutMs?: number): Promise<Received>;
  /** Resolves when the connection closes. */
  closed: Promise<void>;
  subscribe(filter: string | string[], qos?: 0 | 1 | 2): Promise<number[]>;
  publish(topic: string, payload: string | Buffer, options?: { qos?: 0 | 1 | 2; retain?: boolean; properties?: Record<string, unknown> }): Promise<void>;
  end(): Promise<void>;
}

/** How long the helpers wait for an acknowledgement (SUBACK, PUBACK / PUBCOMP, the end). */
const ACK_WAIT_MS = 10_000;

/**
 * Connects and resolves once CONNACK accepted; rejects with the client's error (its `code` is the
 * CONNACK return code) when refused.
 */
export function connectMqtt(url: string, options: IClientOptions = {}): Promise<TestMqttClient> {
  return new Promise((resolve, reject) => {
    const startedAt = Date.now();
    // When the socket connected (TCP) or the WebSocket opened, for a failure's message: the broker
    // logs a CONNECT it holds over 5 s; a timeout without that line and without a connection is the
    // transport's.
    let transport = url.startsWith("ws") ? "WebSocket not open" : "TCP not connected";
    const createWebsocket = (wsUrl: string, protocols: string[], opts: IClientOptions) => {
      const socket = new WebSocket(wsUrl, protocols, opts.wsOptions as WebSocket.ClientOptions);
      socket.once("open", () => (transport = `WebSocket open after ${Date.now() - startedAt} ms`));
      socket.once("close", (code) => (transport = `WebSocket closed (${code}) after ${Date.now() - startedAt} ms`));
      return socket;
    };
    const client = mqtt.connect(url, { reconnectPeriod: 0, connectTimeout: 10_000, username: "device", createWebsocket, ...options });
    if (client.stream instanceof net.Socket) client.stream.once("connect", () => (transport = `TCP connected after ${Date.now() - startedAt} ms`));
    const messages: Received[] = [];
    const disconnects: IDisconnectPacket[] = [];
    client.on("disconnect", (packet) => disconnects.push(packet));
    const waiters: { accept: (m: Received) => boolean; resolve: (m: Received) => void }[] = [];
    let closedResolve!: () => void;
    const closed = new Promise<void>((r) => (closedResolve = r));
    client.on("close", () => closedResolve());
    client.on("message", (topic, payload, packet) => {
      const m: Received = { topic, payload: payload.toString(), retain: packet.retain, qos: packet.qos, ...(packet.properties ? { properties: packet.properties as Record<string, unknown> } : {}) };
      messages.push(m);
      for (const w of [...waiters]) {
        if (w.accept(m)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(m);
        }
      }
    });
    /**
     * An acknowledgement the broker owes, waited for at most ACK_WAIT_MS: a lost one fails the test
     * there, naming the client and what it waited for, instead of at the test's own timeout.
     */
    function bounded<T>(what: string, start: (resolve: (value: T) => void, reject: (err: Error) => void) => void): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`client id ${JSON.stringify(options.clientId ?? "")} at ${url} waited ${ACK_WAIT_MS} ms for ${what}`)), ACK_WAIT_MS);
        start(
          (value) => (clearTimeout(timer), resolve(value)),
          (err) => (clearTimeout(timer), reject(err)),
        );
      });
    }
    client.once("connect", (connack) => {
      resolve({
        client,
        connack,
        disconnects,
        messages,
        closed,
        next(accept = () => true, timeoutMs = 5_000) {
          const found = messages.find(accept);
          if (found) return Promise.resolve(found);
          return new Promise((res, rej) => {
            const w = { accept, resolve: (m: Received) => (clearTimeout(timer), res(m)) };
            const timer = setTimeout(() => {
              waiters.splice(waiters.indexOf(w), 1);
              rej(new Error(`no matching message within ${timeoutMs} ms (got ${JSON.stringify(messages)})`));
            }, timeoutMs);
            waiters.push(w);
          });
        },
        subscribe(filter, qos = 0) {
          // The SUBACK's codes as sent (mqtt.js reports a refusal as an error carrying the packet).
          return bounded(`SUBACK for ${JSON.stringify(filter)}`, (res, rej) =>
            client.subscribe(filter, { qos }, (err, _granted, packet) => {
              const codes = (packet as { granted?: number[] } | undefined)?.granted;
              if (codes) res(codes);
              else rej(err ?? new Error("no SUBACK"));
            }),
          );
        },
        publish(topic, payload, publishOptions = {}) {
          const properties = publishOptions.properties ? { properties: publishOptions.properties } : {};
          const qos = publishOptions.qos ?? 0;
          return bounded(`the publish to ${topic} (QoS ${qos}) to complete`, (res, rej) => client.publish(topic, payload, { qos, retain: publishOptions.retain ?? false, ...properties }, (err) => (err ? rej(err) : res())));
        },
        end() {
          return bounded("the connection to end", (res) => client.end(false, {}, () => res()));
        },
      });
    });
    client.once("error", (err) => {
      client.end(true);
      // Which connection failed (a test makes many): the message names it, the code stays.
      err.message = `${err.message} (client id ${JSON.stringify(options.clientId ?? "")} at ${url}; ${transport}; after ${Date.now() - startedAt} ms)`;
      reject(err);
    });
  });
}

/** The CONNACK code a refused connection got (mqtt.js puts it on the error's `code`). */
export async function refusedWith(url: string, options: IClientOptions): Promise<number | string | undefined> {
  try {
    const c = await connectMqtt(url, options);
    await c.end();
    return "accepted";
  } catch (err) {
    return (err as { code?: number | string }).code;
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * For a test file about what the broker logs: an app of its own whose log lines at `warn` and above
 * are kept, parsed, in `lines`; the broker served; an organization with a device key (`key`).
 * Made in a beforeAll, closed in an afterAll; read the fields inside tests.
 */
export function setUpLoggedBroker(): { readonly app: AppServices; readonly mq: MqttEndpoints; readonly key: string; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  let app: AppServices | undefined;
  let mq: MqttEndpoints | undefined;
  let key = "";
  beforeAll(async () => {
    const [{ createLogger }, { createTestApp, restClient }, { signUp }] = await Promise.all([import("@/server/logger"), import("./app"), import("./accounts")]);
    app = await createTestApp({}, { logger: createLogger({ level: "warn" }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }) });
    mq = await serveMqtt(app);
    const owner = await signUp(restClient(app));
    const created = await restClient(app)("POST", "/api-keys", { token: owner.accessToken, body: { name: "sensor", kind: "device" } });
    if (created.status !== 201) throw new Error(`the device key could not be made: ${created.text}`);
    key = created.body.secret as string;
  });
  afterAll(async () => {
    await mq?.close();
    await app?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("setUpLoggedBroker: not started yet (read it inside a test)");
    return value;
  };
  return {
    lines,
    get app() {
      return started(app);
    },
    get mq() {
      return started(mq);
    },
    get key() {
      return started(key || undefined);
    },
  };
}

/**
 * An MQTT 3.1.1 connection over TCP that sends only what the test writes (mqtt-packet), so that the
 * test decides which acknowledgements go, and records every packet it gets. Connects with `clean`
 * (false by default) and resolves once its CONNACK accepted.
 */
export async function rawMqttClient(url: string, clientId: string, password: string, clean = false) {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  const packets: Packet[] = [];
  const parser = mqttPacket.parser({ protocolVersion: 4 });
  parser.on("packet", (p: Packet) => packets.push(p));
  socket.on("data", (d) => parser.parse(d));
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  const send = (packet: Packet) => socket.write(mqttPacket.generate(packet, { protocolVersion: 4 }));
  /** The first packet of `cmd` received (taken from `packets`), waiting up to `timeoutMs`. */
  const next = async (cmd: string, timeoutMs = 5_000): Promise<Packet & { messageId?: number }> => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const i = packets.findIndex((p) => p.cmd === cmd);
      if (i >= 0) return packets.splice(i, 1)[0]!;
      if (Date.now() > until) throw new Error(`no ${cmd} within ${timeoutMs} ms (got ${packets.map((p) => p.cmd).join(", ") || "nothing"})`);
      await sleep(20);
    }
  };
  send({ cmd: "connect", protocolId: "MQTT", protocolVersion: 4, clean, clientId, keepalive: 0, username: "device", password: Buffer.from(password) });
  const connack = (await next("connack")) as Packet & { returnCode: number; sessionPresent: boolean };
  if (connack.returnCode !== 0) throw new Error(`CONNACK ${connack.returnCode}`);
  return { packets, send, next, connack, closed, end: async () => (socket.end(), await closed) };
}

/**
 * A store key prefix of its own for a test app (`storeKeyPrefix`), and with REDIS_URL a connection
 * to read the keys the app writes under it (the broker's are `<prefix>mqtt:…`); `close()` (an
 * afterAll, after the app's) deletes them all and disconnects. Without REDIS_URL, `redis` is undefined.
 */
export function prefixRedis() {
  const prefix = `fp-test-${randomBytes(6).toString("hex")}:`;
  const redis = process.env.REDIS_URL ? new Redis(process.env.REDIS_URL) : undefined;
  return {
    prefix,
    redis,
    async close() {
      if (!redis) return;
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    },
  };
}

