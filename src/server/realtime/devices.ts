import type { WebSocket } from "ws";
import type { KeyValueStore } from "../store";
import { durableSubscription, type DurableSubscription } from "../store/durable-subscription";
import type { ApiKeyPrincipal } from "../auth/principal";
import type { ServerFrame } from "../../shared/realtime";
import type { DeviceInMessage, DeviceOutMessage } from "../runtime/types";
import { devicesOutChannel } from "./device-bus";

/** Where device messages go: the flow runtime (its device-in nodes, on whichever instance). */
export interface DeviceMessageSink {
  deviceMessage(organizationId: string, message: DeviceInMessage): void;
}

const onlineSetKey = (organizationId: string) => `devices-online:${organizationId}`;
const seenKey = (keyId: string) => `device-seen:${keyId}`;
const SEEN_TTL_MS = 90_000;

/** The hub's side of devices: sockets of `device_` keys, their presence, and delivery to them. */
export class DeviceChannel {
  private readonly sockets = new Map<string, Set<{ ws: WebSocket; keyId: string }>>();
  /** One per organization with device sockets here; kept trying while the store cannot subscribe. */
  private readonly subscriptions = new Map<string, DurableSubscription>();

  constructor(
    private readonly store: KeyValueStore,
    private readonly flows: DeviceMessageSink,
  ) {}

  attach(ws: WebSocket, principal: ApiKeyPrincipal): void {
    const org = principal.organizationId;
    let set = this.sockets.get(org);
    if (!set) {
      set = new Set();
      this.sockets.set(org, set);
      this.subscriptions.set(
        org,
        durableSubscription(this.store, devicesOutChannel(org), (raw) => this.forward(org, JSON.parse(raw) as DeviceOutMessage)),
      );
    }
    const entry = { ws, keyId: principal.keyId };
    set.add(entry);
    const markSeen = () => {
      void this.store.set(seenKey(principal.keyId), new Date().toISOString(), { ttlMs: SEEN_TTL_MS }).catch(() => undefined);
    };
    void this.store.setAdd(onlineSetKey(org), principal.keyId).catch(() => undefined);
    markSeen();
    const refresh = setInterval(markSeen, SEEN_TTL_MS / 3);
    refresh.unref();
    ws.on("close", () => {
      clearInterval(refresh);
      set.delete(entry);
      if (![...set].some((e) => e.keyId === principal.keyId)) {
        void this.store.setRemove(onlineSetKey(org), principal.keyId).catch(() => undefined);
        void this.store.del(seenKey(principal.keyId)).catch(() => undefined);
      }
      if (set.size === 0) {
        this.sockets.delete(org);
        void this.subscriptions.get(org)?.stop();
        this.subscriptions.delete(org);
      }
    });
  }

  publish(principal: ApiKeyPrincipal, topic: string, payload: unknown): void {
    this.flows.deviceMessage(principal.organizationId, { topic, payload, device_key_id: principal.keyId });
  }

  private forward(organizationId: string, message: DeviceOutMessage) {
    const frame: ServerFrame = message.rejected
      ? { type: "device.rejected", topic: message.topic, reason: message.rejected.reason, retry_after: message.rejected.retry_after }
      : { type: "device.message", topic: message.topic, payload: message.payload };
    const text = JSON.stringify(frame);
    for (const { ws, keyId } of this.sockets.get(organizationId) ?? []) {
      if (message.device_key_id && message.device_key_id !== keyId) continue;
      if (ws.readyState === ws.OPEN) ws.send(text);
    }
  }
}

/** Device keys online in the organization, across instances (presence expires if an instance dies). */
export async function onlineDeviceKeyIds(store: KeyValueStore, organizationId: string): Promise<Array<{ keyId: string; lastSeenAt: string }>> {
  const members = await store.setMembers(onlineSetKey(organizationId));
  const out: Array<{ keyId: string; lastSeenAt: string }> = [];
  for (const keyId of members) {
    const seen = await store.get(seenKey(keyId));
    if (seen) out.push({ keyId, lastSeenAt: seen });
    else await store.setRemove(onlineSetKey(organizationId), keyId);
  }
  return out;
}
