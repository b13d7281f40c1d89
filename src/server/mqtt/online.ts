/**
 * Which MQTT clients of an organization are connected right now, on any instance: each instance
 * keeps an entry per connection in the store (a set per organization, a key per client that
 * expires unless its instance renews it), so a killed instance's clients drop out within
 * ONLINE_TTL_MS. GET /devices lists them (kind "mqtt"), and the per-organization connection limit
 * counts them.
 */
import type { KeyValueStore } from "../store";

/** How long an entry lives without its instance renewing it (every ONLINE_RENEW_MS). */
export const ONLINE_TTL_MS = 30_000;
export const ONLINE_RENEW_MS = 10_000;

export interface OnlineMqttClient {
  /** The API key the client authenticated with. */
  key_id: string;
  /** The client id it chose (the organization's own, unprefixed). */
  client_id: string;
  connected_at: string;
  last_seen_at: string;
}

/** What the store holds per connection (the instance and connection, so only its owner removes it). */
export interface OnlineEntry extends OnlineMqttClient {
  instance_id: string;
  connection_id: string;
  /**
   * The connection's MQTT 5 Session Expiry Interval when its session ends that long after it
   * leaves; 0 when it needs no deadline (3.1.1, interval 0, or never). Absent from entries written
   * before it: the session-expiry sweep then keeps the row it found.
   */
  session_expiry_seconds?: number;
  /** Its session is kept after it leaves (absent from entries written before it: taken as kept). */
  keeps_session?: boolean;
}

export const onlineSetKey = (organizationId: string) => `mqtt:online:${organizationId}`;
export const onlineClientKey = (organizationId: string, clientId: string) => `mqtt:online:${organizationId}:${clientId}`;

/**
 * The organization's connected MQTT clients, by client id. Takes the app (or just its store), so
 * the devices listing can call it as `onlineMqttClients(app, organizationId)`.
 */
export async function onlineMqttClients(app: { store: KeyValueStore } | KeyValueStore, organizationId: string): Promise<OnlineMqttClient[]> {
  const store = "store" in app ? app.store : app;
  const ids = await store.setMembers(onlineSetKey(organizationId));
  const values = await Promise.all(ids.map((id) => store.get(onlineClientKey(organizationId, id))));
  const gone: string[] = [];
  const online: OnlineMqttClient[] = [];
  values.forEach((raw, i) => {
    if (raw === null) {
      gone.push(ids[i]!);
      return;
    }
    try {
      const entry = JSON.parse(raw) as OnlineEntry;
      online.push({ key_id: entry.key_id, client_id: entry.client_id, connected_at: entry.connected_at, last_seen_at: entry.last_seen_at });
    } catch {
      gone.push(ids[i]!);
    }
  });
  // Entries whose instance stopped renewing them (killed): the set forgets them too.
  if (gone.length > 0) await store.setRemove(onlineSetKey(organizationId), ...gone).catch(() => undefined);
  return online.sort((a, b) => a.client_id.localeCompare(b.client_id));
}
