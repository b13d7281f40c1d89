/**
 * The built-in broker's persistence on the embedded backend (PGlite or PostgreSQL, no Redis):
 * aedes' in-memory persistence, written through to PostgreSQL so that retained messages and
 * persistent sessions (clean session false: subscriptions and the QoS 1/2 messages queued for
 * the offline client) survive a restart. Reads stay in memory; the tables are read once, at start.
 *
 * A retained message is written before the publish completes (so before its PUBACK). A session is
 * written shortly after it changes (coalesced per client, SESSION_FLUSH_MS) and on close: a crash
 * may lose the last few milliseconds of a session's queue, as an in-memory broker loses all of it.
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

interface StoredPacket {
  topic: string;
  payload: string;
  qos: number;
  retain: boolean;
  brokerId?: string;
  brokerCounter?: number;
  /** MQTT 5 (storedProperties). */
  properties?: Record<string, unknown>;
  messageExpiry?: number;
}

/** MQTT 5 properties as JSON: correlation data (bytes) in base64. */
function storedProperties(properties: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!properties) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(properties)) {
    if (v === undefined || k === "topicAlias" || k === "subscriptionIdentifier") continue;
    out[k] = Buffer.isBuffer(v) ? { base64: v.toString("base64") } : v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function readProperties(stored: unknown): Record<string, unknown> | undefined {
  if (!stored || typeof stored !== "object") return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(stored as Record<string, unknown>)) {
    out[k] = v && typeof v === "object" && typeof (v as { base64?: unknown }).base64 === "string" ? Buffer.from((v as { base64: string }).base64, "base64") : v;
  }
  return out;
}

/** A stored packet's MQTT 5 part (nothing for 3.1.1 messages). */
function v5Part(properties: Record<string, unknown> | undefined, messageExpiry: number | undefined): { properties?: Record<string, unknown>; messageExpiry?: number } {
  return { ...(properties ? { properties } : {}), ...(typeof messageExpiry === "number" ? { messageExpiry } : {}) };
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
      for (const p of row.outgoing as unknown as StoredPacket[]) {
        this.queued.set(row.clientId, (this.queued.get(row.clientId) ?? 0) + 1);
        const { properties, messageExpiry, ...rest } = p;
        await super.outgoingEnqueue({ clientId: row.clientId }, { ...rest, cmd: "publish", dup: false, payload: Buffer.from(p.payload, "base64"), ...v5Part(readProperties(properties), messageExpiry) } as unknown as AedesPacket);
      }
      this.known.add(row.clientId);
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
    this.touchIfKnown(client.id);
  }

  override async outgoingEnqueue(sub: { clientId: string }, packet: AedesPacket): Promise<void> {
    await this.outgoingEnqueueCombi([sub], packet);
  }

  override async outgoingEnqueueCombi(subs: { clientId: string }[], packet: AedesPacket): Promise<void> {
    const room = subs.filter((sub) => (this.queued.get(sub.clientId) ?? 0) < this.maxQueued);
    if (room.length === 0) return;
    for (const sub of room) this.queued.set(sub.clientId, (this.queued.get(sub.clientId) ?? 0) + 1);
    await super.outgoingEnqueueCombi(room, packet);
    for (const sub of room) this.touch(sub.clientId);
  }

  override async outgoingUpdate(client: Client, packet: AedesPacket): Promise<void> {
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
    }
    this.touchIfKnown(client.id);
    return cleared;
  }

  /** Drops every message queued for `clientId` (its session ended while it was away), in order, sent or not. */
  async dropOutgoing(clientId: string): Promise<void> {
    const client = { id: clientId } as Client;
    for await (const packet of super.outgoingStream(client) as AsyncIterable<AedesPacket>) await this.clearQueued(client, packet);
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
    await Promise.all(this.retainedWrites.values());
    await super.destroy();
  }

  /** Writes pending sessions now (tests, close). */
  async flushNow(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.flushing = this.flushing.then(() => this.flush());
    await this.flushing;
  }

  /** A session changed: written shortly. */
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

  private touch(clientId: string) {
    this.known.add(clientId);
    this.touchIfKnown(clientId);
  }

  /** Only for a client that has a session: clean clients clear and acknowledge without a write. */
  private touchIfKnown(clientId: string) {
    if (!this.known.has(clientId)) return;
    this.dirty.add(clientId);
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = null;
      this.flushing = this.flushing.then(() => this.flush());
    }, SESSION_FLUSH_MS);
  }

  private async flush(): Promise<void> {
    const ids = [...this.dirty];
    this.dirty.clear();
    for (const clientId of ids) {
      try {
        const client = { id: clientId } as Client;
        const subs = await this.subscriptionsByClient(client);
        const outgoing: StoredPacket[] = [];
        for await (const p of this.outgoingStream(client) as AsyncIterable<Publish>) {
          const v5 = p as { properties?: Record<string, unknown>; messageExpiry?: number };
          outgoing.push({
            topic: p.topic,
            payload: Buffer.from(p.payload).toString("base64"),
            qos: p.qos,
            retain: p.retain,
            brokerId: p.brokerId,
            brokerCounter: p.brokerCounter,
            ...v5Part(storedProperties(v5.properties), v5.messageExpiry),
          });
        }
        if (subs.length === 0 && outgoing.length === 0) {
          this.known.delete(clientId);
          await this.prisma.mqttSession.deleteMany({ where: { clientId } });
          continue;
        }
        const organizationId = splitClientId(clientId)?.organizationId;
        if (!organizationId) continue;
        const data = { organizationId, subscriptions: subs as object[], outgoing: outgoing as unknown as object[] };
        await this.prisma.mqttSession.upsert({ where: { clientId }, create: { clientId, ...data }, update: data });
      } catch (err) {
        this.logger.warn({ err, clientId }, "mqtt: could not store a persistent session");
      }
    }
  }
}
