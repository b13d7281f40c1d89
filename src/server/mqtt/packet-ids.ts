import { Readable } from "node:stream";

/**
 * Packet identifiers a connection has in use toward its client ([MQTT-2.2.1-3]: a new PUBLISH
 * takes an identifier that is not in use).
 *
 * Aedes numbers a connection's outgoing QoS 1 and 2 messages from a random start, one after the
 * other, and never looks at the identifiers that a persistent session's queue already holds: the
 * messages sent on an earlier connection and not acknowledged (or whose PUBREL is owed, also after
 * a restart) are sent again with their own identifiers when the client returns. A new message could
 * then take an identifier still in flight: an MQTT client takes a PUBLISH with the identifier of a
 * QoS 2 message it has not completed for that message again and drops it, and a PUBACK clears
 * whichever of the two the persistence finds first. With a queue of a thousand messages and a few
 * in flight, about one return in ten.
 *
 * The client's counter skips the identifiers its queue brought back (`installPacketIds`): taken
 * as the persistence's `outgoingStream` replays a stored message that already has one, given back
 * when the persistence is told it is done (`outgoingClearMessageId`: PUBACK, PUBCOMP, an MQTT 5
 * PUBREC refusing it, a queued message dropped unsent). Only those: Aedes's own numbering repeats an
 * identifier only after 65,535 messages (its standing behaviour), and marking every number it gives
 * would keep the ones no acknowledgement ever frees (a message downgraded to QoS 0, a refusing
 * PUBREC on a clean session). So the set is at most the session's queue, and a skip at most as long.
 * What it cannot see: a live message numbered while the replay is still under way, before the
 * stream reached a stored identifier. The stored identifiers are the queue's oldest messages, first
 * in the replay, so that window is the first few milliseconds after the CONNACK.
 */

/** The largest packet identifier (16 bits; 0 is not one). */
const MAX_ID = 65_535;

interface Numbered {
  _nextId: number;
}

const inUse = new WeakMap<object, Set<number>>();

/** The client's outgoing packet identifiers skip those its queue brought back (Aedes reads and advances `_nextId`). */
export function installPacketIds(client: object): void {
  const taken = new Set<number>();
  inUse.set(client, taken);
  let next = (client as Numbered)._nextId;
  if (!Number.isInteger(next) || next < 1 || next > MAX_ID) next = 1;
  Object.defineProperty(client, "_nextId", {
    configurable: true,
    enumerable: true,
    // Aedes's QoSPacket reads the counter (the identifier it takes), then sets it one further: the
    // read skips what is in use (all of them in use, rather than loop for ever: Aedes's own choice).
    get() {
      if (taken.size < MAX_ID) while (taken.has(next)) next = next >= MAX_ID ? 1 : next + 1;
      return next;
    },
    set(value: number) {
      next = value;
    },
  });
}

/**
 * A stored message goes out to the client again with this identifier. The counter skips from the
 * first one on: a connection whose queue brings none back (every clean one) is left as Aedes made it.
 */
export function packetIdTaken(client: object, messageId: unknown): void {
  if (typeof messageId !== "number") return;
  if (!inUse.has(client)) installPacketIds(client);
  inUse.get(client)!.add(messageId);
}

/** The client is done with this identifier (or its message was dropped before it was sent). */
export function packetIdReleased(client: object, messageId: unknown): void {
  if (typeof messageId === "number") inUse.get(client)?.delete(messageId);
}

/** The identifiers in use toward the client (tests). */
export function packetIdsInUse(client: object): ReadonlySet<number> {
  return inUse.get(client) ?? new Set();
}

/**
 * The persistence's replay of a client's queue and its clear of a message, seen for every
 * connection (both backends; Aedes calls the clear for clean sessions too, on PUBACK and PUBCOMP).
 */
export function trackPacketIds<P extends { outgoingStream(client: never): unknown; outgoingClearMessageId(client: never, packet: never): Promise<unknown> }>(persistence: P): P {
  const stream = persistence.outgoingStream.bind(persistence) as (client: object) => AsyncIterable<{ messageId?: unknown }>;
  const clear = persistence.outgoingClearMessageId.bind(persistence) as (client: object, packet: { messageId?: unknown }) => Promise<unknown>;
  Object.assign(persistence, {
    outgoingStream(client: object) {
      return Readable.from(replayed(client, stream(client)));
    },
    outgoingClearMessageId(client: object, packet: { messageId?: unknown }) {
      packetIdReleased(client, packet.messageId);
      return clear(client, packet);
    },
  });
  return persistence;
}

/** The queue as the persistence streams it, each stored identifier taken as its message goes by. */
async function* replayed(client: object, queued: AsyncIterable<{ messageId?: unknown }>) {
  for await (const packet of queued) {
    packetIdTaken(client, packet.messageId);
    yield packet;
  }
}
