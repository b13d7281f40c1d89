/**
 * Packet identifiers a connection has in use toward its client ([MQTT-2.2.1-3]: a new PUBLISH
 * takes an identifier that is not in use).
 *
 * Aedes numbers a connection's outgoing QoS 1 and 2 messages from a random start, one after the
 * other, and never looks at the identifiers that a persistent session's queue already holds: the
 * messages sent on an earlier connection and not acknowledged (or whose PUBREL is owed) are sent
 * again with their own identifiers when the client returns. A new message could then take an
 * identifier still in flight: an MQTT client takes a PUBLISH with the identifier of a QoS 2
 * message it has not completed for that message again and drops it, and a PUBACK clears whichever
 * of the two the persistence finds first. With a queue of a thousand messages and a few in flight,
 * about one return in ten.
 *
 * `installPacketIds` makes the client's counter skip identifiers in use: taken when Aedes numbers
 * a message (its counter moves on) or when the persistence is told a message goes out with one
 * (`outgoingUpdate`: a queued message sent again, a PUBREL), given back when the persistence is
 * told it is done (`outgoingClearMessageId`: PUBACK, PUBCOMP, an MQTT 5 PUBREC refusing it, a
 * queued message dropped unsent). One Set per connection, as large as its messages in flight.
 */

/** The largest packet identifier (16 bits; 0 is not one). */
const MAX_ID = 65_535;

interface Numbered {
  _nextId: number;
}

const inUse = new WeakMap<object, Set<number>>();

/** The client's outgoing packet identifiers skip those in use (Aedes reads and advances `_nextId`). */
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
      taken.add(next);
      next = value;
    },
  });
}

/** A message goes out to the client with this identifier (a queued one sent again keeps its own). */
export function packetIdTaken(client: object, messageId: unknown): void {
  if (typeof messageId === "number") inUse.get(client)?.add(messageId);
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
 * The persistence's two calls that say a message goes out with an identifier and that it is done,
 * seen for every connection (both backends; Aedes calls them for clean sessions too, on PUBACK and
 * PUBCOMP).
 */
export function trackPacketIds<P extends { outgoingUpdate(client: never, packet: never): Promise<unknown>; outgoingClearMessageId(client: never, packet: never): Promise<unknown> }>(persistence: P): P {
  const update = persistence.outgoingUpdate.bind(persistence) as (client: object, packet: { messageId?: unknown }) => Promise<unknown>;
  const clear = persistence.outgoingClearMessageId.bind(persistence) as (client: object, packet: { messageId?: unknown }) => Promise<unknown>;
  Object.assign(persistence, {
    outgoingUpdate(client: object, packet: { messageId?: unknown }) {
      packetIdTaken(client, packet.messageId);
      return update(client, packet);
    },
    outgoingClearMessageId(client: object, packet: { messageId?: unknown }) {
      packetIdReleased(client, packet.messageId);
      return clear(client, packet);
    },
  });
  return persistence;
}
