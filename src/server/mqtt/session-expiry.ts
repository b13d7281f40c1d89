import type { PrismaClient } from "../db";
import type { Logger } from "../logger";
import { ONLINE_TTL_MS } from "./online";
import { splitClientId } from "./topics";

/** How often every instance looks for MQTT 5 sessions whose expiry has passed without their timer. */
export const SESSION_SWEEP_MS = 30_000;
/** A connected client's row is looked at again after its interval, and after at least this. */
export const CONNECTED_RECHECK_MS = 10 * 60_000;
/** Sessions taken per sweep query (a sweep repeats while it finds a full batch). */
const SWEEP_BATCH = 200;
/** The column is a PostgreSQL integer: longer intervals (up to 136 years) are kept as 68. */
const MAX_INTERVAL_SECONDS = 2 ** 31 - 1;

export interface DueSession {
  clientId: string;
  intervalSeconds: number;
  /** The row was written while the client was connected (a look again, not an expiry). */
  connected: boolean;
}

/**
 * The durable side of MQTT 5 session expiry (SPEC §20). aedes ends a session when its Session
 * Expiry Interval has passed after the disconnect, with a timer in the memory of the instance the
 * client left: a restart, a deploy or kill -9 of that instance loses the timer, and the session
 * (its subscriptions, and the QoS 1/2 messages queued for it, up to MQTT_MAX_QUEUED_PER_SESSION)
 * would be kept for ever. So each such session also has a row in PostgreSQL (table
 * mqtt_session_expiry, on both backends: the database is always there):
 *
 * - a client connects with a finite, non-zero interval: a `connected` row, looked at again once
 *   the interval could have passed (recheckAfterMs); a connection with the id that keeps its
 *   session without a deadline deletes the row; a clean one leaves it (its session ends with it):
 *   the sweep finds it connected and drops the row, or ends a session that is gone;
 * - it disconnects: the row is due at the disconnect plus the interval (aedes's timer, exactly);
 * - aedes's timer ends the session: the row goes.
 *
 * Every instance sweeps the due rows at start, then every SESSION_SWEEP_MS: each row is taken by
 * one instance (DELETE … FOR UPDATE SKIP LOCKED … RETURNING). A client connected somewhere (its
 * online entry, online.ts) has its row put back for later. A `connected` row whose client is gone
 * was left by an instance that died without seeing the disconnect: the session ends one interval
 * from now (late by up to the time since the recheck, never early). Otherwise the session ends
 * now: its subscriptions and queued messages are dropped.
 */
export class SessionExpiryLedger {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly logger: Logger,
  ) {}

  /** The client left: its session ends one interval from now unless a connection takes it first. */
  async disconnected(clientId: string, intervalSeconds: number, now = Date.now()): Promise<void> {
    await this.write(clientId, intervalSeconds, false, new Date(now + Math.min(intervalSeconds, MAX_INTERVAL_SECONDS) * 1000));
  }

  /** A client with this interval is connected now: looked at again once it could have expired. */
  async connected(clientId: string, intervalSeconds: number, now = Date.now()): Promise<void> {
    await this.write(clientId, intervalSeconds, true, new Date(now + recheckAfterMs(intervalSeconds)));
  }

  private async write(clientId: string, intervalSeconds: number, connected: boolean, expiresAt: Date): Promise<void> {
    const split = splitClientId(clientId);
    if (!split) return;
    const seconds = Math.min(intervalSeconds, MAX_INTERVAL_SECONDS);
    await this.prisma.mqttSessionExpiry.upsert({
      where: { clientId },
      create: { clientId, organizationId: split.organizationId, intervalSeconds: seconds, connected, expiresAt },
      update: { intervalSeconds: seconds, connected, expiresAt },
    });
  }

  /** No deadline any more (a connection without an expiring session took the id, or the session ended). */
  async forget(clientId: string): Promise<void> {
    await this.prisma.mqttSessionExpiry.deleteMany({ where: { clientId } });
  }

  /** Takes up to `limit` rows whose time has come, each for this instance alone. */
  async takeDue(now: Date, limit = SWEEP_BATCH): Promise<DueSession[]> {
    const rows = await this.prisma.$queryRaw<Array<{ client_id: string; interval_seconds: number; connected: boolean }>>`
      DELETE FROM mqtt_session_expiry WHERE client_id IN (
        SELECT client_id FROM mqtt_session_expiry WHERE expires_at <= ${now}
        ORDER BY expires_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
      ) RETURNING client_id, interval_seconds, connected`;
    return rows.map((r) => ({ clientId: r.client_id, intervalSeconds: Number(r.interval_seconds), connected: r.connected === true }));
  }

  /** Hands every due session to `end` (which puts back the row of a connected client); a failed one is put back for the next sweep. Returns how many it took. */
  async sweep(end: (session: DueSession) => Promise<void>, now = new Date()): Promise<number> {
    let taken = 0;
    for (;;) {
      const due = await this.takeDue(now);
      taken += due.length;
      for (const session of due) {
        await end(session).catch(async (err: unknown) => {
          // Taken but not ended (the store unreachable, the broker closing): due again at the next sweep.
          this.logger.warn({ err, clientId: session.clientId }, "mqtt: an expired session could not be ended; trying again later");
          await this.write(session.clientId, session.intervalSeconds, session.connected, new Date(Date.now() + SESSION_SWEEP_MS)).catch(() => undefined);
        });
      }
      if (due.length < SWEEP_BATCH) return taken;
    }
  }
}

/** When a connected client's row is looked at again: after its interval (and the online entry's life), at least CONNECTED_RECHECK_MS. */
export function recheckAfterMs(intervalSeconds: number): number {
  return Math.max(Math.min(intervalSeconds, MAX_INTERVAL_SECONDS) * 1000 + ONLINE_TTL_MS, CONNECTED_RECHECK_MS);
}
