import { randomUUID } from "node:crypto";
import type { KeyValueStore } from "../store";
import { durableSubscription, type DurableSubscription } from "../store/durable-subscription";
import type { Logger } from "../logger";
import { orgPresenceChannel, WS_LIMITS, type PresenceUser } from "../../shared/realtime";

/** One connection that has a flow open. */
export interface PresenceEntry {
  flow_id: string;
  user_id: string;
  name: string;
}

type PresenceMessage = { kind: "announce"; instance_id: string; entries: PresenceEntry[] } | { kind: "sync"; instance_id: string } | { kind: "gone"; instance_id: string };

interface OrgState {
  /** Local connections (by a key the hub chooses) and the flow each has open. */
  local: Map<object, PresenceEntry>;
  /** What every instance (this one included, through the pub/sub loopback) last announced. */
  instances: Map<string, { entries: PresenceEntry[]; expiresAt: number }>;
  /** The users last sent per flow, so only changes go out. */
  lastSent: Map<string, string>;
  /** Kept trying while the store cannot subscribe (Redis connecting or down). */
  subscription: DurableSubscription;
}

/**
 * Who has which flow open, across instances. Each instance announces its own connections' entries
 * on the organization's presence channel whenever they change and every 15 s; entries of an
 * instance that stops announcing (killed) expire after three rounds, one that shuts down says
 * `gone`. A new instance asks the others to announce (`sync`). The hub is told the users of a flow
 * whenever they change, to send to its connections that have that flow open.
 */
export class PresenceTracker {
  readonly instanceId = randomUUID();
  private readonly orgs = new Map<string, OrgState>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly deps: {
      store: KeyValueStore;
      logger: Logger;
      /** Called with the users of a flow whenever they change (deduplicated by user). */
      onChange: (organizationId: string, flowId: string, users: PresenceUser[]) => void;
      announceMs?: number;
    },
  ) {
    const every = deps.announceMs ?? WS_LIMITS.presenceAnnounceMs;
    this.timer = setInterval(() => this.tick(), every);
    this.timer.unref();
  }

  /** Sets (or with null clears) the flow a local connection has open. */
  set(organizationId: string, key: object, entry: PresenceEntry | null) {
    let org = this.orgs.get(organizationId);
    if (!entry) {
      if (!org?.local.delete(key)) return;
      this.announce(organizationId, org);
      if (org.local.size === 0) this.leave(organizationId, org);
      return;
    }
    if (!org) org = this.join(organizationId);
    const previous = org.local.get(key);
    if (previous && previous.flow_id === entry.flow_id && previous.user_id === entry.user_id) return;
    org.local.set(key, entry);
    this.announce(organizationId, org);
  }

  /** The users who have a flow open, as this instance knows it now. */
  users(organizationId: string, flowId: string): PresenceUser[] {
    const org = this.orgs.get(organizationId);
    if (!org) return [];
    // Our own connections count at once, before our announcement comes back through the pub/sub.
    const mine = { entries: [...org.local.values()], expiresAt: Infinity };
    return usersOf({ ...org, instances: new Map([...org.instances, [this.instanceId, mine]]) }, flowId);
  }

  async close() {
    clearInterval(this.timer);
    await Promise.all(
      [...this.orgs.entries()].map(async ([organizationId, org]) => {
        await this.publish(organizationId, { kind: "gone", instance_id: this.instanceId });
        await org.subscription.stop();
      }),
    );
    this.orgs.clear();
  }

  private join(organizationId: string): OrgState {
    const channel = orgPresenceChannel(organizationId);
    const org: OrgState = {
      local: new Map(),
      instances: new Map(),
      lastSent: new Map(),
      subscription: durableSubscription(this.deps.store, channel, (raw) => this.receive(organizationId, raw), {
        onRetry: (err, attempt) => this.deps.logger.warn({ err, channel, attempt }, "presence channel could not be subscribed; retrying"),
      }),
    };
    this.orgs.set(organizationId, org);
    // Once subscribed (unless the organization was left meanwhile), ask the other instances for what they have.
    void org.subscription.ready.then(() => {
      if (this.orgs.get(organizationId) === org) return this.publish(organizationId, { kind: "sync", instance_id: this.instanceId });
    });
    return org;
  }

  private leave(organizationId: string, org: OrgState) {
    this.orgs.delete(organizationId);
    void org.subscription.stop();
  }

  private announce(organizationId: string, org: OrgState) {
    void this.publish(organizationId, { kind: "announce", instance_id: this.instanceId, entries: [...org.local.values()] });
  }

  private async publish(organizationId: string, message: PresenceMessage) {
    try {
      await this.deps.store.publish(orgPresenceChannel(organizationId), JSON.stringify(message));
    } catch (err) {
      this.deps.logger.warn({ err }, "presence could not be published");
    }
  }

  private receive(organizationId: string, raw: string) {
    const org = this.orgs.get(organizationId);
    if (!org) return;
    let message: PresenceMessage;
    try {
      message = JSON.parse(raw) as PresenceMessage;
    } catch {
      return;
    }
    const every = this.deps.announceMs ?? WS_LIMITS.presenceAnnounceMs;
    if (message.kind === "sync") {
      if (message.instance_id !== this.instanceId && org.local.size > 0) this.announce(organizationId, org);
      return;
    }
    if (message.kind === "gone") org.instances.delete(message.instance_id);
    else org.instances.set(message.instance_id, { entries: message.entries, expiresAt: Date.now() + 3 * every });
    this.notify(organizationId, org);
  }

  private notify(organizationId: string, org: OrgState) {
    const flows = new Set(org.lastSent.keys());
    for (const { entries } of org.instances.values()) for (const e of entries) flows.add(e.flow_id);
    for (const flowId of flows) {
      const users = usersOf(org, flowId);
      const key = JSON.stringify(users);
      if (org.lastSent.get(flowId) === key) continue;
      if (users.length === 0) org.lastSent.delete(flowId);
      else org.lastSent.set(flowId, key);
      this.deps.onChange(organizationId, flowId, users);
    }
  }

  private tick() {
    const now = Date.now();
    for (const [organizationId, org] of this.orgs) {
      let expired = false;
      for (const [id, instance] of org.instances) {
        if (id !== this.instanceId && instance.expiresAt <= now) {
          org.instances.delete(id);
          expired = true;
        }
      }
      if (expired) this.notify(organizationId, org);
      if (org.local.size > 0) this.announce(organizationId, org);
    }
  }
}

function usersOf(org: OrgState, flowId: string): PresenceUser[] {
  const byUser = new Map<string, PresenceUser>();
  for (const { entries } of org.instances.values()) {
    for (const e of entries) if (e.flow_id === flowId && !byUser.has(e.user_id)) byUser.set(e.user_id, { user_id: e.user_id, name: e.name });
  }
  return [...byUser.values()].sort((a, b) => a.name.localeCompare(b.name) || a.user_id.localeCompare(b.user_id));
}
