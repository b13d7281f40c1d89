/**
 * The built-in broker's persistence on the embedded backend (PGlite or PostgreSQL, no Redis):
 * aedes' in-memory persistence, written through to PostgreSQL so that retained messages and
 * persistent sessions (clean session false: subscriptions and the QoS 1/2 messages queued for
 * the offline client) survive a restart. Reads stay in memory; the tables are read once, at start.
 *
 * A retained message is written before the publish completes (so before its PUBACK). A session's
 * subscriptions and its queue are written shortly after they change (SESSION_FLUSH_MS) and on close:
 * the queue a row per message (`mqtt_session_messages`), inserted when queued and deleted when
 * acknowledged, and a message acknowledged before the write is never written (one for a connected
 * client waits up to CONNECTED_WRITE_AFTER_MS for its acknowledgement). A QoS 2 message whose
 * PUBREC came has its PUBREL's packet id written in its row, so that a restart sends the PUBREL
 * again, never the PUBLISH (qos2-restart.integration.test.ts). A crash may lose the last
 * few milliseconds of an away session's queue (up to a second of a connected one's, which it was
 * most likely sent already), as an in-memory broker loses all of it.
 * With Redis, aedes-persistence-redis keeps all of this in Redis instead (broker.ts).
 */
import { Readable } from "node:stream";
import type { Client, Subscription } from "aedes";
import type { AedesPacket } from "aedes-packet";
import MemoryPersistence from "aedes-persistence/asyncPersistence.js";
import { Prisma } from "../../generated/prisma/client";
import type { PrismaClient } from "../db";
import type { Logger } from "../logger";
import type { SubscriptionGrants } from "./subscription-grants";
import type { memoryQueuedBytes } from "./queued-bytes";
import { withoutSent, type ReplayGuard } from "./replay-guard";
import { internalTopic, splitClientId } from "./topics";

/** See broker.ts: a delivery's copy carries the receiver's topic; the queue keeps the internal one. */
export function storedTopicPacket<P>(internalClient: string, packet: P): P {
  const topic = (packet as { topic?: unknown }).topic;
  const organizationId = splitClientId(internalClient)?.organizationId;
  if (!organizationId || typeof topic !== "string" || topic.startsWith(`${organizationId}/`)) return packet;
  return Object.assign(Object.create(Object.getPrototypeOf(packet) as object) as P & object, packet, { topic: internalTopic(organizationId, topic) });
}

/** aedes' stored packets are publishes. */
type Publish = Extract<AedesPacket, { cmd: "publish" }>;

const SESSION_FLUSH_MS = 20;

/** A queued message as its row holds it, taken when it is queued (aedes may change the packet after). */
interface QueuedRow {
  topic: string;
  payload: Buffer;
  qos: number;
  retain: boolean;
  brokerId: string;
  brokerCounter: number;
  /** MQTT 5: v5Part of its properties (storedProperties) and expiry; undefined for 3.1.1. */
  meta?: { properties?: Record<string, unknown>; messageExpiry?: number };
}

/** The queued message a QoS 2 message's PUBREL stands for (its row and its bytes). */
interface QueuedAs {
  brokerId: string;
  brokerCounter: number;
  bytes: number;
}

/** A change to the queues' rows, in the order it happened; written at the next flush. */
type QueueChange =
  /** `releasedAs`: its PUBREL's packet id, once the client's PUBREC came before the row was written. */
  | { kind: "queued"; clientId: string; row: QueuedRow; at: number; releasedAs?: number }
  | { kind: "cleared"; clientId: string; brokerId: string; brokerCounter: number }
  /** QoS 2: the client's PUBREC came; the broker owes the PUBREL with this packet id (also after a restart). */
  | { kind: "released"; clientId: string; brokerId: string; brokerCounter: number; messageId: number }
  | { kind: "dropped"; clientId: string };

/** Rows read at a time when the queues are restored at start. */
const RESTORE_BATCH = 500;
/** A failed write is tried again after this long, doubled at each failure up to RETRY_MAX_MS. */
const RETRY_FIRST_MS = 50;
const RETRY_MAX_MS = 5_000;
/** On close, pending changes are tried this many times. */
const CLOSE_ATTEMPTS = 3;
/**
 * Writes of queue changes tried together, in one transaction, before the last attempt writes them
 * one at a time (about 16 s of retries): a row the database refuses then costs only itself.
 */
const WRITE_ATTEMPTS = 10;
/**
 * A message for a connected client is written once it has waited this long unacknowledged: most
 * are acknowledged sooner (over a slow link too) and never written; one for a client away waits
 * SESSION_FLUSH_MS at most.
 */
const CONNECTED_WRITE_AFTER_MS = 1_000;

/** MQTT 5 properties as JSON: correlation data (bytes) in base64. */
function storedProperties(properties: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!properties) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(properties)) {
    if (v === undefined || k === "topicAlias" || k === "subscriptionIdentifier") continue;
    out[k] = Buffer.isBuffer(v) ? { base64: v.toString("base64") } : jsonbSafe(v);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * PostgreSQL's jsonb holds no NUL character, which MQTT 5 strings (a user property) may carry: such
 * a string is kept as `{ utf8: <base64> }` (the write of a whole batch failed on one before).
 */
function jsonbSafe(value: unknown): unknown {
  if (typeof value === "string") return value.includes("\u0000") ? { utf8: Buffer.from(value).toString("base64") } : value;
  if (Array.isArray(value)) return value.map(jsonbSafe);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replaceAll("\u0000", ""), jsonbSafe(v)]));
  return value;
}

function fromJsonbSafe(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fromJsonbSafe);
  if (value && typeof value === "object") {
    const entries = Object.entries(value);
    if (entries.length === 1 && entries[0]![0] === "utf8" && typeof entries[0]![1] === "string") return Buffer.from(entries[0]![1], "base64").toString();
    return Object.fromEntries(entries.map(([k, v]) => [k, fromJsonbSafe(v)]));
  }
  return value;
}

function readProperties(stored: unknown): Record<string, unknown> | undefined {
  if (!stored || typeof stored !== "object") return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(stored as Record<string, unknown>)) {
    out[k] = v && typeof v === "object" && typeof (v as { base64?: unknown }).base64 === "string" ? Buffer.from((v as { base64: string }).base64, "base64") : fromJsonbSafe(v);
  }
  return out;
}

function queuedRow(packet: Publish): QueuedRow {
  const v5 = packet as { properties?: Record<string, unknown>; messageExpiry?: number };
  const properties = storedProperties(v5.properties);
  return {
    topic: packet.topic,
    payload: Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload),
    qos: packet.qos,
    retain: packet.retain,
    brokerId: packet.brokerId,
    brokerCounter: packet.brokerCounter,
    ...(properties || v5.messageExpiry !== undefined ? { meta: v5Part(properties, v5.messageExpiry) } : {}),
  };
}

/**
 * The sessions a message is queued for, each once: a client whose filters overlap (`home/#` and
 * `home/kitchen`) is given it once (Aedes delivers one copy and drops the other without a packet
 * id), but it was queued twice, and the second copy stayed in its queue for ever.
 */
export function oncePerClient<S extends { clientId: string }>(subs: S[]): S[] {
  const seen = new Set<string>();
  return subs.filter((sub) => !seen.has(sub.clientId) && Boolean(seen.add(sub.clientId)));
}

/** A message of a client's queue: its row's unique key. */
const messageKey = (clientId: string, brokerId: string, brokerCounter: number) => `${clientId}\u0000${brokerId}\u0000${brokerCounter}`;

/** A statement inserting queued messages carries at most about this many payload bytes. */
const INSERT_BATCH_BYTES = 8 * 1024 * 1024;

/** A stored packet's MQTT 5 part (nothing for 3.1.1 messages). */
function v5Part(properties: Record<string, unknown> | undefined, messageExpiry: number | undefined): { properties?: Record<string, unknown>; messageExpiry?: number } {
  return { ...(properties ? { properties } : {}), ...(typeof messageExpiry === "number" ? { messageExpiry } : {}) };
}

/** A session as a persistence keeps it: internal client id and filters, and its queue's length. */
export interface StoredSession {
  clientId: string;
  subscriptions: Array<{ topic: string; qos: number }>;
  queued: number;
}

export class DurablePersistence extends MemoryPersistence {
  /** Clients whose session is in the table (or about to be). */
  private readonly known = new Set<string>();
  private readonly dirty = new Set<string>();
  private flushTimer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  /** Retained writes in order, per topic. */
  private readonly retainedWrites = new Map<string, Promise<void>>();
  /** Messages queued per client (sent or not, not yet acknowledged). */
  private readonly queued = new Map<string, number>();
  /** Queue changes not written yet, in order. */
  private changes: QueueChange[] = [];
  /** Writes of `changes` that failed so far (they are kept and tried again). */
  private failedWrites = 0;
  private closed = false;
  /** Organizations found to exist (a queued message's row refers to its organization). */
  private readonly organizationsSeen = new Set<string>();
  /** Clients whose subscriptions changed since their row was written. */
  private readonly subscriptionsChanged = new Set<string>();
  /** Inside dropOutgoing: its clears are one "dropped" change, not one each. */
  private readonly dropping = new Set<string>();

  constructor(
    private readonly prisma: PrismaClient,
    private readonly logger: Logger,
    /** Messages one session may have queued; more are dropped for it (Mosquitto's max_queued_messages). */
    private readonly maxQueued = Number.POSITIVE_INFINITY,
    /** Which of a SUBSCRIBE's filters were granted (subscription-grants.ts). */
    private readonly grants: SubscriptionGrants,
    /** What a returning session's connection was already sent live (replay-guard.ts). */
    private readonly replayGuard?: ReplayGuard,
    /** Each retained message restored at start (its internal topic and payload size): the retained quota's count. */
    private readonly onRetainedRestored?: (topic: string, bytes: number) => void,
    /** The organizations' queued bytes (queued-bytes.ts); none: unbounded. */
    private readonly queuedBytes?: ReturnType<typeof memoryQueuedBytes>,
    /** A message was dropped for sessions of `organizationId` because their queued bytes are at the limit. */
    private readonly onQueuedBytesFull?: (organizationId: string) => void,
    /** Whether the client of a session is connected here (its messages are usually acknowledged at once). */
    private readonly isConnected: (clientId: string) => boolean = () => false,
  ) {
    super();
  }

  override async setup(broker: unknown): Promise<void> {
    await super.setup(broker);
    const retained = await this.prisma.mqttRetained.findMany();
    for (const row of retained) {
      const meta = (row.properties ?? null) as { properties?: unknown; messageExpiry?: number } | null;
      if (typeof meta?.messageExpiry === "number" && meta.messageExpiry <= Date.now()) continue;
      this.onRetainedRestored?.(row.topic, row.payload.length);
      await super.storeRetained({
        cmd: "publish",
        topic: row.topic,
        payload: Buffer.from(row.payload),
        qos: row.qos as 0 | 1 | 2,
        retain: true,
        dup: false,
        brokerId: "",
        brokerCounter: 0,
        ...v5Part(readProperties(meta?.properties), meta?.messageExpiry),
      } as AedesPacket);
    }
    const sessions = await this.prisma.mqttSession.findMany();
    for (const row of sessions) {
      const client = { id: row.clientId } as Client;
      const subs = row.subscriptions as unknown as Subscription[];
      if (subs.length > 0) await super.addSubscriptions(client, subs);
      this.known.add(row.clientId);
    }
    // The queues, in their order, a batch at a time.
    let after: bigint | undefined;
    for (;;) {
      const rows = await this.prisma.mqttSessionMessage.findMany({ orderBy: { seq: "asc" }, take: RESTORE_BATCH, ...(after === undefined ? {} : { where: { seq: { gt: after } } }) });
      for (const row of rows) {
        this.queued.set(row.clientId, (this.queued.get(row.clientId) ?? 0) + 1);
        this.queuedBytes?.restored(row.organizationId, row.clientId, row.payload.length);
        this.known.add(row.clientId);
        const meta = (row.properties ?? null) as { properties?: unknown; messageExpiry?: number } | null;
        const message = { brokerId: row.brokerId, brokerCounter: Number(row.brokerCounter) };
        await super.outgoingEnqueue({ clientId: row.clientId }, {
          cmd: "publish",
          topic: row.topic,
          payload: Buffer.from(row.payload),
          qos: row.qos as 0 | 1 | 2,
          retain: row.retain,
          dup: false,
          brokerId: row.brokerId,
          brokerCounter: Number(row.brokerCounter),
          ...v5Part(readProperties(meta?.properties), meta?.messageExpiry),
        } as AedesPacket);
        if (row.pubrelMessageId !== null) {
          // Its PUBREC came before the restart: the PUBREL takes its place, as outgoingUpdate puts it
          // (the packet id set on the publish first, by which the PUBREL replaces it).
          const client = { id: row.clientId } as Client;
          await super.outgoingUpdate(client, { ...message, messageId: row.pubrelMessageId } as AedesPacket);
          const queuedAs: QueuedAs = { ...message, bytes: row.payload.length };
          await super.outgoingUpdate(client, { cmd: "pubrel", messageId: row.pubrelMessageId, brokerId: `${message.brokerId}#pubrel`, brokerCounter: message.brokerCounter, queuedAs } as unknown as AedesPacket);
        }
      }
      if (rows.length < RESTORE_BATCH) break;
      after = rows[rows.length - 1]!.seq;
    }
  }

  override async storeRetained(stored: AedesPacket): Promise<void> {
    await super.storeRetained(stored);
    const packet = stored as Publish;
    const topic = packet.topic;
    const organizationId = topic.slice(0, topic.indexOf("/"));
    const previous = this.retainedWrites.get(topic) ?? Promise.resolve();
    const write = previous.then(async () => {
      if (packet.payload.length === 0) await this.prisma.mqttRetained.deleteMany({ where: { topic } });
      else {
        const properties = storedProperties((packet as { properties?: Record<string, unknown> }).properties);
        const messageExpiry = (packet as { messageExpiry?: number }).messageExpiry;
        const meta = properties || messageExpiry !== undefined ? v5Part(properties, messageExpiry) : Prisma.DbNull;
        const data = { organizationId, payload: new Uint8Array(Buffer.from(packet.payload)), qos: packet.qos, properties: meta as Prisma.InputJsonValue };
        await this.prisma.mqttRetained.upsert({ where: { topic }, create: { topic, ...data }, update: data });
      }
    });
    const settled = write.catch(() => undefined);
    this.retainedWrites.set(topic, settled);
    void settled.then(() => {
      if (this.retainedWrites.get(topic) === settled) this.retainedWrites.delete(topic);
    });
    // An organization deleted meanwhile (the row's foreign key) leaves nothing to keep.
    await write.catch((err: unknown) => this.logger.warn({ err, topic }, "mqtt: could not store a retained message"));
  }

  override async addSubscriptions(client: Client, subs: Subscription[]): Promise<void> {
    await this.grants.storeOnce(subs, async (granted) => {
      await super.addSubscriptions(client, granted);
      this.subscriptionsChanged.add(client.id);
      this.touch(client.id);
    });
  }

  /**
   * A session without subscriptions has ended (an UNSUBSCRIBE of its last filter): its queue goes
   * with them, as aedes-persistence-redis drops it.
   */
  override async removeSubscriptions(client: Client, subs: string[]): Promise<void> {
    await super.removeSubscriptions(client, subs);
    if ((await this.subscriptionsByClient(client)).length === 0) await this.dropOutgoing(client.id);
    if (this.known.has(client.id)) this.subscriptionsChanged.add(client.id);
    this.touchIfKnown(client.id);
  }

  /**
   * The session ends (a clean-session CONNECT, an expiry): its queue goes too. Aedes' own expiry
   * empties it through outgoingClearMessageId, which finds none of the messages never sent (they
   * have no packet id yet), so they stayed, and were delivered to the client's next session.
   */
  override async cleanSubscriptions(client: Client): Promise<void> {
    await super.cleanSubscriptions(client);
    await this.dropOutgoing(client.id);
    // Its inbound QoS 2 messages awaiting their PUBREL ([MQTT-3.1.2-6]): kept in memory by the
    // persistence, they made the id's next session's message with one of their packet ids a
    // duplicate, acknowledged and never published (Aedes publishes a QoS 2 message as it arrives).
    await super.cleanIncoming(client);
    if (this.known.has(client.id)) this.subscriptionsChanged.add(client.id);
    this.touchIfKnown(client.id);
    // Ended now, for the session limit's count too (its row goes at the flush, which looks at it again).
    if (!this.queued.has(client.id)) this.known.delete(client.id);
  }

  override async outgoingEnqueue(sub: { clientId: string }, packet: AedesPacket): Promise<void> {
    await this.outgoingEnqueueCombi([sub], packet);
  }

  override async outgoingEnqueueCombi(subs: { clientId: string }[], packet: AedesPacket): Promise<void> {
    let room = oncePerClient(subs).filter((sub) => (this.queued.get(sub.clientId) ?? 0) < this.maxQueued);
    if (room.length === 0) return;
    const organizationId = splitClientId(room[0]!.clientId)?.organizationId;
    if (this.queuedBytes && organizationId) {
      // The subscribers of one topic are of its organization (their filters carry its prefix).
      const { brokerId, brokerCounter, payload } = packet as Publish;
      const granted = new Set(await this.queuedBytes.reserve(organizationId, room.map((sub) => sub.clientId), `${brokerId}:${brokerCounter}`, payload.length));
      if (granted.size < room.length) this.onQueuedBytesFull?.(organizationId);
      room = room.filter((sub) => granted.has(sub.clientId));
      if (room.length === 0) return;
    }
    for (const sub of room) this.queued.set(sub.clientId, (this.queued.get(sub.clientId) ?? 0) + 1);
    await super.outgoingEnqueueCombi(room, packet);
    const row = queuedRow(packet as Publish);
    const at = performance.now();
    for (const sub of room) {
      this.changes.push({ kind: "queued", clientId: sub.clientId, row, at });
      this.touch(sub.clientId);
    }
  }

  /**
   * A QoS 2 message's PUBREL takes its publish's place in the memory queue (found by packet id),
   * without the publish's broker id, counter or payload: the PUBREL carries them (`queuedAs`),
   * so that its PUBCOMP deletes the right row and gives the right bytes back, also after a
   * returning client was sent the PUBREL again (Aedes makes a new packet of it, with our help
   * carrying `queuedAs` over).
   */
  override async outgoingUpdate(client: Client, packet: AedesPacket): Promise<void> {
    let listed = false;
    for await (const queued of super.outgoingStream(client) as AsyncIterable<AedesPacket & { queuedAs?: QueuedAs }>) {
      if (packet.cmd !== "pubrel") {
        if (queued.brokerId !== packet.brokerId || queued.brokerCounter !== packet.brokerCounter) continue;
        // Its packet id, set here on its own entry: the memory persistence, which matches by packet
        // id where the broker id differs, would put the publish in the place of a PUBREL that has
        // this packet id (one restored after a restart: its id is the client's, not this
        // connection's), losing the PUBREL and keeping the publish twice.
        queued.messageId = packet.messageId;
        return;
      }
      if (queued.messageId !== packet.messageId) continue;
      listed = true;
      const queuedAs = queued.cmd === "publish" ? { brokerId: queued.brokerId, brokerCounter: queued.brokerCounter, bytes: queued.payload.length } : queued.queuedAs;
      if (queuedAs && queued.cmd === "publish") {
        // Written with its row: after a restart the client is sent this PUBREL, not the PUBLISH it
        // acknowledged already (which it would take for a new message: exactly once broken).
        this.changes.push({ kind: "released", clientId: client.id, brokerId: queuedAs.brokerId, brokerCounter: queuedAs.brokerCounter, messageId: packet.messageId as number });
        this.touchIfKnown(client.id);
      }
      if (queuedAs) {
        // The memory persistence finds a queued packet by broker id and counter first, and by
        // packet id only when the broker id differs: PUBRELs without them all matched the first
        // PUBREL queued (its packet id overwritten), so a client with two QoS 2 messages under way
        // had one of them left in its queue for ever. Each PUBREL gets one of its own.
        Object.assign(packet, { queuedAs, brokerId: `${queuedAs.brokerId}#pubrel`, brokerCounter: queuedAs.brokerCounter });
      }
      break;
    }
    // A message delivered live but not queued for this client (its session's queue, or its
    // organization's queued bytes, had no room): nothing to update. The memory persistence would
    // throw "no such packet", and Aedes would close the connection for it.
    if (!listed) return;
    // A PUBREL: in its publish's place (by packet id).
    await super.outgoingUpdate(client, storedTopicPacket(client.id, packet));
  }

  /**
   * A clear without a packet id names no message: Aedes asks for one when it drops a live copy (a
   * duplicate, or one refused to this client). The memory persistence would take the first queued
   * message that has no packet id yet, one that was never sent (as Redis's finds nothing).
   */
  override async outgoingClearMessageId(client: Client, packet: AedesPacket): Promise<AedesPacket> {
    // Nothing, as the persistence answers when no message matches (its types say otherwise).
    if ((packet as { messageId?: number | null }).messageId == null) return undefined as unknown as AedesPacket;
    return this.clearQueued(client, packet);
  }

  /** The queue as Aedes replays it to a returning session: without what it was already sent live. */
  override outgoingStream(client: Client) {
    const queued = super.outgoingStream(client);
    const guard = this.replayGuard;
    if (!guard) return queued;
    return Readable.from(withoutSent(queued as AsyncIterable<AedesPacket>, (packet) => guard.sentAlready(client, packet)));
  }

  private async clearQueued(client: Client, packet: AedesPacket): Promise<AedesPacket> {
    const cleared = await super.outgoingClearMessageId(client, packet);
    if (cleared) {
      const left = (this.queued.get(client.id) ?? 1) - 1;
      if (left > 0) this.queued.set(client.id, left);
      else this.queued.delete(client.id);
      const message: Partial<QueuedAs> =
        cleared.cmd === "pubrel"
          ? ((cleared as AedesPacket & { queuedAs?: QueuedAs }).queuedAs ?? {})
          : { brokerId: cleared.brokerId, brokerCounter: cleared.brokerCounter, bytes: (cleared as Publish).payload?.length ?? 0 };
      const organizationId = splitClientId(client.id)?.organizationId;
      if (organizationId && this.queuedBytes) {
        if (left > 0) await this.queuedBytes.release(organizationId, client.id, `${message.brokerId}:${message.brokerCounter}`, message.bytes ?? 0);
        else await this.queuedBytes.forget(organizationId, client.id);
      }
      if (!this.dropping.has(client.id) && message.brokerId !== undefined && message.brokerCounter !== undefined) {
        this.changes.push({ kind: "cleared", clientId: client.id, brokerId: message.brokerId, brokerCounter: message.brokerCounter });
      }
    }
    this.touchIfKnown(client.id);
    return cleared;
  }

  /** Drops every message queued for `clientId` (its session ended while it was away), in order, sent or not. */
  async dropOutgoing(clientId: string): Promise<void> {
    // No session (every clean CONNECT asks): nothing to drop, nothing to write.
    if (!this.queued.has(clientId) && !this.known.has(clientId)) return;
    const client = { id: clientId } as Client;
    // Before the clears: a message queued meanwhile comes after it, and is written.
    this.changes.push({ kind: "dropped", clientId });
    this.dropping.add(clientId);
    try {
      for await (const packet of super.outgoingStream(client) as AsyncIterable<AedesPacket>) await this.clearQueued(client, packet);
    } finally {
      this.dropping.delete(clientId);
    }
    this.touchIfKnown(clientId);
  }

  /**
   * Never rejects: Aedes 2.0.0-beta.1 calls it on PUBREL without handling a rejection, and a
   * duplicate PUBREL racing the first finds nothing to delete (fixed in Aedes 1.2, not in the beta:
   * an unhandled rejection would end the process).
   */
  override async incomingDelPacket(client: Client, packet: AedesPacket): Promise<void> {
    await super.incomingDelPacket(client, packet).catch(() => undefined);
  }

  override async destroy(): Promise<void> {
    await this.flushNow();
    this.closed = true;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    await Promise.all(this.retainedWrites.values());
    await super.destroy();
  }

  /** Writes pending sessions now, all of them, trying CLOSE_ATTEMPTS times (tests, close). */
  async flushNow(): Promise<void> {
    for (let attempt = 1; attempt <= CLOSE_ATTEMPTS; attempt++) {
      if (this.flushTimer) clearTimeout(this.flushTimer);
      this.flushTimer = null;
      this.flushing = this.flushing.then(() => this.flush(true));
      await this.flushing;
      if (this.failedWrites === 0) return;
      await new Promise((resolve) => setTimeout(resolve, RETRY_FIRST_MS * attempt));
    }
    this.logger.error({ changes: this.changes.length }, "mqtt: could not store persistent sessions' queues before closing; these changes are not kept across the restart");
  }

  /**
   * The organization's sessions here (its connected clients' with subscriptions, and the persistent
   * ones kept while away), and whether `clientId` (internal) has one: the session quota's count.
   */
  async sessionsOf(organizationId: string, clientId: string): Promise<{ count: number; has: boolean }> {
    const prefix = `${organizationId}:`;
    let count = 0;
    for (const id of this.known) if (id.startsWith(prefix)) count++;
    return { count, has: this.known.has(clientId) };
  }

  async hasSession(clientId: string): Promise<boolean> {
    return this.known.has(clientId) || this.queued.has(clientId);
  }

  /** The organization's sessions (as sessionsOf counts them), each with its subscriptions and queued messages (GET /mqtt/sessions). */
  async sessionsIn(organizationId: string): Promise<StoredSession[]> {
    const prefix = `${organizationId}:`;
    const out: StoredSession[] = [];
    for (const clientId of this.known) {
      if (!clientId.startsWith(prefix)) continue;
      const subscriptions = (await this.subscriptionsByClient({ id: clientId } as Client)) ?? [];
      out.push({ clientId, subscriptions: subscriptions.map((sub) => ({ topic: sub.topic, qos: sub.qos })), queued: this.queued.get(clientId) ?? 0 });
    }
    return out;
  }

  /** A session changed: written shortly. */
  private touch(clientId: string) {
    this.known.add(clientId);
    this.touchIfKnown(clientId);
  }

  /** Only for a client that has a session: clean clients clear and acknowledge without a write. */
  private touchIfKnown(clientId: string) {
    if (!this.known.has(clientId)) return;
    this.dirty.add(clientId);
    this.scheduleFlush();
  }

  private scheduleFlush(delay = SESSION_FLUSH_MS) {
    if (this.closed) return;
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = null;
      this.flushing = this.flushing.then(() => this.flush()).catch((err: unknown) => this.logger.warn({ err }, "mqtt: could not store persistent sessions"));
    }, delay);
  }

  /** How long to wait before writing again after `failedWrites` failures in a row. */
  private retryDelay(): number {
    return Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.max(0, this.failedWrites - 1));
  }

  /** `everything`: also the messages queued moments ago (close). */
  private async flush(everything = false): Promise<void> {
    await this.writeQueueChanges(everything);
    const ids = [...this.dirty];
    this.dirty.clear();
    for (const clientId of ids) {
      try {
        const subs = await this.subscriptionsByClient({ id: clientId } as Client);
        const changed = this.subscriptionsChanged.delete(clientId);
        try {
          if (subs.length === 0 && !this.queued.has(clientId)) {
            this.known.delete(clientId);
            await this.prisma.mqttSession.deleteMany({ where: { clientId } });
            continue;
          }
          if (!changed) continue;
          const organizationId = splitClientId(clientId)?.organizationId;
          if (!organizationId) continue;
          const data = { organizationId, subscriptions: subs as object[] };
          await this.prisma.mqttSession.upsert({ where: { clientId }, create: { clientId, ...data }, update: data });
        } catch (err) {
          // Written again at the next flush.
          if (changed) this.subscriptionsChanged.add(clientId);
          this.dirty.add(clientId);
          this.scheduleFlush(this.retryDelay());
          throw err;
        }
      } catch (err) {
        this.logger.warn({ err, clientId }, "mqtt: could not store a persistent session");
      }
    }
  }

  /**
   * Writes the queue changes since the last flush in one transaction: a message queued and
   * acknowledged (or dropped) in between is never written; sessions ended are deleted whole. On
   * failure what is left to write is kept, in order, and tried again later (retryDelay); the last of
   * WRITE_ATTEMPTS writes it one row at a time, so that a row the database refuses costs only itself.
   */
  private async writeQueueChanges(everything: boolean): Promise<void> {
    if (this.changes.length === 0) return;
    const changes = this.changes;
    this.changes = [];
    const inserts = new Map<string, Extract<QueueChange, { kind: "queued" }>>();
    const cleared = new Map<string, { brokerId: string; counters: bigint[] }>();
    /** PUBRECs of rows written before, by message key. */
    const released = new Map<string, Extract<QueueChange, { kind: "released" }>>();
    const dropped = new Set<string>();
    const waiting: QueueChange[] = [];
    let reduced: QueueChange[] | undefined;
    try {
      for (const change of changes) {
        if (change.kind === "queued") inserts.set(messageKey(change.clientId, change.row.brokerId, change.row.brokerCounter), change);
        else if (change.kind === "released") {
          const key = messageKey(change.clientId, change.brokerId, change.brokerCounter);
          const insert = inserts.get(key);
          // Not written yet: written released (a copy: a message queued for several clients shares its change's row).
          if (insert) inserts.set(key, { ...insert, releasedAs: change.messageId });
          else released.set(key, change);
        } else if (change.kind === "cleared") {
          const key = messageKey(change.clientId, change.brokerId, change.brokerCounter);
          released.delete(key);
          if (inserts.delete(key)) continue;
          const group = `${change.clientId}\u0000${change.brokerId}`;
          const entry = cleared.get(group) ?? { brokerId: change.brokerId, counters: [] };
          entry.counters.push(BigInt(change.brokerCounter));
          cleared.set(group, entry);
        } else {
          for (const [key, insert] of inserts) if (insert.clientId === change.clientId) inserts.delete(key);
          for (const [key, release] of released) if (release.clientId === change.clientId) released.delete(key);
          dropped.add(change.clientId);
        }
      }
      // A message queued moments ago is usually acknowledged moments later: it waits for a later
      // flush, where its acknowledgement cancels it, rather than being written now and deleted then.
      if (!everything) {
        const now = performance.now();
        for (const [key, insert] of inserts) {
          if (now - insert.at >= (this.isConnected(insert.clientId) ? CONNECTED_WRITE_AFTER_MS : SESSION_FLUSH_MS)) continue;
          inserts.delete(key);
          waiting.push(insert);
        }
        if (waiting.length > 0) {
          this.changes = [...waiting, ...this.changes];
          this.scheduleFlush();
        }
      }
      // What is left to write, should this attempt fail: the changes reduced (a drop, then the
      // clears and PUBRECs of rows written before, then the inserts), not every change that came.
      reduced = [
        ...[...dropped].map((clientId): QueueChange => ({ kind: "dropped", clientId })),
        ...[...cleared].flatMap(([group, { brokerId, counters }]) =>
          counters.map((counter): QueueChange => ({ kind: "cleared", clientId: group.slice(0, group.indexOf("\u0000")), brokerId, brokerCounter: Number(counter) })),
        ),
        ...released.values(),
        ...inserts.values(),
      ];
      // An organization deleted meanwhile took its sessions with it: its messages are not written.
      const unknown = new Set<string>();
      for (const { clientId } of inserts.values()) {
        const organizationId = splitClientId(clientId)?.organizationId;
        if (organizationId && !this.organizationsSeen.has(organizationId)) unknown.add(organizationId);
      }
      if (unknown.size > 0) {
        for (const { id } of await this.prisma.organization.findMany({ where: { id: { in: [...unknown] } }, select: { id: true } })) this.organizationsSeen.add(id);
      }
      const rowChanges = () => [
        ...(dropped.size > 0 ? [this.prisma.mqttSessionMessage.deleteMany({ where: { clientId: { in: [...dropped] } } })] : []),
        ...[...cleared].map(([group, { brokerId, counters }]) =>
          this.prisma.mqttSessionMessage.deleteMany({ where: { clientId: group.slice(0, group.indexOf("\u0000")), brokerId, brokerCounter: { in: counters } } }),
        ),
        ...[...released.values()].map(({ clientId, brokerId, brokerCounter, messageId }) =>
          this.prisma.mqttSessionMessage.updateMany({ where: { clientId, brokerId, brokerCounter: BigInt(brokerCounter) }, data: { pubrelMessageId: messageId } }),
        ),
      ];
      const rows: Prisma.MqttSessionMessageCreateManyInput[] = [];
      for (const { clientId, row, releasedAs } of inserts.values()) {
        const organizationId = splitClientId(clientId)?.organizationId;
        if (!organizationId || !this.organizationsSeen.has(organizationId)) continue;
        rows.push({
          clientId,
          organizationId,
          brokerId: row.brokerId,
          brokerCounter: BigInt(row.brokerCounter),
          topic: row.topic,
          payload: new Uint8Array(row.payload),
          qos: row.qos,
          retain: row.retain,
          properties: row.meta ? (row.meta as Prisma.InputJsonValue) : Prisma.DbNull,
          pubrelMessageId: releasedAs ?? null,
        });
      }
      if (this.failedWrites < WRITE_ATTEMPTS - 1) {
        const statements: Prisma.PrismaPromise<unknown>[] = rowChanges();
        let batch: Prisma.MqttSessionMessageCreateManyInput[] = [];
        let bytes = 0;
        for (const row of rows) {
          batch.push(row);
          bytes += row.payload.length;
          if (bytes < INSERT_BATCH_BYTES) continue;
          statements.push(this.prisma.mqttSessionMessage.createMany({ data: batch, skipDuplicates: true }));
          batch = [];
          bytes = 0;
        }
        if (batch.length > 0) statements.push(this.prisma.mqttSessionMessage.createMany({ data: batch, skipDuplicates: true }));
        if (statements.length > 0) await this.prisma.$transaction(statements);
      } else {
        // The last attempt: one statement, one row at a time; what the database refuses is lost.
        let lost = 0;
        for (const statement of rowChanges()) await statement.catch(() => void lost++);
        for (const row of rows) await this.prisma.mqttSessionMessage.createMany({ data: [row], skipDuplicates: true }).catch(() => void lost++);
        if (lost > 0) this.logger.error({ lost }, "mqtt: could not store some changes to persistent sessions' queues; they are not kept across a restart");
      }
      this.failedWrites = 0;
    } catch (err) {
      // One of them may have been deleted since it was seen (the foreign key): looked up again.
      this.organizationsSeen.clear();
      this.failedWrites++;
      // In their order: the ones carried to a later flush are at the front of this.changes (and
      // among `changes`, not among `reduced`).
      const carried = new Set(waiting);
      this.changes = reduced ? [...reduced, ...this.changes] : [...changes, ...this.changes.filter((c) => !carried.has(c))];
      this.logger.warn({ err, attempt: this.failedWrites }, "mqtt: could not store persistent sessions' queues; trying again");
      this.scheduleFlush(this.retryDelay());
    }
  }
}
