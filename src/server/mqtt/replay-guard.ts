/**
 * A returning persistent session gets each QoS 1/2 message once, though it may come by two roads.
 *
 * Aedes queues every QoS 1/2 message for every persistent subscription (online or not: the queue
 * is also where a message waits for its acknowledgement) and emits its live copy. With Redis the
 * live copy goes out and comes back (mqemitter-redis), so a message published just before its
 * client reconnects can reach the new connection twice: from the queue Aedes replays after the
 * CONNACK, and live, once the restored subscription hears its copy come back. Aedes' own
 * `duplicates` check (the highest counter per broker) sees only live deliveries, and a replay
 * interleaved with live messages is not in counter order, so it cannot be used here.
 *
 * For a while after a persistent client connects (its queue's replay and some seconds after it),
 * this remembers exactly which messages (broker id and counter: the same for a message's queued
 * and live copies) the connection has been sent: the second road finds it taken. A live copy
 * that comes second is not forwarded (`authorizeForward`); a queued one whose live copy went first
 * is left out of the replay before it gets a packet id of its own (`outgoingStream`), so the live
 * copy's acknowledgement, which the persistence filed under the same message, clears the queue.
 * One connection's set at most: a reconnection starts again, and gets what it was never
 * acknowledged for, as MQTT requires.
 */

/** How long after its CONNACK and queue replay a connection is still watched (live copies return within milliseconds). */
export const REPLAY_GUARD_MS = 10_000;

interface Sent {
  keys: Set<string>;
  timer?: NodeJS.Timeout;
}

/** What identifies a message across its copies: Aedes' broker id and counter. */
interface MessageRef {
  cmd?: string;
  qos?: number;
  brokerId?: string | null;
  brokerCounter?: number | string;
}

const keyOf = (packet: MessageRef): string | null =>
  (packet.cmd === undefined || packet.cmd === "publish") && (packet.qos ?? 0) > 0 && packet.brokerId ? `${packet.brokerId}\n${String(packet.brokerCounter)}` : null;

export class ReplayGuard {
  private readonly sent = new WeakMap<object, Sent>();

  /** A persistent session's connection starts: watch it. */
  watch(connection: object): void {
    this.release(connection);
    this.sent.set(connection, { keys: new Set() });
  }

  /** Its queue has been replayed: stop watching `ms` later. */
  settle(connection: object, ms = REPLAY_GUARD_MS): void {
    const sent = this.sent.get(connection);
    if (!sent) return;
    clearTimeout(sent.timer);
    sent.timer = setTimeout(() => {
      if (this.sent.get(connection) === sent) this.sent.delete(connection);
    }, ms).unref();
  }

  /** The connection ended. */
  release(connection: object): void {
    const sent = this.sent.get(connection);
    if (!sent) return;
    clearTimeout(sent.timer);
    this.sent.delete(connection);
  }

  /**
   * The message is about to be sent to the connection: true the first time (remembered), false
   * when it already was (by the other road). Anything not watched or not QoS 1/2 passes.
   */
  first(connection: object, packet: MessageRef): boolean {
    const sent = this.sent.get(connection);
    if (!sent) return true;
    const key = keyOf(packet);
    if (key === null) return true;
    if (sent.keys.has(key)) return false;
    sent.keys.add(key);
    return true;
  }

  /** Whether a queued message was already sent live to the connection (its replay leaves it out). */
  sentAlready(connection: object, packet: MessageRef): boolean {
    const sent = this.sent.get(connection);
    if (!sent) return false;
    const key = keyOf(packet);
    return key !== null && sent.keys.has(key);
  }
}

/** A queue's stream without the messages `skip` names (both persistences' outgoingStream). */
export async function* withoutSent<T>(source: AsyncIterable<T>, skip: (packet: T) => boolean): AsyncGenerator<T> {
  for await (const packet of source) if (!skip(packet)) yield packet;
}
