/**
 * One shared connection per instance (SPEC §19): a configuration node that holds a connection (an
 * MQTT broker, a websocket client, an HTTP proxy's sockets) opens it once on this instance for all
 * the flows here that use the same deployed revision of it, and closes it when the last of them
 * stops. A redeploy to a new revision opens a new connection beside the old one, which closes when
 * its last user goes.
 *
 * The pool is an instance owned by the engine (no module state). Entries are keyed by the
 * organization first, so two organizations never share one, even for equal ids.
 */

export interface ConnectionKey {
  organizationId: string;
  configNodeId: string;
  /** The deployed revision of the configuration node. */
  revision: number;
  /** What is opened (a configuration node may back several kinds: "http-dispatcher", "mqtt" …). */
  kind: string;
  /**
   * Anything else the connection depends on: another configuration node it combines with, or a
   * digest of the values `${NAME}` resolved to (a rotated secret then opens a new connection).
   */
  variant?: string;
}

/** A user's hold on a shared connection; `release()` once, when the user is done with it (more calls do nothing). */
export interface ConnectionLease<T> {
  readonly connection: T;
  readonly key: ConnectionKey;
  release(): Promise<void>;
}

export interface ConnectionKind<T> {
  /** Opens the connection; a rejection reaches every user waiting for it, and the next acquire tries again. */
  open(): T | Promise<T>;
  /** Closes it, once its last user released it. */
  close?(connection: T): void | Promise<void>;
}

interface Entry {
  users: number;
  opening: Promise<unknown>;
  connection?: unknown;
  close?: (connection: unknown) => void | Promise<void>;
}

export function connectionKeyText(key: ConnectionKey): string {
  return JSON.stringify([key.organizationId, key.configNodeId, key.revision, key.kind, key.variant ?? ""]);
}

export class ConnectionPool {
  private readonly entries = new Map<string, Entry>();
  /** Connections opened and closed since this pool was made (tests, metrics). */
  private counters = { opened: 0, closed: 0, failed: 0 };

  /**
   * The connection for `key`, opened now if no user holds it (concurrent first users wait for the
   * same open). Each successful acquire counts one user until its lease is released.
   */
  async acquire<T>(key: ConnectionKey, kind: ConnectionKind<T>): Promise<ConnectionLease<T>> {
    const text = connectionKeyText(key);
    let entry = this.entries.get(text);
    if (!entry) {
      const opening = (async () => kind.open())();
      const created: Entry = { users: 0, opening, close: kind.close as Entry["close"] };
      entry = created;
      this.entries.set(text, created);
      opening.then(
        (connection) => {
          created.connection = connection;
          this.counters.opened++;
        },
        () => {
          // Not kept: whoever asks next (the next deploy, the next request) opens again.
          this.counters.failed++;
          if (this.entries.get(text) === created) this.entries.delete(text);
        },
      );
    }
    entry.users++;
    let connection: T;
    try {
      connection = (await entry.opening) as T;
    } catch (err) {
      entry.users--;
      throw err;
    }
    const held = entry;
    let released = false;
    return {
      connection,
      key,
      release: async () => {
        if (released) return;
        released = true;
        if (--held.users > 0) return;
        if (this.entries.get(text) === held) this.entries.delete(text);
        this.counters.closed++;
        await held.close?.(held.connection);
      },
    };
  }

  /** How many users hold the connection of `key` (0: none open). */
  users(key: ConnectionKey): number {
    return this.entries.get(connectionKeyText(key))?.users ?? 0;
  }

  /** Connections open now. */
  size(): number {
    return this.entries.size;
  }

  stats(): { open: number; opened: number; closed: number; failed: number } {
    return { open: this.entries.size, ...this.counters };
  }
}
