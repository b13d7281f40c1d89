/**
 * The built-in MQTT broker (SPEC §20, src/server/mqtt/README.md "Built-in MQTT broker"): Aedes with our
 * authentication and one topic space per organization.
 *
 * - Transports: WebSocket at /mqtt on the app's port (handleUpgrade), TCP or TLS on MQTT_PORT (listen).
 * - A client's password is a `device_` or `service_` API key; the key's organization is its space:
 *   topics become `<org>/<topic>` and client ids `<org>:<id>` inside the broker (topics.ts), and
 *   every delivery is checked to be in the receiver's space before it leaves (authorizeForward).
 * - MQTT 3.1, 3.1.1 and 5 (Aedes 2). Scopes `mqtt:publish` / `mqtt:subscribe` decide; refusals
 *   use each version's codes: 3.1.1 CONNACK 4 wrong key, 5 not allowed, 3 unavailable or over the
 *   connection limit, 2 bad client id, SUBACK 0x80, a refused PUBLISH closes the connection; MQTT 5
 *   the reason codes (reason-codes.ts: 0x86, 0x87, 0x88, 0x97, 0x9F, 0x85 on CONNACK, 0x87, 0x8F,
 *   0x97, 0x9E on SUBACK, 0x87, 0x90, 0x97 on PUBACK, DISCONNECT 0x95), the connection stays.
 * - Revocation: the access-change and key-revocation channels the /ws hub listens to (§6) close
 *   the connections of a key that no longer authenticates, on every instance, within a second.
 * - Durability: the embedded backend writes retained messages and persistent sessions through to
 *   PostgreSQL (durable-persistence.ts); with Redis, aedes-persistence-redis keeps them in Redis
 *   and mqemitter-redis carries every message to every instance, so the instances are one broker.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type http from "node:http";
import net from "node:net";
import { Readable, type Duplex } from "node:stream";
import tls from "node:tls";
import { Aedes, type AedesPublishPacket, type Client, type ConnectPacket, type PublishPacket, type Subscription } from "aedes";
import mqemitter from "mqemitter";
import mqttPacket from "mqtt-packet";
// The Redis side (mqemitter-redis, aedes-persistence-redis, ioredis) is loaded by start() when the
// broker has Redis: the embedded defaults never load it (docs/BENCHMARKS.md, idle memory).
import type RedisPersistenceBase from "aedes-persistence-redis/asyncPersistence.js";
import type { AedesPacket } from "aedes-packet";
import type { Redis } from "ioredis";
import { WebSocketServer, createWebSocketStream } from "ws";
import type { AuthDeps } from "../auth/auth-deps";
import { resolvePrincipal, type ApiKeyPrincipal } from "../auth/principal";
import { isApiKeySecret } from "../auth/api-key-auth";
import type { AccessChangedMessage } from "../auth/access-cache";
import { ACCESS_CHANGED_CHANNEL, API_KEY_REVOKED_CHANNEL } from "../auth/revocation-channels";
import { authLimiters } from "../auth/limits";
import { PendingPerIp, refuseUpgrade } from "../realtime/admission";
import { peerAddress } from "../http/client-ip";
import { AppError, toAppError } from "../errors";
import type { PrismaClient } from "../db";
import type { Logger } from "../logger";
import type { KeyValueStore } from "../store";
import { durableSubscription, type DurableSubscription } from "../store/durable-subscription";
import type { BuiltInMqtt, BuiltInMqttMessage } from "../runtime/types";
import { DurablePersistence, oncePerClient, storedTopicPacket, type StoredSession } from "./durable-persistence";
import { trackPacketIds } from "./packet-ids";
import { guardPacketSize } from "./size-guard";
import { AckRewriter, ReasonCode } from "./reason-codes";
import { createPublishRate } from "./publish-rate";
import { ONLINE_RENEW_MS, ONLINE_TTL_MS, onlineClientKey, onlineMqttClients, onlineSetKey, type OnlineEntry } from "./online";
import { checkPublishTopic, checkSubscribeFilter, externalTopic, internalClientId, internalTopic, splitClientId, splitTopic } from "./topics";
import { SESSION_SWEEP_MS, SessionExpiryLedger, type DueSession } from "./session-expiry";
import { SubscriptionGrants } from "./subscription-grants";
import { ReplayGuard, withoutSent } from "./replay-guard";
import { untilAnnounced } from "./broadcast-wait";
import { memoryQueuedBytes, redisQueuedBytes, type QueuedBytes } from "./queued-bytes";
import { memoryRetainedQuota, redisRetainedQuota, type RetainedQuota } from "./retained-quota";

export interface MqttLimits {
  connectionsPerOrganization: number;
  subscriptionsPerClient: number;
  messageBytes: number;
  publishesPerSecondPerOrganization: number;
  /** QoS 1/2 messages one persistent session may have waiting; more are dropped for it. */
  queuedPerSession: number;
  /** Payload bytes one organization's persistent sessions may have queued, all together (queued-bytes.ts); more are dropped for them. */
  queuedBytesPerOrganization: number;
  /** Seconds an MQTT 3.1.1 persistent session is kept after its client leaves; 0: until it returns. */
  persistentSessionExpirySeconds: number;
  /** Sessions one organization may have: its connected clients' and the persistent ones kept while away. */
  sessionsPerOrganization: number;
  /** Retained messages one organization may keep, and their payloads' bytes (retained-quota.ts). */
  retainedPerOrganization: number;
  retainedBytesPerOrganization: number;
  /** Connections one client address may have open before their CONNECT is admitted (TCP, TLS and WebSocket together); more are refused at once. */
  connectingPerAddress: number;
}

export const DEFAULT_MQTT_LIMITS: MqttLimits = {
  connectionsPerOrganization: 100,
  subscriptionsPerClient: 100,
  messageBytes: 256 * 1024,
  publishesPerSecondPerOrganization: 1000,
  queuedPerSession: 1000,
  queuedBytesPerOrganization: 64 * 1024 * 1024,
  persistentSessionExpirySeconds: 0,
  sessionsPerOrganization: 1000,
  retainedPerOrganization: 10_000,
  retainedBytesPerOrganization: 64 * 1024 * 1024,
  connectingPerAddress: 20,
};

export interface MqttBrokerOptions {
  prisma: PrismaClient;
  store: KeyValueStore;
  logger: Logger;
  instanceId: string;
  limits?: Partial<MqttLimits>;
  /** With Redis: every instance is one broker (shared messages, retained messages and sessions). */
  redis?: { url: string; keyPrefix: string };
}

/** Where MQTT over TCP (and TLS) listens: MQTT_PORT, with MQTT_TLS_CERT/KEY when set. */
export interface MqttListenOptions {
  port: number;
  host?: string;
  /** PEM text, or the path of a PEM file, for each. */
  tls?: { cert: string; key: string };
}

export interface MqttBroker {
  /** What flows use (RuntimeServices.builtInMqtt). */
  readonly builtIn: BuiltInMqtt;
  /** Starts the broker; `auth` is the app (authentication and the access cache). */
  start(auth: AuthDeps): Promise<void>;
  /**
   * A WebSocket upgrade at /mqtt. `clientIp`: the client's address as the server resolves it
   * (behind trusted proxies, from X-Forwarded-For); else the socket's peer. Never a header's word.
   */
  handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer, clientIp?: string): void;
  /** Serves MQTT over TCP (or TLS) on a port; resolves to the port bound. */
  listen(options: MqttListenOptions): Promise<number>;
  /** Connected clients on this instance. */
  readonly clientCount: number;
  /**
   * Ends the MQTT 5 sessions whose expiry passed while no instance held their timer (restarts,
   * kill -9); it runs at start and every SESSION_SWEEP_MS on its own.
   */
  sweepExpiredSessions(): Promise<void>;
  /**
   * The organization's persistent sessions (GET /mqtt/sessions): kept while their clients are
   * away, or held by a connection that leaves its session behind; with their queues and the
   * organization's queued bytes.
   */
  sessions(organizationId: string): Promise<MqttSessions>;
  /**
   * Ends the session of `clientId` (the organization's own id), on whichever instance holds it:
   * its connection closes (MQTT 5: DISCONNECT 0x98, administrative action; its will is published
   * as for any connection the server ends), its subscriptions and queued messages are dropped.
   * False when the organization has no such session or connection.
   */
  endSession(organizationId: string, clientId: string): Promise<boolean>;
  /**
   * An organization was deleted: each of its sessions ends as `endSession` ends one (connections
   * closed, subscriptions and queues dropped, queued bytes given back) and its retained messages go.
   * A deleted organization's keys are revoked, so nothing of it comes back.
   */
  retire(organizationId: string): Promise<void>;
  close(): Promise<void>;
}

/** One persistent session of an organization, as GET /mqtt/sessions shows it. */
export interface MqttSessionInfo {
  /** The organization's own client id. */
  clientId: string;
  /** Its client is connected now, on any instance. */
  connected: boolean;
  /** The organization's own filters. */
  subscriptions: Array<{ topic: string; qos: number }>;
  /** Messages queued for it (sent or not, not yet acknowledged). */
  queuedMessages: number;
  /** Their payload bytes (the organization's queued-bytes count). */
  queuedBytes: number;
  /** When it ends unless its client returns first (away, with an expiry); null: no deadline now. */
  expiresAt: Date | null;
}

export interface MqttSessions {
  sessions: MqttSessionInfo[];
  /** The organization's queued bytes, all its sessions together, and their limit. */
  queuedBytes: number;
  queuedBytesLimit: number;
  sessionsLimit: number;
  queuedPerSessionLimit: number;
}

/** The channel on which an instance asks the one holding a client's connection to end its session. */
export const MQTT_SESSION_END_CHANNEL = "mqtt.sessions.end";
/** How long endSession waits for another instance to close the client's connection before it drops the session anyway. */
const END_WAIT_MS = 5_000;
/** The store's mark that an id's session is being ended (CONNECTs refused meanwhile); it outlives a caller that dies by this much. */
const ENDING_TTL_MS = 15_000;
const endingKey = (organizationId: string, clientId: string) => `mqtt:ending:${organizationId}:${clientId}`;

/** A client's standing, from its CONNECT on. */
interface ClientState {
  organizationId: string;
  clientId: string;
  secret: string;
  principal: ApiKeyPrincipal;
  connectionId: string;
  connectedAt: string;
  lastSeen: number;
  /** Internal filters it holds (for the per-client limit). */
  filters: Set<string>;
  /** Its access ended: its will is not published. */
  revoked: boolean;
  expiryTimer?: NodeJS.Timeout;
  /** MQTT 5, connected with an empty client id: the CONNACK tells it the one it was given. */
  assignedClientId: boolean;
  /** Its session's expiry after it leaves (OnlineEntry.session_expiry_seconds: 0 for none). */
  sessionExpirySeconds: number;
  /** Its session is kept after it leaves (3.1.1 clean session false; MQTT 5 an expiry interval). */
  keepsSession: boolean;
}

/** Where a CONNECT is on its way to the CONNACK. */
interface ConnectProgress {
  step: string;
  /** Cleared by the CONNACK or the connection's close. */
  timer: NodeJS.Timeout;
}

/** A refused CONNECT: 3.1.1's CONNACK return code (answered by `authenticate`) and MQTT 5's reason code. */
interface Refusal {
  returnCode: 2 | 3 | 4 | 5;
  reasonCode: number;
  message: string;
}

/** MQTT 5's reason code for each 3.1.1 CONNACK return code, where we have no better one. */
const V5_CONNACK: Record<Refusal["returnCode"], number> = {
  2: ReasonCode.CLIENT_IDENTIFIER_NOT_VALID,
  3: ReasonCode.SERVER_UNAVAILABLE,
  4: ReasonCode.BAD_USER_NAME_OR_PASSWORD,
  5: ReasonCode.NOT_AUTHORIZED,
};
/** Inbound QoS 2 messages a client may have waiting for their PUBREL (Aedes 1.2's own bound). */
const MAX_INBOUND_QOS2 = 1000;
/** Inbound topic aliases an MQTT 5 client may use (advertised in the CONNACK). */
const TOPIC_ALIAS_MAXIMUM = 100;
const RECHECK_CONCURRENCY = 50;
const CONNECT_TIMEOUT_MS = 10_000;
/** Retry-After of a WebSocket upgrade refused because its address has too many connections waiting for admission. */
const CROWDED_RETRY_AFTER_SEC = 5;
/** A refused MQTT 5 CONNECT's connection, ended after its CONNACK, is destroyed this long after if the peer keeps it open. */
const REFUSED_CLOSE_MS = 2_000;

/**
 * A connection that reads too slowly: once this much waits to be written to it (beyond what the
 * kernel holds), it is closed rather than buffering the organization's traffic. (Aedes also closes
 * one whose socket has not drained for 60 s: kept, as a device on a slow link, GPRS or NB-IoT, may
 * take that long for one large message.)
 */
export const MAX_BUFFERED_BYTES_PER_CONNECTION = 8 * 1024 * 1024;
/**
 * A CONNECT left this long without its CONNACK is logged with the step it waits on (a client gives
 * up after its own connect timeout, 10 s for mqtt.js, 30 s for Paho): an operator learns which
 * part (the key's check, the session's persistence, the write) held it.
 */
export const SLOW_CONNECT_MS = 5_000;
/** A key's expiry is checked this long after it (so it is surely past). */
const EXPIRY_SLACK_MS = 250;
/** How often the online entries are renewed (and last_seen_at written). */
const RENEW_MS = ONLINE_RENEW_MS;

const canPublish = (p: ApiKeyPrincipal) => p.scopes.includes("mqtt:publish");
const canSubscribe = (p: ApiKeyPrincipal) => p.scopes.includes("mqtt:subscribe");

/** A PEM value of MQTT_TLS_CERT / MQTT_TLS_KEY: the text itself, or a file holding it. */
export function readPem(value: string): string {
  return value.trimStart().startsWith("-----BEGIN") ? value : readFileSync(value, "utf8");
}

/** The retained messages the broker's persistence holds under an internal filter. */
function retainedMatching(b: Aedes, filter: string): AsyncIterable<AedesPublishPacket> {
  return (b as unknown as { persistence: { createRetainedStreamCombi(p: string[]): unknown } }).persistence.createRetainedStreamCombi([filter]) as AsyncIterable<AedesPublishPacket>;
}

/** The Redis set naming an organization's sessions (a subset of aedes-persistence-redis's `clients`). */
const orgClientsKey = (organizationId: string) => `org-clients:${organizationId}`;
/**
 * An id into or out of its organization's index as `clients` has it at that moment, in one step
 * (KEYS: `clients`, the index; ARGV: the id): a late add after the session ended, or a removal
 * after another instance stored it again, cannot leave the two apart.
 */
const INDEX_IF_KEPT = `if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return redis.call('SADD', KEYS[2], ARGV[1]) end return 0`;
const UNINDEX_IF_GONE = `if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 0 then return redis.call('SREM', KEYS[2], ARGV[1]) end return 0`;

/**
 * aedes-persistence-redis for our broker: its async generators become the Readables aedes 1.2
 * pipes (retained messages on SUBSCRIBE, queues, wills); packets in flight are stored with their
 * internal topic (storedTopicPacket); a session's queue is bounded.
 */
/**
 * Clears one entry of a client's queue and counts its packet down only when the entry was still
 * there: whoever takes an entry out of the list (this, or a session's drop) counts it down, once.
 * KEYS: the list, the entry's key, the packet, its count. ARGV: the entry as listed, "copy" when the
 * entry is the client's own copy of a QoS 2 message (deleted with it).
 */
const CLEAR_QUEUED = `
local removed = redis.call('LREM', KEYS[1], 0, ARGV[1])
if ARGV[2] == 'copy' then redis.call('DEL', KEYS[2]) end
if removed > 0 then
  if redis.call('DECR', KEYS[4]) <= 0 then redis.call('DEL', KEYS[3], KEYS[4]) end
end
return removed
`;


function organizationRedisPersistence(RedisPersistence: typeof RedisPersistenceBase, msgpack: { decode(buffer: Buffer): unknown }) {
  return class OrganizationRedisPersistence extends RedisPersistence {
    /**
     * For each message a connection was sent from its queue and has not acknowledged (by packet
     * id), the key its queue entry names: `packet:<broker>:<counter>`, or the client's own copy of
     * a QoS 2 message, `outgoing:<client>:<broker>:<counter>` (the persistence keeps the same in a
     * cache of its own, shared by all clients and bounded, so one client's unacknowledged messages
     * could push out another's). Acknowledgements come on the connection that was sent the message;
     * a replay fills it again; it goes with the connection.
     */
    private readonly sent = new WeakMap<Client, Map<number, string>>();

    constructor(
      private readonly db: Redis,
      private readonly maxQueued: number,
      private readonly grants: SubscriptionGrants,
      private readonly replayGuard: ReplayGuard,
      /** The organizations' queued bytes (queued-bytes.ts). */
      private readonly queuedBytes: QueuedBytes,
      /** A message was dropped for sessions of `organizationId` because their queued bytes are at the limit. */
      private readonly onQueuedBytesFull: (organizationId: string) => void,
    ) {
      super({ conn: db });
    }

    /**
     * A SUBSCRIBE's granted filters, once per packet (subscription-grants.ts), announced again until
     * the announcement comes back (broadcast-wait.ts).
     */
    override addSubscriptions(client: Client, subs: Subscription[]): Promise<void> {
      return this.grants.storeOnce(subs, async (granted) => {
        try {
          await untilAnnounced(super.addSubscriptions(client, granted), () => this.announce("$SYS/sub/add", client.id, granted), "SUBSCRIBE");
        } finally {
          // Named in its organization's index if it is in `clients` (also when the announcement was lost after the writes).
          await this.reindex(client.id, INDEX_IF_KEPT);
        }
      });
    }

    /**
     * aedes-persistence-redis deletes the session's queue (its list) when the last subscription goes
     * (a clean-session CONNECT, an expiry, an UNSUBSCRIBE), without counting its packets down: each
     * stayed in Redis for ever. The queue is dropped here first, counting them down; and once more
     * after the removal was announced, for what was queued while the instances' subscription trees
     * still held the subscription.
     */
    override async removeSubscriptions(client: Client, topics: string[]): Promise<void> {
      const held = await this.db.hkeys(`client:${encodeURIComponent(client.id)}`);
      const last = held.every((topic) => topics.includes(topic));
      if (last) await this.dropOutgoing(client.id);
      const announced = topics.map((topic) => ({ topic }));
      try {
        await untilAnnounced(super.removeSubscriptions(client, topics), () => this.announce("$SYS/sub/rm", client.id, announced), "UNSUBSCRIBE");
      } finally {
        if (last) await this.dropOutgoing(client.id);
        // Out of its organization's index if it has left `clients` (its last subscription went).
        await this.reindex(client.id, UNINDEX_IF_GONE);
      }
    }

    /** `INDEX_IF_KEPT` or `UNINDEX_IF_GONE` for an internal client id. */
    private async reindex(clientId: string, script: string): Promise<void> {
      const organizationId = splitClientId(clientId)?.organizationId;
      if (organizationId) await this.db.eval(script, 2, "clients", orgClientsKey(organizationId), clientId);
    }

    /**
     * The session ends (a clean-session CONNECT, an expiry): its queue goes, also when it has no
     * subscriptions left (the persistence's own only removes subscriptions, when there are some).
     */
    override async cleanSubscriptions(client: Client): Promise<void> {
      await super.cleanSubscriptions(client);
      await this.dropOutgoing(client.id);
      await this.cleanIncoming(client);
    }

    /**
     * The inbound QoS 2 messages of an ended session still awaiting their PUBREL ([MQTT-3.1.2-6]):
     * aedes-persistence-redis keeps each under `incoming:<client>:<packet id>` (Aedes publishes the
     * message as it arrives, and keeps its id to refuse a resend until the PUBREL) and has no way to
     * drop them: those of a session that ended while its client was away stayed for ever, and the
     * id's next session's message with one of those packet ids was acknowledged as a duplicate and
     * never published. Their packet ids are kept in a set per client (`incoming-ids:<client>`, added
     * before the key is written and removed after it is deleted, so the set names every key), so
     * ending a session costs one read when there are none.
     */
    override async cleanIncoming(client: Client): Promise<void> {
      const clientId = encodeURIComponent(client.id);
      const setKey = `incoming-ids:${clientId}`;
      const ids = await this.db.smembers(setKey);
      if (ids.length === 0) return;
      // The ids read only: one a connection adds meanwhile stays named.
      await this.db.multi().del(...ids.map((id) => `incoming:${clientId}:${id}`)).srem(setKey, ...ids).exec();
    }

    override async incomingStorePacket(client: Client, packet: Parameters<RedisPersistenceBase["incomingStorePacket"]>[1]): Promise<void> {
      await this.db.sadd(`incoming-ids:${encodeURIComponent(client.id)}`, String(packet.messageId));
      await super.incomingStorePacket(client, packet);
    }

    /**
     * Once per Redis (a mark), at the first start of a version that keeps `incoming-ids`: the keys an
     * earlier one left are named in their clients' sets, so that their sessions' ends drop them too.
     */
    override async setup(broker: Parameters<RedisPersistenceBase["setup"]>[0]): Promise<void> {
      await super.setup(broker);
      await this.indexOrganizations();
      if ((await this.db.set("incoming-ids:named", "1", "NX")) === null) return;
      // SCAN's pattern and answers carry the connection's key prefix, which its commands add themselves.
      const prefix = (this.db.options.keyPrefix ?? "") + "incoming:";
      let cursor = "0";
      do {
        const [next, keys] = await this.db.scan(cursor, "MATCH", `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`, "COUNT", 1000);
        cursor = next;
        for (const key of keys) {
          const rest = key.slice(prefix.length);
          const at = rest.lastIndexOf(":");
          if (at > 0) await this.db.sadd(`incoming-ids:${rest.slice(0, at)}`, rest.slice(at + 1));
        }
      } while (cursor !== "0");
    }

    /**
     * At every start, each session of `clients` named in its organization's index (idempotent; the
     * persistence's own setup has just read every session's subscriptions, so this is of the same
     * order): sessions an earlier version kept, or one of its instances added during a rolling
     * deploy before this one started, are counted and listed. In batches of a thousand, pipelined.
     */
    private async indexOrganizations(): Promise<void> {
      let cursor = "0";
      do {
        const [next, ids] = await this.db.sscan("clients", cursor, "COUNT", 1000);
        cursor = next;
        const pipeline = this.db.pipeline();
        for (const id of ids) {
          const organizationId = splitClientId(id)?.organizationId;
          // As `clients` has it when the script runs: a session ended since the scan read it is not added.
          if (organizationId) pipeline.eval(INDEX_IF_KEPT, 2, "clients", orgClientsKey(organizationId), id);
        }
        if (pipeline.length > 0) await pipeline.exec();
      } while (cursor !== "0");
    }

    /** aedes-persistence's own announcement of a session's subscriptions changing (broadcastPersistence.js). */
    private announce(topic: string, clientId: string, subs: object[]) {
      const broker = (this as unknown as { broker?: Aedes }).broker;
      broker?.publish({ cmd: "publish", topic, payload: Buffer.from(JSON.stringify({ clientId, subs })), qos: 0, retain: false, dup: false } as PublishPacket, () => undefined);
    }

    /**
     * The organization's sessions (aedes-persistence-redis's `clients` set holds every client id with
     * subscriptions, connected or kept while away, of every organization; `org-clients:<org>` names
     * an organization's, kept beside it), and whether `clientId` (internal) has one: when a client
     * asks for a new persistent session. Two commands, whatever the number of sessions of the
     * deployment (it was a scan of the whole `clients` set, a round trip per thousand sessions of
     * every organization, at each such CONNECT).
     */
    async sessionsOf(organizationId: string, clientId: string, limit = Number.POSITIVE_INFINITY): Promise<{ count: number; has: boolean }> {
      // A session resuming is never refused: no count needed.
      if ((await this.db.sismember("clients", clientId)) === 1) return { count: 0, has: true };
      const count = await this.db.scard(orgClientsKey(organizationId));
      // At the limit, entries of sessions that are gone (an earlier version's instance ended them) must not refuse it.
      if (count < limit) return { count, has: false };
      return { count: (await this.indexedSessions(organizationId)).length, has: false };
    }

    /** The organization's indexed ids that are in `clients`; the others leave the index (`UNINDEX_IF_GONE`). */
    private async indexedSessions(organizationId: string): Promise<string[]> {
      const indexed = await this.db.smembers(orgClientsKey(organizationId));
      if (indexed.length === 0) return [];
      // One pipeline of SISMEMBER (SMISMEMBER would need Redis 6.2).
      const pipeline = this.db.pipeline();
      for (const id of indexed) pipeline.sismember("clients", id);
      const member = ((await pipeline.exec()) ?? []).map(([, r]) => r);
      const stale = indexed.filter((_, i) => member[i] !== 1);
      if (stale.length > 0) {
        const drop = this.db.pipeline();
        for (const id of stale) drop.eval(UNINDEX_IF_GONE, 2, "clients", orgClientsKey(organizationId), id);
        await drop.exec();
      }
      return indexed.filter((_, i) => member[i] === 1);
    }

    async hasSession(clientId: string): Promise<boolean> {
      const [member, queued] = await Promise.all([this.db.sismember("clients", clientId), this.db.exists(`outgoing:${encodeURIComponent(clientId)}`)]);
      return member === 1 || queued === 1;
    }

    /**
     * The organization's sessions (as sessionsOf counts them), each with its subscriptions and
     * queued messages (GET /mqtt/sessions): its index, each id checked against `clients` (an entry
     * left by an instance of an earlier version, which kept no index, is dropped here).
     */
    async sessionsIn(organizationId: string): Promise<StoredSession[]> {
      const ids = await this.indexedSessions(organizationId);
      return Promise.all(
        ids.map(async (clientId) => {
          const [subscriptions, queued] = await Promise.all([this.subscriptionsByClient({ id: clientId } as Client), this.db.llen(`outgoing:${encodeURIComponent(clientId)}`)]);
          return { clientId, subscriptions: (subscriptions ?? []).map((sub: { topic: string; qos: number }) => ({ topic: sub.topic, qos: sub.qos })), queued };
        }),
      );
    }

    /** Enqueues one after another on this instance, so that the length each one reads is exact here. */
    private enqueued: Promise<void> = Promise.resolve();

    /**
     * At most `maxQueued` messages per session: more are dropped for it (Mosquitto's
     * max_queued_messages). Exact per instance; two instances enqueueing for the same session at
     * the same moment may pass the bound by a message each. And within the organization's queued
     * bytes, all instances together (queued-bytes.ts).
     */
    override outgoingEnqueueCombi(subs: { clientId: string }[], packet: Parameters<RedisPersistenceBase["outgoingEnqueueCombi"]>[1]): Promise<void> {
      if (!subs || subs.length === 0) return Promise.resolve();
      subs = oncePerClient(subs);
      const run = this.enqueued.then(async () => {
        // The persistence's own list key (aedes-persistence-redis: `outgoing:<client id, URI-encoded>`).
        const lengths = await Promise.all(subs.map((sub) => this.db.llen(`outgoing:${encodeURIComponent(sub.clientId)}`)));
        let room = subs.filter((_, i) => lengths[i]! < this.maxQueued);
        const organizationId = room.length > 0 ? splitClientId(room[0]!.clientId)?.organizationId : undefined;
        if (!organizationId) return;
        // The subscribers of one topic are of its organization (their filters carry its prefix).
        const message = `${packet.brokerId}:${packet.brokerCounter}`;
        const bytes = (packet as AedesPublishPacket).payload.length;
        const granted = new Set(await this.queuedBytes.reserve(organizationId, room.map((sub) => sub.clientId), message, bytes));
        if (granted.size < room.length) this.onQueuedBytesFull(organizationId);
        room = room.filter((sub) => granted.has(sub.clientId));
        if (room.length === 0) return;
        try {
          await super.outgoingEnqueueCombi(room, packet);
        } catch (err) {
          for (const sub of room) await this.queuedBytes.release(organizationId, sub.clientId, message, bytes).catch(() => undefined);
          throw err;
        }
      });
      this.enqueued = run.catch(() => undefined);
      return run;
    }

    override async outgoingEnqueue(sub: { clientId: string }, packet: Parameters<RedisPersistenceBase["outgoingEnqueue"]>[1]): Promise<void> {
      await this.outgoingEnqueueCombi([sub], packet);
    }

    /**
     * Drops every message queued for `clientId` (its session ended while it was away). The
     * persistence's own outgoingClearMessageId finds a message through a cache of the instance
     * that delivered it, so a queue nobody has delivered from is emptied here: the list, and each
     * packet whose last reader it was (`packet:<broker>:<counter>` and its `:offlineCount`).
     */
    async dropOutgoing(clientId: string): Promise<void> {
      const listKey = `outgoing:${encodeURIComponent(clientId)}`;
      // Read and emptied at once: a message queued meanwhile is in the next list, not lost between.
      const results = await this.db.multi().lrange(listKey, 0, -1).del(listKey).exec();
      const listed = (results?.[0]?.[1] as string[] | undefined) ?? [];
      for (const key of listed) {
        let packet = key;
        if (!key.startsWith("packet:")) {
          // A QoS 2 message under way: the client's own copy, `outgoing:<client>:<broker>:<counter>`,
          // which holds its count of `packet:<broker>:<counter>` while it exists.
          if ((await this.db.del(key)) === 0) continue;
          const [broker, counter] = key.split(":").slice(-2);
          packet = `packet:${broker}:${counter}`;
        }
        const left = await this.db.decr(`${packet}:offlineCount`);
        if (left <= 0) await this.db.del(packet, `${packet}:offlineCount`);
      }
      const organizationId = splitClientId(clientId)?.organizationId;
      if (organizationId) await this.queuedBytes.forget(organizationId, clientId);
    }

    override createRetainedStreamCombi(patterns: string[]) {
      return Readable.from(super.createRetainedStreamCombi(patterns) as AsyncIterable<unknown>);
    }

    override createRetainedStream(pattern: string) {
      return Readable.from(super.createRetainedStream(pattern) as AsyncIterable<unknown>);
    }

    /** The queue, without what this connection was already sent live (replay-guard.ts). */
    override outgoingStream(client: Client) {
      const queued = super.outgoingStream(client) as AsyncIterable<AedesPacket>;
      return Readable.from(withoutSent(queued, (packet) => this.replayGuard.sentAlready(client, packet)));
    }

    /**
     * A clear without a packet id names no message: Aedes asks for one when it drops a live copy
     * (a duplicate, or one refused to this client), and finds nothing here either way.
     */
    override async outgoingClearMessageId(client: Client, packet: Parameters<RedisPersistenceBase["outgoingClearMessageId"]>[1]) {
      // Nothing, as the persistence answers when no message matches (its types say otherwise).
      if ((packet as { messageId?: number | null }).messageId == null) return undefined as unknown as AedesPacket;
      // The persistence's own clear counts the packet down even when the entry had already left the
      // list (the session was dropped meanwhile, or it was a QoS 2 copy it never took out of the
      // list), which deleted it under another session that still had it queued: cleared here instead.
      const messageId = (packet as { messageId: number }).messageId;
      const key = this.sent.get(client)?.get(messageId);
      this.sent.get(client)?.delete(messageId);
      if (!key) return undefined as unknown as AedesPacket;
      const listKey = `outgoing:${encodeURIComponent(client.id)}`;
      const copy = !key.startsWith("packet:");
      const buf = await this.db.getBuffer(key);
      const cleared = buf ? (msgpack.decode(buf) as AedesPacket) : undefined;
      const [broker, counter] = key.split(":").slice(-2);
      const packetKey = `packet:${broker}:${counter}`;
      await this.db.eval(CLEAR_QUEUED, 4, listKey, key, packetKey, `${packetKey}:offlineCount`, key, copy ? "copy" : "shared");
      const organizationId = splitClientId(client.id)?.organizationId;
      if (organizationId) await this.queuedBytes.release(organizationId, client.id, `${broker}:${counter}`, 0);
      if (!cleared) return undefined as unknown as AedesPacket;
      cleared.messageId = packet.messageId;
      return cleared;
    }

    override streamWill(brokers: Parameters<RedisPersistenceBase["streamWill"]>[0]) {
      return Readable.from(super.streamWill(brokers) as AsyncIterable<unknown>);
    }

    override async outgoingUpdate(client: Client, packet: Parameters<RedisPersistenceBase["outgoingUpdate"]>[1]): Promise<void> {
      const messageId = packet.messageId as number;
      let sent = this.sent.get(client);
      if (!sent) this.sent.set(client, (sent = new Map()));
      if (packet.cmd === "pubrel" && !("brokerId" in packet)) {
        // Which message this PUBREL is for, from our own record (the persistence reads its cache).
        const key = sent.get(messageId);
        // None: its publish was delivered live, not from this client's queue (no room there).
        if (!key) return;
        const [brokerId, brokerCounter] = key.split(":").slice(-2);
        Object.assign(packet, { brokerId, brokerCounter: Number(brokerCounter) });
      }
      const listKey = `outgoing:${encodeURIComponent(client.id)}`;
      const packetKey = `packet:${packet.brokerId}:${packet.brokerCounter}`;
      const copyKey = `${listKey}:${packet.brokerId}:${packet.brokerCounter}`;
      if ("brokerId" in packet) {
        // A message delivered live but not queued for this client (its session's queue, or its
        // organization's queued bytes, had no room): nothing to update. The persistence would store
        // the packet (or the QoS 2 copy) again, outside any queue, for ever.
        const [listed, copied] = await Promise.all([this.db.lpos(listKey, packetKey), packet.cmd === "pubrel" ? this.db.lpos(listKey, copyKey) : null]);
        if (listed === null && copied === null) {
          sent.delete(messageId);
          return;
        }
      }
      await super.outgoingUpdate(client, storedTopicPacket(client.id, packet));
      sent.set(messageId, packet.cmd === "pubrel" ? copyKey : packetKey);
    }

    /**
     * Aedes asks at every CONNECT to delete the client's will (`delWill(client)`), but a client has
     * no `brokerId`, so aedes-persistence-redis deleted `will:undefined:<client>`, which never
     * exists: a will this instance kept for the id (an MQTT 5 will whose delay the client ended by
     * coming back) stayed, for another instance's sweep of dead brokers' wills to publish one day.
     * This instance's key instead, as its getWill reads.
     */
    override async delWill(client: Parameters<RedisPersistenceBase["delWill"]>[0]) {
      const brokerId = (client as { brokerId?: string }).brokerId ?? (this as unknown as { broker?: { id: string } }).broker?.id;
      return super.delWill(Object.assign(Object.create(null) as object, client, { brokerId }) as typeof client);
    }

    /** Never rejects: see DurablePersistence.incomingDelPacket. */
    override async incomingDelPacket(client: Client, packet: Parameters<RedisPersistenceBase["incomingDelPacket"]>[1]): Promise<void> {
      const deleted = await super.incomingDelPacket(client, packet).then(
        () => true,
        () => false,
      );
      // Named until its key is gone.
      if (deleted) await this.db.srem(`incoming-ids:${encodeURIComponent(client.id)}`, String(packet.messageId)).catch(() => undefined);
    }
  };
}

/** MQTT 5 properties a flow's message carries onto the broker (aedes reads messageExpiryInterval). */
function publishProperties(properties: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(properties)) {
    // A topic alias is one connection's; subscription identifiers are the broker's to add.
    if (v === undefined || v === null || k === "topicAlias" || k === "subscriptionIdentifier") continue;
    out[k] = v;
  }
  return out;
}

/** The MQTT 5 properties of a message as flows receive them (none: no key). */
function receivedProperties(packet: AedesPublishPacket): { properties?: Record<string, unknown> } {
  const props = (packet as { properties?: Record<string, unknown> }).properties;
  if (!props) return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(props)) if (v !== undefined && k !== "topicAlias" && k !== "subscriptionIdentifier") out[k] = v;
  const expiry = (packet as { messageExpiry?: number }).messageExpiry;
  if (expiry !== undefined) out.messageExpiryInterval = Math.max(0, Math.ceil((expiry - Date.now()) / 1000));
  return Object.keys(out).length > 0 ? { properties: out } : {};
}

/** A stored MQTT 5 message whose expiry interval has passed. */
function expired(packet: AedesPublishPacket): boolean {
  const expiry = (packet as { messageExpiry?: number }).messageExpiry;
  return expiry !== undefined && expiry <= Date.now();
}

function refusal(returnCode: Refusal["returnCode"], message: string, reasonCode: number = V5_CONNACK[returnCode]): Refusal {
  return { returnCode, reasonCode, message };
}

/** What the broker reads of an aedes client beyond its types (Aedes 2.0.0-beta.1). */
interface ClientInternals {
  /** The connection's packet parser: we see each packet before aedes handles it. */
  _parser: NodeJS.EventEmitter;
  /** MQTT 5: the client id the CONNACK reports (set when the client sent an empty one). */
  _assignedClientId?: string;
  connackSent?: boolean;
  subscriptions?: Record<string, { qos?: number }>;
}
const internals = (client: Client) => client as unknown as ClientInternals;

/** aedes's Session Expiry Interval that means "never" (0xFFFFFFFF). */
const SESSION_NEVER_EXPIRES = 0xffffffff;

/**
 * A session's expiry after its client leaves, when it has one: MQTT 5's interval (finite, not 0);
 * an MQTT 3.1.1 persistent session's (clean session false) is the operator's
 * `persistentSessionExpirySeconds` (0: none, kept until the client returns, as Mosquitto's
 * `persistent_client_expiration` unset). 0 otherwise.
 */
function expiringInterval(client: { version?: number; sessionExpiryInterval?: number; clean?: boolean }, persistentSessionExpirySeconds: number): number {
  if (client.version !== 5) return client.clean === false ? persistentSessionExpirySeconds : 0;
  const seconds = client.sessionExpiryInterval ?? 0;
  return seconds > 0 && seconds < SESSION_NEVER_EXPIRES ? seconds : 0;
}

/** Whether a client is told why the broker ends its connection: MQTT 5, open, and its CONNACK sent. */
function owedDisconnect(client: Client): boolean {
  return client.version === 5 && !client.closed && (client.connected || internals(client).connackSent === true);
}

const disconnectPacket = (reasonCode: number, reasonString: string) => mqttPacket.generate({ cmd: "disconnect", reasonCode, properties: { reasonString } }, { protocolVersion: 5 });

/** A stored online entry's session_expiry_seconds; undefined when it has none (an older instance's) or is unreadable. */
function sessionExpiryOf(raw: string): number | undefined {
  try {
    const seconds = (JSON.parse(raw) as OnlineEntry).session_expiry_seconds;
    return typeof seconds === "number" ? seconds : undefined;
  } catch {
    return undefined;
  }
}

/** What session-expiry's sweep reaches in aedes (its own expiry timers) and in our persistences. */
interface ExpiringSessions {
  closed: boolean;
  _takingOver: Set<string>;
  expiringSessions: Map<string, unknown>;
  scheduleSessionExpiry(client: Client): void;
}
interface ListablePersistence {
  sessionsIn(organizationId: string): Promise<StoredSession[]>;
  /** Whether `clientId` (internal) has a session: subscriptions or a queue. */
  hasSession(clientId: string): Promise<boolean>;
}
interface EndablePersistence {
  cleanSubscriptions(client: Client): Promise<void>;
  /** Drops every message queued for the client id (its session ended while it was away). */
  dropOutgoing(clientId: string): Promise<void>;
}

/** A SUBSCRIBE or UNSUBSCRIBE as mqtt-packet parses it. */
interface SubscribePacketShape {
  cmd: "subscribe";
  messageId?: number;
  subscriptions: { topic: string }[];
}
interface UnsubscribePacketShape {
  cmd: "unsubscribe";
  unsubscriptions: string[];
}

export function createMqttBroker(options: MqttBrokerOptions): MqttBroker {
  const { logger, store } = options;
  const limits: MqttLimits = { ...DEFAULT_MQTT_LIMITS, ...options.limits };
  const rate = createPublishRate(store, limits.publishesPerSecondPerOrganization, logger);
  const states = new Map<Client, ClientState>();
  const refusals = new WeakMap<Client, Refusal>();
  /** Each connection's outgoing acknowledgements (MQTT 5 reason codes aedes cannot be told). */
  const rewriters = new WeakMap<Client, AckRewriter>();
  /** SUBSCRIBE / UNSUBSCRIBE packets parsed before their client's CONNECT was admitted. */
  const early = new WeakMap<Client, (SubscribePacketShape | UnsubscribePacketShape)[]>();
  /** Each subscription of a client's SUBSCRIBE, and that SUBSCRIBE (for its SUBACK's codes). */
  const subscribePackets = new WeakMap<object, SubscribePacketShape>();
  /**
   * Each client's will (the CONNECT's, mapped in `admit`) and its client's standing: aedes asks
   * authorizePublish for it when it publishes it, which for an MQTT 5 will with a delay is after
   * the client's state is gone.
   */
  const wills = new WeakMap<object, ClientState>();
  /** Inbound QoS 2 packet identifiers of each client waiting for their PUBREL. */
  const inboundQos2 = new WeakMap<Client, Set<number>>();
  /** The subscriptions authorizeSubscribe granted: only those are stored in a persistent session. */
  const grants = new SubscriptionGrants();
  /** What each returning persistent session's connection has been sent, while its queue is replayed. */
  const replayGuard = new ReplayGuard();
  /** Each connection's CONNECT until its CONNACK goes: the step it is at (a slow one is logged with it). */
  const connecting = new WeakMap<Client, ConnectProgress>();
  /** Connections not admitted yet, per client address (TCP and WebSocket together), and what frees a connection's slot. */
  const pendingPerIp = new PendingPerIp(limits.connectingPerAddress);
  const unadmitted = new WeakMap<Client, () => void>();
  /** Each client's own socket (or WebSocket stream), under the size guard Aedes reads. */
  const transports = new WeakMap<Client, Duplex>();
  const servers: net.Server[] = [];
  const subscriptions: DurableSubscription[] = [];
  // A packet is its payload plus topic, packet id and header: 64 KiB is room for any topic.
  const maxPacketBytes = limits.messageBytes + 64 * 1024;
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxPacketBytes });
  let auth: AuthDeps | null = null;
  let broker: Aedes | null = null;
  let redisConnections: Redis[] = [];
  let persistence: { destroy(): Promise<void>; sessionsOf(organizationId: string, clientId: string, limit?: number): Promise<{ count: number; has: boolean }> } | null = null;
  const retainedLimits = { maxCount: limits.retainedPerOrganization, maxBytes: limits.retainedBytesPerOrganization };
  /** When each organization was last told (in the log) that its queued bytes are at the limit. */
  const queuedBytesWarned = new Map<string, number>();
  const queuedBytesFull = (organizationId: string) => {
    const now = Date.now();
    if (now - (queuedBytesWarned.get(organizationId) ?? 0) < 60_000) return;
    queuedBytesWarned.set(organizationId, now);
    if (queuedBytesWarned.size > 10_000) queuedBytesWarned.clear();
    logger.warn(
      { organizationId, limitBytes: limits.queuedBytesPerOrganization },
      "mqtt: the organization's persistent sessions hold MQTT_MAX_QUEUED_BYTES_PER_ORGANIZATION of queued messages; newer ones are dropped for sessions without room (said at most once a minute)",
    );
  };
  let retainedQuota: RetainedQuota = memoryRetainedQuota(retainedLimits);
  /** The organizations' queued bytes (queued-bytes.ts), once started. */
  let queuedBytes: QueuedBytes | null = null;
  /** The wills aedes delays on this instance (MQTT 5 Will Delay Interval), by internal client id: an ended session's goes at once. */
  const delayedWills = new Map<string, { client: Client; will: unknown }>();
  const retainedRefusal = `the organization keeps its limit of retained messages (${limits.retainedPerOrganization} messages, ${limits.retainedBytesPerOrganization} bytes); an empty retained message clears one`;
  let renewTimer: NodeJS.Timeout | null = null;
  let closed = false;
  const ledger = new SessionExpiryLedger(options.prisma, logger);
  const ledgerChains = new Map<string, Promise<void>>();
  let sweepTimer: NodeJS.Timeout | null = null;
  /** The sweep under way (close() waits for it, so the rows it took are ended or put back). */
  let sweeping: Promise<void> | null = null;

  // ---- connect ----------------------------------------------------------------------------

  /** A refused MQTT 5 CONNECT: its CONNACK with our reason code and why, then the connection ends. */
  function refuseV5(client: Client, refused: Refusal) {
    const connack = mqttPacket.generate({ cmd: "connack", sessionPresent: false, reasonCode: refused.reasonCode, properties: { reasonString: refused.message } }, { protocolVersion: 5 });
    client.conn.end(connack);
    // Aedes leaves the half-closed connection alone: a peer that never closes its side would hold
    // it (and its address's slot of unadmitted connections) for good.
    const transport = transports.get(client);
    if (!transport) return;
    const timer = setTimeout(() => transport.destroy(), REFUSED_CLOSE_MS).unref();
    transport.once("close", () => clearTimeout(timer));
  }

  /**
   * MQTT 5: tells a client why the broker ends its connection (a DISCONNECT with this reason code),
   * then ends it; false when nothing was sent (3.1.1, before its CONNACK, or closed): the caller
   * closes it. Between its CONNACK and aedes counting it connected (while aedes restores its
   * session, longer on Redis) aedes would close without the DISCONNECT: it is written here then.
   */
  function disconnectV5(client: Client, reasonCode: number, reasonString: string, done: () => void = () => undefined): boolean {
    if (!owedDisconnect(client)) return false;
    if (client.connected) client.disconnect({ reasonCode, properties: { reasonString } }, done);
    else {
      client.conn.end(disconnectPacket(reasonCode, reasonString));
      done();
    }
    return true;
  }

  /** Starts the CONNECT's watch: logged if no CONNACK has gone SLOW_CONNECT_MS later. */
  function watchConnect(client: Client, packet: ConnectPacket): ConnectProgress {
    // The device's own id (admit turns the packet's into the internal one); the time waited shows
    // a stalled event loop too (well over SLOW_CONNECT_MS).
    const clientId = packet.clientId;
    const since = Date.now();
    const progress: ConnectProgress = {
      step: "checking its API key and the organization's connection limit",
      timer: setTimeout(() => {
        if (client.closed) return;
        logger.warn({ clientId, organizationId: states.get(client)?.organizationId, step: progress.step, waitedMs: Date.now() - since }, `mqtt: a CONNECT has waited ${SLOW_CONNECT_MS / 1000} s for its CONNACK`);
      }, SLOW_CONNECT_MS).unref(),
    };
    connecting.set(client, progress);
    return progress;
  }

  /**
   * Connections being admitted on this instance, per organization (client → its client id): a burst
   * of CONNECTs counts each other, or each would read the same count and all pass the limit. Held
   * until the caller has put the admitted state in `states` (which the count reads then).
   */
  const admitting = new Map<string, Map<Client, string>>();
  const releaseAdmitting = (client: Client) => {
    for (const [org, pending] of admitting) if (pending.delete(client) && pending.size === 0) admitting.delete(org);
  };

  async function admit(client: Client, packet: ConnectPacket): Promise<Refusal | ClientState> {
    const secret = packet.password?.toString("utf8") ?? "";
    if (!isApiKeySecret(secret)) return refusal(4, "the password must be a device_ or service_ API key");
    let principal;
    try {
      principal = await resolvePrincipal(auth!, { apiKey: secret }, { allowDeviceKeys: true, limit: authLimiters(auth!).apiPerCredential });
    } catch (err) {
      const e = toAppError(err);
      if (e.status === 401) return refusal(4, e.message);
      if (e.status === 403) return refusal(5, e.message);
      if (e.status === 429) return refusal(3, e.message, ReasonCode.CONNECTION_RATE_EXCEEDED);
      return refusal(3, e.message);
    }
    if (principal.kind !== "api_key") return refusal(4, "the password must be an API key");
    if (!canPublish(principal) && !canSubscribe(principal)) return refusal(5, "the key has neither mqtt:publish nor mqtt:subscribe");
    const organizationId = principal.organizationId;
    let clientId = packet.clientId ?? "";
    const assignedClientId = clientId === "";
    if (assignedClientId) {
      // [MQTT-3.1.3-8]: an empty client id needs a clean session (3.1.1; MQTT 5 assigns one anyway).
      if (!packet.clean && packet.protocolVersion !== 5) return refusal(2, "an empty client id needs clean session");
      clientId = `auto-${randomUUID()}`;
    }
    if (clientId.startsWith("$")) return refusal(2, "client ids starting with $ are reserved");
    if (packet.will) {
      if (!canPublish(principal)) return refusal(5, "a will needs mqtt:publish");
      if (checkPublishTopic(packet.will.topic) !== null) return refusal(5, "the will's topic is not allowed");
      if ((packet.will.payload?.length ?? 0) > limits.messageBytes) return refusal(5, "the will is larger than the message limit");
    }
    let pending = admitting.get(organizationId);
    if (!pending) admitting.set(organizationId, (pending = new Map()));
    pending.set(client, clientId);
    try {
      // The online set names every connected client of the organization, and those of an instance
      // killed a moment ago until someone reads their lapsed entries: an upper bound, read in one
      // command. Only a CONNECT it puts at the limit reads each entry (onlineMqttClients), which
      // cost a command per connected client on every CONNECT.
      const [members, ending] = await Promise.all([store.setMembers(onlineSetKey(organizationId)), store.get(endingKey(organizationId, clientId))]);
      // An admin is ending this id's session (endSession): a connection now would resume what is being dropped.
      if (ending !== null) return refusal(3, "an administrator is ending this client's session: connect again in a moment");
      const local = [...states.values()].filter((s) => s.organizationId === organizationId);
      // Those that came before this one (first come, first admitted; a later one never refuses an earlier one).
      const queue = [...pending];
      const others = queue.slice(0, Math.max(0, queue.findIndex(([c]) => c === client))).map(([, id]) => id);
      const counted = (online: string[]) => new Set([...online, ...local.map((s) => s.clientId), ...others]);
      // Below the limit by the upper bound: admitted. Else counted exactly (a member of the set may
      // be this very id's connection on a killed instance, which must not let it in over the limit).
      const bound = counted(members);
      const exact = bound.size < limits.connectionsPerOrganization ? bound : counted((await onlineMqttClients(store, organizationId)).map((c) => c.client_id));
      if (exact.size >= limits.connectionsPerOrganization && !exact.has(clientId)) {
        return refusal(3, `the organization has ${limits.connectionsPerOrganization} MQTT connections, its limit`, ReasonCode.QUOTA_EXCEEDED);
      }
    } catch (err) {
      return refusal(3, toAppError(err).message);
    }
    // A session kept while the client is away (3.1.1 clean session false; MQTT 5 a session expiry):
    // a new one counts against the organization's sessions, so client ids cycled do not pile up.
    const keepsSession = packet.protocolVersion === 5 ? (packet.properties?.sessionExpiryInterval ?? 0) > 0 : packet.clean === false;
    if (keepsSession && persistence) {
      try {
        const sessions = await persistence.sessionsOf(organizationId, internalClientId(organizationId, clientId), limits.sessionsPerOrganization);
        if (!sessions.has && sessions.count >= limits.sessionsPerOrganization) {
          return refusal(3, `the organization has ${limits.sessionsPerOrganization} MQTT sessions, its limit: connect with a clean session, or end a kept one (connect it with a clean session, or End session on the Devices page)`, ReasonCode.QUOTA_EXCEEDED);
        }
      } catch (err) {
        return refusal(3, toAppError(err).message);
      }
    }
    packet.clientId = internalClientId(organizationId, clientId);
    if (packet.will) packet.will.topic = internalTopic(organizationId, packet.will.topic);
    const now = new Date();
    return {
      organizationId,
      clientId,
      secret,
      principal,
      connectionId: randomUUID(),
      connectedAt: now.toISOString(),
      lastSeen: now.getTime(),
      filters: new Set(),
      revoked: false,
      assignedClientId: assignedClientId && packet.protocolVersion === 5,
      sessionExpirySeconds: expiringInterval({ version: packet.protocolVersion, sessionExpiryInterval: packet.properties?.sessionExpiryInterval, clean: packet.clean }, limits.persistentSessionExpirySeconds),
      keepsSession: packet.protocolVersion === 5 ? (packet.properties?.sessionExpiryInterval ?? 0) > 0 : packet.clean === false,
    };
  }

  function preConnect(client: Client, packet: ConnectPacket, callback: (error: Error | null, success: boolean) => void) {
    const progress = watchConnect(client, packet);
    // However the connection ends (before or after CONNACK), its state goes with it.
    client.conn.once("close", () => {
      clearTimeout(progress.timer);
      setTimeout(() => forget(client, true), 1_000).unref();
    });
    const refuse = (refused: Refusal) => {
      // MQTT 5: our reason code and why (aedes would map the 3.1.1 code); 3.1.1: aedes answers in authenticate.
      if (packet.protocolVersion === 5) {
        refuseV5(client, refused);
        callback(null, false);
        return;
      }
      refusals.set(client, refused);
      callback(null, true);
    };
    admit(client, packet).then(
      (result) => {
        releaseAdmitting(client);
        if ("returnCode" in result) return refuse(result);
        unadmitted.get(client)?.();
        states.set(client, result);
        if (packet.will) wills.set(packet.will, result);
        for (const p of early.get(client)?.splice(0) ?? []) mapTopics(result, p);
        progress.step = "admitted: waiting for the broker to take it up";
        callback(null, true);
      },
      (err: unknown) => {
        releaseAdmitting(client);
        refuse(refusal(3, String(err)));
      },
    );
  }

  function authenticate(client: Client, _username: string | undefined, _password: Buffer | undefined, done: (error: (Error & { returnCode: number }) | null, success: boolean | null) => void) {
    const refused = refusals.get(client);
    const state = states.get(client);
    if (refused || !state) {
      const err = Object.assign(new Error(refused?.message ?? "not authenticated"), { returnCode: refused?.returnCode ?? 4 });
      states.delete(client);
      done(err as Error & { returnCode: number }, false);
      return;
    }
    // [MQTT-3.2.2-16]: the id we gave it (aedes reports only ids it generated itself).
    if (state.assignedClientId) internals(client)._assignedClientId = state.clientId;
    // A session that outlives its connections gets its queue replayed after the CONNACK, while
    // live copies of the same messages may still come back from Redis (replay-guard.ts).
    if (client.clean === false) replayGuard.watch(client);
    const progress = connecting.get(client);
    if (progress) progress.step = "authenticated: its session in the persistence (subscriptions, will), then registered";
    done(null, true);
  }

  /**
   * Each packet of a connection, as it is parsed and before aedes handles it: SUBSCRIBE and
   * UNSUBSCRIBE filters move into the organization's space here, so aedes only ever sees (stores,
   * dedupes, looks up) internal filters; inbound QoS 2 messages awaiting PUBREL are bounded.
   */
  function watch(client: Client, acks: AckRewriter) {
    rewriters.set(client, acks);
    internals(client)._parser.prependListener("packet", (packet: { cmd: string; qos?: number; messageId?: number }) => {
      if (packet.cmd === "subscribe" || packet.cmd === "unsubscribe") {
        const p = packet as SubscribePacketShape | UnsubscribePacketShape;
        const state = states.get(client);
        if (state) mapTopics(state, p);
        else {
          // Parsed before the CONNECT was admitted (aedes holds it until then): mapped once it is.
          let list = early.get(client);
          if (!list) early.set(client, (list = []));
          list.push(p);
        }
      } else if (packet.cmd === "publish" && packet.qos === 2 && packet.messageId !== undefined) {
        let waiting = inboundQos2.get(client);
        if (!waiting) inboundQos2.set(client, (waiting = new Set()));
        if (!waiting.has(packet.messageId) && waiting.size >= MAX_INBOUND_QOS2) {
          logger.info({ clientId: client.id }, "mqtt: too many inbound QoS 2 messages awaiting PUBREL; connection closed");
          client.close();
          return;
        }
        waiting.add(packet.messageId);
      } else if (packet.cmd === "pubrel" && packet.messageId !== undefined) {
        inboundQos2.get(client)?.delete(packet.messageId);
      }
    });
  }

  function mapTopics(state: ClientState, packet: SubscribePacketShape | UnsubscribePacketShape) {
    if (packet.cmd === "subscribe") {
      for (const sub of packet.subscriptions) {
        sub.topic = internalTopic(state.organizationId, sub.topic);
        subscribePackets.set(sub, packet);
      }
    } else {
      packet.unsubscriptions = packet.unsubscriptions.map((t) => internalTopic(state.organizationId, t));
    }
  }

  // ---- publish, subscribe, forward --------------------------------------------------------

  /** A will (its topic internal) as it is published: a retained one takes its room in the retained quota, or is not published. */
  function willKept(packet: PublishPacket, callback: (error?: Error | null) => void) {
    const own = splitTopic(packet.topic);
    if (!packet.retain || own === null) return callback(null);
    retainedQuota.reserve(own.organizationId, own.topic, packet.payload.length).then(
      (ok) => callback(ok ? null : new Error(retainedRefusal)),
      (err: unknown) => callback(new Error(`the retained will could not be counted: ${toAppError(err).message}`)),
    );
  }

  function authorizePublish(client: Client | null, packet: PublishPacket, callback: (error?: Error | null) => void) {
    // A will of a client whose broker died (another instance's): mapped when its client connected.
    if (client === null) return willKept(packet, callback);
    // The client's own will, mapped at CONNECT (now, or after its delay); never published once its access ended.
    const willOf = wills.get(packet);
    if (willOf) return willOf.revoked ? callback(new Error("access ended")) : willKept(packet, callback);
    const state = states.get(client);
    if (!state) return callback(new Error("not authenticated"));
    // 3.1.1: an error closes the connection. MQTT 5: aedes answers a QoS 1/2 PUBLISH with PUBACK /
    // PUBREC 0x87 and the message as reason string, drops a QoS 0 one, and the connection stays;
    // the rewriter gives the acknowledgement our code.
    const refuse = (code: number, message: string) => {
      if (client.version === 5 && packet.qos > 0 && code !== ReasonCode.NOT_AUTHORIZED) rewriters.get(client)?.setPublish(packet.messageId!, code);
      callback(new Error(message));
    };
    if (!canPublish(state.principal)) return refuse(ReasonCode.NOT_AUTHORIZED, "the key may not publish (mqtt:publish)");
    if (checkPublishTopic(packet.topic) !== null) return refuse(ReasonCode.TOPIC_NAME_INVALID, `publishing to ${packet.topic} is not allowed`);
    if (packet.payload.length > limits.messageBytes) {
      const message = `the message is larger than ${limits.messageBytes} bytes`;
      // MQTT 5: DISCONNECT 0x95 (packet too large; PUBACK has no such code), then the connection ends.
      if (disconnectV5(client, ReasonCode.PACKET_TOO_LARGE, message, () => callback(new Error(message)))) return;
      return callback(new Error(message));
    }
    const accept = () => {
      packet.topic = internalTopic(state.organizationId, packet.topic);
      // Aedes leaves `topicAlias: undefined` (the publisher's connection's alias) in the properties;
      // across instances (msgpack) it would arrive as null, which no receiver's packet may carry.
      const props = (packet as { properties?: Record<string, unknown> }).properties;
      if (props) (packet as { properties?: Record<string, unknown> }).properties = publishProperties(props);
      state.lastSeen = Date.now();
      callback(null);
    };
    // A retained message takes its room in the organization's retained quota (an empty one gives it back).
    const kept = () => {
      if (!packet.retain) return accept();
      retainedQuota.reserve(state.organizationId, packet.topic, packet.payload.length).then(
        (ok) => (ok ? accept() : refuse(ReasonCode.QUOTA_EXCEEDED, retainedRefusal)),
        (err: unknown) => refuse(ReasonCode.UNSPECIFIED_ERROR, `the retained message could not be counted: ${toAppError(err).message}`),
      );
    };
    const overRate = () => refuse(ReasonCode.QUOTA_EXCEEDED, "the organization publishes faster than its limit");
    const allowed = rate.take(state.organizationId);
    if (allowed === true) return kept();
    if (allowed === false) return overRate();
    allowed.then((ok) => (ok ? kept() : overRate()), overRate);
  }

  function authorizeSubscribe(client: Client, sub: Subscription, callback: (error: Error | null, subscription?: Subscription | null) => void) {
    const state = states.get(client);
    const answer = (granted: Subscription | null) => setImmediate(callback, null, granted);
    if (!state) return answer(null);
    // Every filter is internal already: a SUBSCRIBE's were mapped as it was parsed (watch), and a
    // persistent session's come back from the persistence as they were stored. Before the CONNACK
    // went out, only those come (aedes reads the client's packets only after it).
    const restoring = !internals(client).connackSent;
    const own = externalTopic(state.organizationId, sub.topic);
    let code: number | null = null;
    if (own === null || !canSubscribe(state.principal)) code = ReasonCode.NOT_AUTHORIZED;
    else {
      const refused = checkSubscribeFilter(own);
      if (refused === "shared") code = ReasonCode.SHARED_SUBSCRIPTIONS_NOT_SUPPORTED;
      else if (refused !== null) code = ReasonCode.TOPIC_FILTER_INVALID;
      else if (!restoring && !state.filters.has(sub.topic) && state.filters.size >= limits.subscriptionsPerClient) code = ReasonCode.QUOTA_EXCEEDED;
    }
    if (code !== null) {
      // 3.1.1: SUBACK 0x80; MQTT 5: aedes writes 0x87, the rewriter our code.
      const packet = subscribePackets.get(sub);
      if (!restoring && client.version === 5 && code !== ReasonCode.NOT_AUTHORIZED && packet?.messageId !== undefined) {
        const index = packet.subscriptions.indexOf(sub);
        if (index >= 0) rewriters.get(client)?.setSubscribe(packet.messageId, index, code);
      }
      return answer(null);
    }
    state.filters.add(sub.topic);
    if (!restoring) state.lastSeen = Date.now();
    grants.grant(sub);
    answer(sub);
  }

  function authorizeForward(client: Client, packet: AedesPublishPacket): AedesPublishPacket | null {
    const state = states.get(client);
    if (!state) return null;
    // A reader that stopped reading: closed, not fed (a persistent session keeps its QoS 1/2 queue, within its bound).
    const conn = (client as unknown as { conn?: { writableLength?: number; destroyed?: boolean; destroy(err?: Error): void } }).conn;
    if (conn && (conn.writableLength ?? 0) > MAX_BUFFERED_BYTES_PER_CONNECTION) {
      if (!conn.destroyed) {
        logger.warn({ organizationId: state.organizationId, clientId: state.clientId, buffered: conn.writableLength }, "mqtt: closing a connection that reads too slowly");
        conn.destroy(new Error("reads too slowly"));
      }
      return null;
    }
    const own = externalTopic(state.organizationId, packet.topic);
    if (own === null) return null;
    // Its queued copy was replayed to this connection already, or its live copy sent (replay-guard.ts).
    if (!replayGuard.first(client, packet)) return null;
    // This packet is the receiver's own copy (aedes copies per subscription, per queued message).
    const exact = internals(client).subscriptions?.[packet.topic];
    packet.topic = own;
    if (exact && typeof exact.qos === "number" && exact.qos < packet.qos) packet.qos = exact.qos as 0 | 1 | 2;
    return packet;
  }

  // ---- online entries, revocation ----------------------------------------------------------

  function entryOf(state: ClientState): OnlineEntry {
    return {
      key_id: state.principal.keyId,
      client_id: state.clientId,
      connected_at: state.connectedAt,
      last_seen_at: new Date(state.lastSeen).toISOString(),
      instance_id: options.instanceId,
      connection_id: state.connectionId,
      session_expiry_seconds: state.sessionExpirySeconds,
      keeps_session: state.keepsSession,
    };
  }

  async function announce(state: ClientState) {
    await store.set(onlineClientKey(state.organizationId, state.clientId), JSON.stringify(entryOf(state)), { ttlMs: ONLINE_TTL_MS });
    await store.setAdd(onlineSetKey(state.organizationId), state.clientId);
  }

  async function withdraw(state: ClientState) {
    const key = onlineClientKey(state.organizationId, state.clientId);
    const raw = await store.get(key);
    if (!raw) return;
    const entry = JSON.parse(raw) as OnlineEntry;
    // Taken over meanwhile (the same client id, here or on another instance): theirs now.
    if (entry.connection_id !== state.connectionId) return;
    await store.del(key);
    await store.setRemove(onlineSetKey(state.organizationId), state.clientId);
  }

  function scheduleExpiry(client: Client, state: ClientState) {
    clearTimeout(state.expiryTimer);
    const at = state.principal.expiresAt;
    if (at === null) return;
    const ms = Math.min(Math.max(at - Date.now(), 0) + EXPIRY_SLACK_MS, 24 * 3600_000);
    state.expiryTimer = setTimeout(() => void recheck(client), ms).unref();
  }

  /**
   * Closes a connection, telling an MQTT 5 client why (`why`, `reasonCode`). By default its access
   * ended (a revoked key, a lost scope): its will is not published. With `revoked` false (an
   * administrator ended its session) the will is published, as for any connection the server ends,
   * unless its access had ended already. `done` runs once aedes has closed it.
   */
  function cut(client: Client, state: ClientState, why: string, reasonCode: number = ReasonCode.NOT_AUTHORIZED, revoked = true, done: () => void = () => undefined) {
    state.revoked ||= revoked;
    logger.info({ clientId: state.clientId, organizationId: state.organizationId, keyId: state.principal.keyId, why }, "mqtt: connection closed");
    // MQTT 5: told why first (DISCONNECT with the reason code); 3.1.1 has no DISCONNECT from the
    // server. Written here rather than by aedes' disconnect(), which says nothing until the client's
    // queue went out (nor has its `connackSent` yet while the CONNACK's write is pending): the
    // rewriter saw it go.
    if (client.version === 5 && rewriters.get(client)?.connackWritten && !client.closed) {
      const packet = mqttPacket.generate({ cmd: "disconnect", reasonCode, properties: { reasonString: why } }, { protocolVersion: 5 });
      client.conn.write(packet, () => client.close(done));
    } else client.close(done);
  }

  async function recheck(client: Client) {
    const state = states.get(client);
    if (!state || !auth) return;
    let principal;
    try {
      principal = await resolvePrincipal(auth, { apiKey: state.secret }, { allowDeviceKeys: true, touch: false });
    } catch (err) {
      const e = toAppError(err);
      if (e.status === 401 || e.status === 403) cut(client, state, e.code);
      // An outage: the connection stays; the next change or expiry checks again.
      else state.expiryTimer = setTimeout(() => void recheck(client), 5_000).unref();
      return;
    }
    if (principal.kind !== "api_key" || principal.organizationId !== state.organizationId) return cut(client, state, "organization changed");
    // A scope it used is gone (its creator was demoted): the connection ends, it may come back with what is left.
    if ((canPublish(state.principal) && !canPublish(principal)) || (canSubscribe(state.principal) && !canSubscribe(principal))) {
      return cut(client, state, "scope removed");
    }
    state.principal = principal;
    scheduleExpiry(client, state);
  }

  let rechecking: Promise<void> | null = null;
  let pending: AccessChangedMessage[] | "all" = [];
  function recheckAll(scope: AccessChangedMessage | null) {
    if (!scope || (!scope.organization_id && !scope.user_id)) pending = "all";
    else if (pending !== "all") pending.push(scope);
    if (rechecking) return;
    rechecking = (async () => {
      while (pending === "all" || pending.length > 0) {
        const scopes = pending;
        pending = [];
        const concerned = [...states.entries()].filter(
          ([, s]) => scopes === "all" || scopes.some((c) => (c.organization_id !== null && s.organizationId === c.organization_id) || (c.user_id !== null && s.principal.userId === c.user_id)),
        );
        for (let i = 0; i < concerned.length; i += RECHECK_CONCURRENCY) {
          await Promise.all(concerned.slice(i, i + RECHECK_CONCURRENCY).map(([client]) => recheck(client)));
        }
      }
    })().finally(() => {
      rechecking = null;
    });
  }

  // ---- flows (BuiltInMqtt) ----------------------------------------------------------------

  const FLOW_CLIENT = "$flows";

  const builtIn: BuiltInMqtt = {
    async publish(organizationId, message) {
      const b = broker;
      if (!b || closed) throw new Error("the built-in MQTT broker is not running");
      const refused = checkPublishTopic(message.topic);
      if (refused) throw new Error(`publishing to "${message.topic}" is not allowed on the built-in broker (${refused})`);
      if (message.payload.length > limits.messageBytes) throw new Error(`the message is larger than the built-in broker's limit (${limits.messageBytes} bytes)`);
      if (!(await rate.take(organizationId))) throw new Error("the organization publishes faster than the built-in broker's limit");
      if (message.retain && !(await retainedQuota.reserve(organizationId, message.topic, message.payload.length))) throw new Error(`${retainedRefusal} on the built-in broker`);
      const packet = {
        cmd: "publish",
        topic: internalTopic(organizationId, message.topic),
        payload: message.payload,
        qos: message.qos,
        retain: message.retain,
        dup: false,
        clientId: internalClientId(organizationId, FLOW_CLIENT),
        ...(message.properties ? { properties: publishProperties(message.properties) } : {}),
      } as unknown as PublishPacket;
      await new Promise<void>((resolve, reject) => b.publish(packet, (err) => (err ? reject(err) : resolve())));
    },

    async subscribe(organizationId, filter, subscribeOptions, handler) {
      const b = broker;
      if (!b || closed) throw new Error("the built-in MQTT broker is not running");
      const refused = checkSubscribeFilter(filter);
      if (refused) throw new Error(`subscribing to "${filter}" is not allowed on the built-in broker (${refused})`);
      const internal = internalTopic(organizationId, filter);
      const own = internalClientId(organizationId, FLOW_CLIENT);
      // Retained messages first: live ones wait until they have been handed over.
      let replaying = true;
      const waiting: BuiltInMqttMessage[] = [];
      const hand = (m: BuiltInMqttMessage) => {
        try {
          void Promise.resolve(handler(m)).catch((err: unknown) => logger.warn({ err, organizationId, filter }, "mqtt: a flow's handler failed"));
        } catch (err) {
          logger.warn({ err, organizationId, filter }, "mqtt: a flow's handler failed");
        }
      };
      const deliver = (packet: AedesPublishPacket, cb: () => void) => {
        cb();
        const topic = externalTopic(organizationId, packet.topic);
        if (topic === null || packet.topic.startsWith("$")) return;
        if (subscribeOptions.nl && (packet as { clientId?: string }).clientId === own) return;
        const m: BuiltInMqttMessage = {
          topic,
          payload: Buffer.from(packet.payload as Buffer),
          qos: Math.min(packet.qos, subscribeOptions.qos) as 0 | 1 | 2,
          retain: subscribeOptions.rap ? packet.retain : false,
          ...receivedProperties(packet),
        };
        if (replaying) waiting.push(m);
        else hand(m);
      };
      await new Promise<void>((resolve) => b.subscribe(internal, deliver as never, resolve));
      if ((subscribeOptions.rh ?? 0) !== 2) {
        try {
          for await (const packet of retainedMatching(b, internal)) {
            const topic = externalTopic(organizationId, packet.topic);
            if (topic === null) continue;
            if (expired(packet)) continue;
            hand({ topic, payload: Buffer.from(packet.payload as Buffer), qos: Math.min(packet.qos, subscribeOptions.qos) as 0 | 1 | 2, retain: true, ...receivedProperties(packet) });
          }
        } catch (err) {
          logger.warn({ err, organizationId, filter }, "mqtt: could not read retained messages");
        }
      }
      replaying = false;
      for (const m of waiting.splice(0)) hand(m);
      let done = false;
      return async () => {
        if (done) return;
        done = true;
        if (!broker || closed) return;
        await new Promise<void>((resolve) => b.unsubscribe(internal, deliver as never, resolve));
      };
    },
  };

  // ---- MQTT 5 session expiry across restarts -----------------------------------------------

  /** One ledger change after another per client id (a disconnect's deadline, then the reconnect's removal). */
  function ledgerStep(clientId: string, step: () => Promise<void>) {
    const previous = ledgerChains.get(clientId) ?? Promise.resolve();
    const next = previous.then(step).catch((err: unknown) => logger.warn({ err }, "mqtt: could not record a session's expiry"));
    ledgerChains.set(clientId, next);
    void next.then(() => {
      if (ledgerChains.get(clientId) === next) ledgerChains.delete(clientId);
    });
  }

  /**
   * A connection holds the client id: a row to look at again when its session has an interval; none
   * when it keeps its session without one (a row an earlier session of the id left would end it
   * while it is away). A clean session ends with its connection: the row, if any, is left to the
   * sweep, which finds the client connected (and drops the row) or ends a session that is gone.
   * So a clean CONNECT, the common one, costs no statement (it cost a DELETE each).
   */
  function connectedAs(client: Client): Promise<void> {
    const interval = expiringInterval(client as Client & { version?: number; sessionExpiryInterval?: number }, limits.persistentSessionExpirySeconds);
    if (interval > 0) return ledger.connected(client.id, interval);
    return client.clean === false ? ledger.forget(client.id) : Promise.resolve();
  }

  /** Ends the sessions whose expiry passed while no instance held their timer (restarts, kill -9). */
  async function sweepExpiredSessions() {
    if (sweeping || !broker || closed) return;
    sweeping = ledger
      .sweep(endExpiredSession)
      .then(() => undefined)
      .catch((err: unknown) => logger.warn({ err }, "mqtt: could not sweep expired sessions"))
      .finally(() => {
        sweeping = null;
      });
    await sweeping;
  }

  async function endExpiredSession({ clientId, intervalSeconds, connected }: DueSession) {
    const b = broker;
    const split = splitClientId(clientId);
    if (!split) return;
    if (!b || closed) throw new Error("the broker is closing");
    const here = (b as unknown as { clients: Record<string, Client> }).clients[clientId];
    if (here) {
      // Connected here: the connection's own interval (none for 3.1.1) decides.
      ledgerStep(clientId, () => connectedAs(here));
      return;
    }
    // Connected through another instance (or one killed a moment ago, until its entry lapses): its
    // connection's interval decides, as here. A row left by an earlier connection (a late disconnect
    // after a takeover) goes when that one's session has no deadline; else it is looked at again later.
    const online = await store.get(onlineClientKey(split.organizationId, split.clientId));
    if (online !== null) {
      const seconds = sessionExpiryOf(online);
      ledgerStep(clientId, () => (seconds === 0 ? ledger.forget(clientId) : ledger.connected(clientId, seconds ?? intervalSeconds)));
      return;
    }
    // It was connected at the last look, and its instance died without seeing it leave: its interval starts now.
    if (connected) {
      ledgerStep(clientId, () => ledger.disconnected(clientId, intervalSeconds));
      return;
    }
    const p = persistence as unknown as EndablePersistence;
    const client = { id: clientId } as Client;
    await p.cleanSubscriptions(client);
    await p.dropOutgoing(clientId);
    logger.info({ organizationId: split.organizationId, clientId: split.clientId }, "mqtt: a persistent session expired while its client was away");
  }

  // ---- the organization's sessions (GET /mqtt/sessions) ----------------------------------------

  async function sessions(organizationId: string): Promise<MqttSessions> {
    const p = persistence as unknown as ListablePersistence | null;
    const [stored, online, deadlines] = await Promise.all([
      p ? p.sessionsIn(organizationId) : [],
      onlineEntries(organizationId),
      options.prisma.mqttSessionExpiry.findMany({ where: { organizationId, connected: false }, select: { clientId: true, expiresAt: true } }),
    ]);
    const expiry = new Map(deadlines.map((d) => [d.clientId, d.expiresAt]));
    // A connection that leaves nothing behind (a clean session) holds no session to list.
    const kept = stored.filter((s) => {
      const entry = online.get(splitClientId(s.clientId)?.clientId ?? "");
      return !entry || entry.keeps_session !== false;
    });
    const [held, total] = await Promise.all([
      queuedBytes ? queuedBytes.held(organizationId, kept.map((s) => s.clientId)) : kept.map(() => 0),
      queuedBytes ? queuedBytes.usage(organizationId) : 0,
    ]);
    const list = kept
      .map((s, i): MqttSessionInfo => {
        const own = splitClientId(s.clientId)?.clientId ?? s.clientId;
        const connected = online.has(own);
        return {
          clientId: own,
          connected,
          subscriptions: s.subscriptions.map((sub) => ({ topic: splitTopic(sub.topic)?.topic ?? sub.topic, qos: sub.qos })).sort((a, b) => a.topic.localeCompare(b.topic)),
          queuedMessages: s.queued,
          queuedBytes: held[i] ?? 0,
          expiresAt: connected ? null : (expiry.get(s.clientId) ?? null),
        };
      })
      .sort((a, b) => a.clientId.localeCompare(b.clientId));
    return {
      sessions: list,
      queuedBytes: total,
      queuedBytesLimit: limits.queuedBytesPerOrganization,
      sessionsLimit: limits.sessionsPerOrganization,
      queuedPerSessionLimit: limits.queuedPerSession,
    };
  }

  /** The organization's connected clients' entries (any instance), by their own client id. */
  async function onlineEntries(organizationId: string): Promise<Map<string, OnlineEntry>> {
    const ids = await store.setMembers(onlineSetKey(organizationId));
    const raws = await Promise.all(ids.map((id) => store.get(onlineClientKey(organizationId, id))));
    const out = new Map<string, OnlineEntry>();
    raws.forEach((raw, i) => {
      if (raw === null) return;
      try {
        out.set(ids[i]!, JSON.parse(raw) as OnlineEntry);
      } catch {
        // Unreadable: not counted as connected.
      }
    });
    return out;
  }

  /**
   * While the id's session is being ended, CONNECTs with it are refused (admit reads the key), so
   * that no connection resumes the session being dropped; the instance holding its connection (or a
   * connection being admitted) closes it, and publishes a will it delays for the id. What is
   * dropped then is the session's: a connection that was past admit without being known anywhere
   * yet (milliseconds) keeps receiving live until it leaves, with nothing kept for it after.
   */
  async function endSession(organizationId: string, clientId: string): Promise<boolean> {
    const b = broker;
    const p = persistence as unknown as (ListablePersistence & EndablePersistence) | null;
    if (!b || !p || closed) throw new AppError("UNAVAILABLE", "the MQTT broker is not running");
    const internal = internalClientId(organizationId, clientId);
    const onlineKey = onlineClientKey(organizationId, clientId);
    const [held, online] = await Promise.all([p.hasSession(internal), store.get(onlineKey)]);
    if (online === null && !held) return false;
    const ending = endingKey(organizationId, clientId);
    await store.set(ending, "1", { ttlMs: ENDING_TTL_MS });
    try {
      // Every instance closes its connections of the id (this one too: the channel reaches all).
      await store.publish(MQTT_SESSION_END_CHANNEL, JSON.stringify({ client_id: internal }));
      if (online !== null) {
        // Gone once the instance holding it withdrew its entry; an instance killed meanwhile never
        // does (the entry lapses in ONLINE_TTL_MS): the session is dropped after END_WAIT_MS anyway.
        const until = Date.now() + END_WAIT_MS;
        while ((await store.get(onlineKey)) !== null && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // No expiry timer or deadline of the session may end a later one of the same id.
      (b as unknown as { clearSessionExpiry(id: string): void }).clearSessionExpiry(internal);
      ledgerStep(internal, () => ledger.forget(internal));
      await p.cleanSubscriptions({ id: internal } as Client);
      await p.dropOutgoing(internal);
    } finally {
      await store.del(ending).catch(() => undefined);
    }
    logger.info({ organizationId, clientId }, "mqtt: a session was ended by an administrator");
    return true;
  }

  /** An organization deleted (`MqttBroker.retire`): its sessions and connections end, its retained messages go. */
  async function retire(organizationId: string): Promise<void> {
    const b = broker;
    const p = persistence as unknown as ListablePersistence | null;
    if (!b || !p || closed) return;
    // Its connected clients too: a connection with a clean session has subscriptions but keeps no session.
    const [stored, online] = await Promise.all([p.sessionsIn(organizationId), onlineEntries(organizationId)]);
    const ids = new Set([...stored.map((s) => splitClientId(s.clientId)?.clientId ?? ""), ...online.keys()].filter((id) => id !== ""));
    for (const id of ids) {
      try {
        await endSession(organizationId, id);
      } catch (err) {
        logger.warn({ err, organizationId, clientId: id }, "mqtt: a deleted organization's session could not be ended");
      }
    }
    // Its retained messages: an empty retained publish deletes each (and gives its room back).
    const topics: string[] = [];
    for await (const packet of retainedMatching(b, internalTopic(organizationId, "#"))) if (externalTopic(organizationId, packet.topic) !== null) topics.push(packet.topic);
    for (const topic of topics) {
      await new Promise<void>((resolve) => b.publish({ cmd: "publish", topic, payload: Buffer.alloc(0), qos: 0, retain: true, dup: false } as PublishPacket, () => resolve()));
    }
    logger.info({ organizationId, sessions: ids.size, retained: topics.length }, "mqtt: a deleted organization's sessions ended and retained messages dropped");
  }

  /** Publishes now the will aedes delays on this instance for `clientId` (internal), if it does. */
  function publishDelayedWill(clientId: string) {
    const pending = delayedWills.get(clientId);
    if (!pending || !broker) return;
    delayedWills.delete(clientId);
    const b = broker as unknown as { clearDelayedWill(id: string): void; publishWill(client: Client, will: unknown): void; delayedWills: Map<string, unknown> };
    // Its timer fired already (the will went): nothing owed.
    if (!b.delayedWills.has(clientId)) return;
    b.clearDelayedWill(clientId);
    b.publishWill(pending.client, pending.will);
  }

  // ---- lifecycle --------------------------------------------------------------------------

  /** How long each step of close() may wait (Redis unreachable: its commands are never answered). */
  const CLOSE_STEP_MS = 3_000;

  async function start(deps: AuthDeps) {
    auth = deps;
    let mq;
    if (options.redis) {
      const [{ Redis }, { default: MQEmitterRedis }, { default: RedisPersistence }] = await Promise.all([
        import("ioredis"),
        import("mqemitter-redis"),
        import("aedes-persistence-redis/asyncPersistence.js"),
      ]);
      // The persistence's own encoding of stored packets.
      const msgpack = createRequire(createRequire(import.meta.url).resolve("aedes-persistence-redis/asyncPersistence.js"))("msgpack-lite") as { decode(buffer: Buffer): unknown };
      const OrganizationRedisPersistence = organizationRedisPersistence(RedisPersistence, msgpack);
      // Named (CLIENT LIST): `<key prefix>mqtt-pub`, `-sub`, `-data`.
      const name = (role: string) => `${options.redis!.keyPrefix}mqtt-${role}`.replace(/[^\w:.-]/g, "_");
      const connect = (role: string) => new Redis(options.redis!.url, { lazyConnect: false, maxRetriesPerRequest: null, connectionName: name(role) });
      const pub = connect("pub");
      const sub = connect("sub");
      const data = new Redis(options.redis.url, { keyPrefix: `${options.redis.keyPrefix}mqtt:`, connectionName: name("data") });
      // ioredis reconnects by itself; an error event with no listener would be printed as unhandled.
      let warnedAt = 0;
      for (const c of [pub, sub, data]) {
        c.on("error", (err: Error) => {
          if (Date.now() - warnedAt < 10_000) return;
          warnedAt = Date.now();
          logger.warn({ err }, "mqtt: Redis connection error (reconnecting)");
        });
      }
      redisConnections = [pub, sub, data];
      // Its channels carry the deployment's key prefix, as every other key and channel does: two
      // deployments on one Redis (REDIS_KEY_PREFIX) are two brokers, each instance receiving only
      // its own deployment's messages. A level of its own (`…mqtt/`), so `+/…` filters still align.
      const { MQEmitterRedisPrefix } = MQEmitterRedis as unknown as { MQEmitterRedisPrefix: new (prefix: string, options: object) => ReturnType<typeof MQEmitterRedis> };
      mq = new MQEmitterRedisPrefix(`${options.redis.keyPrefix}mqtt/`, { pubConn: pub, subConn: sub, matchEmptyLevels: true });
      // Redis unreachable: ioredis reconnects by itself; the emitter re-emits its connections' errors
      // on `state`, which would be an uncaught exception without a listener.
      (mq as unknown as { state: NodeJS.EventEmitter }).state.on("error", (err: unknown) => logger.warn({ err }, "mqtt: Redis emitter error"));
      queuedBytes = redisQueuedBytes(data, limits.queuedBytesPerOrganization);
      persistence = new OrganizationRedisPersistence(data, limits.queuedPerSession, grants, replayGuard, queuedBytes, queuedBytesFull);
      retainedQuota = redisRetainedQuota(data, retainedLimits);
    } else {
      mq = mqemitter({ matchEmptyLevels: true });
      const quota = memoryRetainedQuota(retainedLimits);
      retainedQuota = quota;
      const bytes = memoryQueuedBytes(limits.queuedBytesPerOrganization);
      queuedBytes = bytes;
      persistence = new DurablePersistence(
        options.prisma,
        logger,
        limits.queuedPerSession,
        grants,
        replayGuard,
        (topic, bytes) => {
          const own = splitTopic(topic);
          if (own) quota.restored(own.organizationId, own.topic, bytes);
        },
        bytes,
        queuedBytesFull,
        (clientId) => Boolean((broker as unknown as { clients?: Record<string, Client> } | null)?.clients?.[clientId]?.connected),
      );
    }
    // Outgoing packet identifiers skip those a session's queue still has in flight (packet-ids.ts).
    trackPacketIds(persistence as unknown as Parameters<typeof trackPacketIds>[0]);
    broker = await Aedes.createBroker({
      id: `${options.instanceId}-${randomUUID().slice(0, 8)}`,
      mq,
      persistence,
      // Internal client ids carry the organization's id (MQTT 3.1's 23-character limit is for theirs).
      maxClientsIdLength: 65_535,
      // MQTT 5: advertised in the CONNACK (the size guard enforces the packet size first).
      maximumPacketSize: maxPacketBytes,
      topicAliasMaximum: TOPIC_ALIAS_MAXIMUM,
      // A connection that has not sent CONNECT by then is closed (the /ws hub allows 10 s for its auth too).
      connectTimeout: CONNECT_TIMEOUT_MS,
      preConnect,
      authenticate: authenticate as never,
      authorizePublish,
      authorizeSubscribe,
      authorizeForward,
    });
    // MQTT 5 session expiry and will delay are timers on the instance a client left; a client that
    // comes back on another instance must stop them there too (aedes checks only its own clients,
    // and would wipe the session it just resumed elsewhere).
    const local = broker as unknown as { id: string; mq: { on(topic: string, fn: (packet: { topic: string; payload: Buffer | string }, cb: () => void) => void): void }; clearSessionExpiry(id: string): void; clearDelayedWill(id: string): void };
    local.mq.on("$SYS/+/new/clients", (packet: { topic: string; payload: Buffer | string }, cb: () => void) => {
      const id = packet.payload.toString();
      if (packet.topic.split("/")[1] !== local.id) {
        local.clearSessionExpiry(id);
        // A will delayed here goes from the persistence too (this instance's key; the connection
        // that takes it up elsewhere deletes only its own instance's): kept, another instance would
        // publish it once this one's broker id is gone (after its next restart), client online or not.
        const delayedHere = delayedWills.has(id);
        local.clearDelayedWill(id);
        if (delayedHere) void (persistence as unknown as { delWill(c: { id: string; brokerId: string }): Promise<unknown> }).delWill({ id, brokerId: local.id }).catch(() => undefined);
      }
      cb();
    });
    // Which wills aedes delays here, and with what (its own timers keep neither where we can read them).
    const willTimers = broker as unknown as { scheduleWill(client: Client, will: unknown, delaySeconds: number): void; clearDelayedWill(id: string): void; delayedWills: Map<string, unknown> };
    const scheduleWill = willTimers.scheduleWill.bind(broker);
    const clearDelayedWill = willTimers.clearDelayedWill.bind(broker);
    willTimers.scheduleWill = (client, will, delaySeconds) => {
      scheduleWill(client, will, delaySeconds);
      if (willTimers.delayedWills.has(client.id)) delayedWills.set(client.id, { client, will });
      if (delayedWills.size > willTimers.delayedWills.size) for (const id of delayedWills.keys()) if (!willTimers.delayedWills.has(id)) delayedWills.delete(id);
    };
    willTimers.clearDelayedWill = (id) => {
      clearDelayedWill(id);
      delayedWills.delete(id);
    };
    // Its timer fired (or the will went otherwise): nothing delayed any more.
    const willPublisher = broker as unknown as { publishWill(client: Client, will: unknown): void };
    const publishWill = willPublisher.publishWill.bind(broker);
    willPublisher.publishWill = (client, will) => {
      if (delayedWills.get(client.id)?.will === will) delayedWills.delete(client.id);
      publishWill(client, will);
    };
    // MQTT 5 session expiry that outlives this instance (session-expiry.ts): the deadline aedes
    // keeps as a timer is written to the database as well, and every instance sweeps the past ones.
    const expiring = local as unknown as ExpiringSessions;
    const scheduleInAedes = expiring.scheduleSessionExpiry.bind(broker);
    expiring.scheduleSessionExpiry = (client: Client) => {
      scheduleInAedes(client);
      const c = client as Client & { version?: number; sessionExpiryInterval?: number };
      if (expiring._takingOver.has(c.id)) return;
      if (c.version !== 5) {
        // Aedes keeps an MQTT 3.1.1 persistent session for ever; the operator may give it an end
        // (MQTT_PERSISTENT_SESSION_EXPIRY_SECONDS), which the sweep keeps.
        const seconds = expiringInterval(c, limits.persistentSessionExpirySeconds);
        if (seconds > 0) ledgerStep(c.id, () => ledger.disconnected(c.id, seconds));
        return;
      }
      const interval = c.sessionExpiryInterval ?? 0;
      if (interval >= SESSION_NEVER_EXPIRES) return;
      // While the broker runs, aedes has wiped a session that ends with its connection (or one over
      // its pending-sessions cap); closing, it leaves them all: the next sweep ends them in time.
      if (!expiring.closed && !expiring.expiringSessions.has(c.id)) return;
      ledgerStep(c.id, () => ledger.disconnected(c.id, interval));
    };
    broker.on("client", (client) => {
      const progress = connecting.get(client);
      if (progress) progress.step = "registered: writing the CONNACK";
      ledgerStep(client.id, () => connectedAs(client));
    });
    broker.on("connackSent", (_packet, client) => {
      clearTimeout(connecting.get(client)?.timer);
      connecting.delete(client);
    });
    broker.on("sessionExpired" as never, (client: Client) => ledgerStep(client.id, () => ledger.forget(client.id)));
    broker.on("clientReady", (client) => {
      // Aedes is ready once the queue has been replayed.
      replayGuard.settle(client);
      const state = states.get(client);
      if (!state) return;
      scheduleExpiry(client, state);
      void announce(state).catch((err: unknown) => logger.warn({ err }, "mqtt: could not record an online client"));
    });
    broker.on("clientDisconnect", (client) => forget(client));
    broker.on("clientError", (client) => {
      if (client.closed) forget(client);
    });
    broker.on("connectionError", (client) => forget(client));
    broker.on("ping", (_packet, client) => {
      const state = states.get(client);
      if (state) state.lastSeen = Date.now();
    });
    broker.on("unsubscribe", (topics, client) => {
      const state = states.get(client);
      if (state) for (const t of topics) state.filters.delete(t);
    });
    renewTimer = setInterval(() => {
      for (const state of states.values()) void announce(state).catch(() => undefined);
    }, RENEW_MS);
    renewTimer.unref();
    const listen = (channel: string, handler: (message: string) => void) =>
      subscriptions.push(durableSubscription(store, channel, handler, { onRetry: (err, attempt) => logger.warn({ err, channel, attempt }, "mqtt: store subscription failed; retrying") }));
    listen(API_KEY_REVOKED_CHANNEL, (message) => {
      let keyId: unknown;
      try {
        keyId = (JSON.parse(message) as { key_id?: unknown }).key_id;
      } catch {
        return;
      }
      for (const [client, state] of states) if (state.principal.keyId === keyId) cut(client, state, "API key revoked");
    });
    listen(MQTT_SESSION_END_CHANNEL, (message) => {
      let clientId: unknown;
      try {
        clientId = (JSON.parse(message) as { client_id?: unknown }).client_id;
      } catch {
        return;
      }
      if (typeof clientId !== "string") return;
      // Every connection of the id here, connected or being admitted (the one a takeover replaces, too).
      // (A client's id is aedes' only once it takes up the CONNECT: the state's says it from admit on.)
      const here = [...states].filter(([, state]) => internalClientId(state.organizationId, state.clientId) === clientId);
      for (const [client, state] of here) cut(client, state, "session ended by an administrator", ReasonCode.ADMINISTRATIVE_ACTION, false, () => publishDelayedWill(clientId));
      // A will this instance delays for the id (its client left here) goes now: the session ends (MQTT 5 §3.1.3.2.2).
      if (here.length === 0) publishDelayedWill(clientId);
    });
    listen(ACCESS_CHANGED_CHANNEL, (message) => {
      let scope: AccessChangedMessage | null = null;
      try {
        scope = JSON.parse(message) as AccessChangedMessage;
      } catch {
        // Unreadable: check everyone.
      }
      recheckAll(scope);
    });
    await Promise.all(subscriptions.map((s) => s.ready));
    // Once every listener is in place (a WebSocket client may connect from now on): the sessions
    // that expired while no instance held their timer, then every SESSION_SWEEP_MS.
    await sweepExpiredSessions();
    // Closed meanwhile (a start cut short): no timer outlives the broker and its database.
    if (closed) return;
    sweepTimer = setInterval(() => void sweepExpiredSessions(), SESSION_SWEEP_MS);
    sweepTimer.unref();
  }

  /** `gone`: its connection closed a while ago, whatever aedes says. */
  function forget(client: Client, gone = false) {
    const state = states.get(client);
    if (!state) return;
    // Closed: the state stays while aedes still publishes its will (it asks authorizePublish).
    if (!client.closed && !gone) return;
    states.delete(client);
    replayGuard.release(client);
    clearTimeout(state.expiryTimer);
    void withdraw(state).catch(() => undefined);
    // [MQTT-3.1.2-6]: a clean session's inbound QoS 2 messages still awaiting PUBREL end with it
    // (Aedes 1.2's cleanIncoming; the beta keeps them, and a client repeating this would grow the store).
    const waiting = inboundQos2.get(client);
    if (waiting && waiting.size > 0 && client.clean && persistence) {
      const p = persistence as unknown as { incomingDelPacket(c: { id: string }, p: { messageId: number }): Promise<void> };
      for (const messageId of waiting) void p.incomingDelPacket({ id: client.id }, { messageId }).catch(() => undefined);
    }
    inboundQos2.delete(client);
  }

  function handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer, clientIp?: string) {
    if (!broker || closed) {
      socket.destroy();
      return;
    }
    // As the /ws hub: at most limits.connectingPerAddress sockets of one address before their CONNECT is admitted.
    const release = holdSlot(clientIp ?? peerAddress(req.socket), socket);
    if (!release) {
      refuseUpgrade(socket, 429, CROWDED_RETRY_AFTER_SEC);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const stream = createWebSocketStream(ws);
      let frameTooLarge = false;
      stream.on("error", () => {
        // After a refused frame ws closes with its handshake (reading and dropping the rest), so
        // what it sent last is not lost to a reset; past 2 s the connection ends anyway.
        if (frameTooLarge) setTimeout(() => ws.terminate(), 2_000).unref();
        else ws.terminate();
      });
      const connection = serveStream(broker!, stream, release, req);
      // A frame over maxPayload never reaches the size guard: ws refuses it from its header on (so
      // it is never buffered) and closes with 1009. Its receiver reports that before it closes, so
      // an MQTT 5 client is told why first, as over TCP: DISCONNECT 0x95 in a frame of its own.
      // (`_receiver` is ws's own; mqtt5.integration.test.ts fails if a ws update moves it.)
      const receiver = (ws as unknown as { _receiver?: Duplex })._receiver;
      receiver?.prependListener("error", (err: Error & { code?: string }) => {
        if (err.code !== "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH" || ws.readyState !== ws.OPEN) return;
        frameTooLarge = true;
        const disconnect = connection.tooLargeDisconnect();
        if (disconnect) ws.send(disconnect);
      });
    });
  }

  /**
   * A slot of `ip`'s connections not admitted yet, held until the returned release (at admission)
   * or `socket`'s close; null when the address has none left (limits.connectingPerAddress).
   */
  function holdSlot(ip: string, socket: Duplex): (() => void) | null {
    if (pendingPerIp.crowded(ip)) return null;
    pendingPerIp.add(ip);
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      pendingPerIp.remove(ip);
    };
    socket.once("close", release);
    return release;
  }

  /**
   * One connection: the size guard and the reason-code rewriter around it, then aedes. `release`
   * frees its address's slot (holdSlot) once its CONNECT is admitted.
   */
  function serveStream(b: Aedes, stream: Duplex, release: () => void, req?: http.IncomingMessage) {
    const acks = new AckRewriter();
    let client: Client | null = null;
    const reasonString = `packets are limited to ${maxPacketBytes} bytes`;
    /** The client was told already (a second packet too large, or its frame too, says nothing more). */
    let told = false;
    /** The DISCONNECT 0x95 a client is owed, as bytes for the caller to send at once (ws's close follows); else null. */
    const tooLargeDisconnect = (): Buffer | null => {
      if (told || !client || !owedDisconnect(client)) return null;
      told = true;
      return disconnectPacket(ReasonCode.PACKET_TOO_LARGE, reasonString);
    };
    const onTooLarge = () => {
      // A connected MQTT 5 client is told why (DISCONNECT 0x95); before its CONNACK, or 3.1.1: just closed.
      if (told || !client) return false;
      told = disconnectV5(client, ReasonCode.PACKET_TOO_LARGE, reasonString);
      return told;
    };
    try {
      client = b.handle(guardPacketSize(stream, maxPacketBytes, { onTooLarge, acks }), req as never);
    } catch (err) {
      stream.destroy();
      throw err;
    }
    unadmitted.set(client, release);
    transports.set(client, stream);
    watch(client, acks);
    return { tooLargeDisconnect };
  }

  async function listen(listenOptions: MqttListenOptions): Promise<number> {
    if (!broker) throw new Error("the MQTT broker has not started");
    const b = broker;
    // No Nagle: an acknowledgement and the next packet must not wait for each other (40 ms each
    // with delayed ACKs), as Mosquitto sets TCP_NODELAY.
    // One address holding limits.connectingPerAddress connections that have not been admitted yet
    // (no CONNECT, or one being checked) gets no more: closed at once, so a flood of idle sockets
    // cannot use up the server's descriptors. Counted as the TCP connection arrives, before a TLS
    // handshake (a peer that never sends its ClientHello holds a slot, for at most CONNECT_TIMEOUT_MS).
    const slots = new Map<string, () => void>();
    const slotKey = (socket: net.Socket) => `${socket.remoteAddress}|${socket.remotePort}`;
    const arrive = (socket: net.Socket): (() => void) | null => {
      const release = holdSlot(peerAddress(socket), socket);
      if (!release) socket.destroy();
      return release;
    };
    const serve = (socket: net.Socket, release: () => void) => {
      socket.setNoDelay(true);
      serveStream(b, socket, release);
    };
    let server: net.Server;
    if (listenOptions.tls) {
      server = tls.createServer({ cert: readPem(listenOptions.tls.cert), key: readPem(listenOptions.tls.key), handshakeTimeout: CONNECT_TIMEOUT_MS }, (secure) => {
        const key = slotKey(secure);
        const release = slots.get(key);
        slots.delete(key);
        if (release) serve(secure, release);
        else secure.destroy();
      });
      server.on("connection", (raw: net.Socket) => {
        const release = arrive(raw);
        if (!release) return;
        const key = slotKey(raw);
        slots.set(key, release);
        raw.once("close", () => {
          if (slots.get(key) === release) slots.delete(key);
        });
      });
      // Node's handshake timeout only reports the stalled connection: closed here, which frees its slot.
      server.on("tlsClientError", (_err: Error, socket: tls.TLSSocket) => socket.destroy());
    } else {
      server = net.createServer((socket) => {
        const release = arrive(socket);
        if (release) serve(socket, release);
      });
    }
    servers.push(server);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(listenOptions.port, listenOptions.host ?? "0.0.0.0", () => {
        server.off("error", reject);
        resolve();
      });
    });
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : listenOptions.port;
    logger.info({ port, tls: Boolean(listenOptions.tls) }, `mqtt listening on ${listenOptions.tls ? "mqtts" : "mqtt"}://${listenOptions.host ?? "0.0.0.0"}:${port}`);
    return port;
  }

  async function close() {
    if (closed) return;
    closed = true;
    if (renewTimer) clearInterval(renewTimer);
    if (sweepTimer) clearInterval(sweepTimer);
    for (const server of servers) server.close();
    for (const ws of wss.clients) ws.terminate();
    await Promise.all(subscriptions.map((s) => s.stop()));
    const leaving = [...states.values()];
    // A shutdown is not the clients' failure: their wills are not published (they reconnect, to another instance).
    for (const s of leaving) s.revoked = true;
    await Promise.all(leaving.map((s) => withdraw(s).catch(() => undefined)));
    for (const s of leaving) clearTimeout(s.expiryTimer);
    // With Redis unreachable, closing waits on commands that are never answered: each step gets a
    // deadline, then the connections are dropped.
    const deadline = (work: Promise<unknown>) => Promise.race([work, new Promise((resolve) => setTimeout(resolve, CLOSE_STEP_MS).unref())]);
    if (broker) {
      const b = broker;
      // aedes closes its clients and destroys the persistence (which writes what is pending).
      await deadline(new Promise<void>((resolve) => b.close(() => resolve())));
    }
    // The deadlines of the sessions closing just now, and a sweep under way (session-expiry.ts).
    await deadline(Promise.all([...ledgerChains.values(), sweeping]));
    await deadline(persistence?.destroy().catch((err: unknown) => logger.warn({ err }, "mqtt: could not close the persistence")) ?? Promise.resolve());
    for (const c of redisConnections) c.disconnect();
    states.clear();
  }

  return {
    builtIn,
    start,
    handleUpgrade,
    listen,
    get clientCount() {
      return states.size;
    },
    sweepExpiredSessions,
    sessions,
    endSession,
    retire,
    close,
  };
}
