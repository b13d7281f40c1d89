import type { DurableSubscription } from "../store/durable-subscription";
import { orgEventsChannel } from "../../shared/realtime";
import { organizationLifecycleChannel } from "../auth/revocation-channels";

type Subscribe = (channel: string, handler: (message: string) => void) => DurableSubscription;

/**
 * The hub's subscriptions to each organization's channels in the store's pub/sub (events and
 * lifecycle), held while at least one of the organization's connections is on this instance.
 */
export class OrgChannels {
  private readonly subs = new Map<string, { count: number; events: DurableSubscription; lifecycle: DurableSubscription; ready: Promise<void> }>();

  constructor(
    private readonly subscribe: Subscribe,
    private readonly handlers: { event(organizationId: string, raw: string): void; lifecycle(organizationId: string, raw: string): void },
  ) {}

  /**
   * One more connection of the organization here. Settles when both subscriptions are active (at
   * once for an organization already joined): from then on its events reach this instance.
   */
  join(organizationId: string): Promise<void> {
    const existing = this.subs.get(organizationId);
    if (existing) {
      existing.count++;
      return existing.ready;
    }
    const events = this.subscribe(orgEventsChannel(organizationId), (m) => this.handlers.event(organizationId, m));
    const lifecycle = this.subscribe(organizationLifecycleChannel(organizationId), (m) => this.handlers.lifecycle(organizationId, m));
    const ready = Promise.all([events.ready, lifecycle.ready]).then(() => undefined);
    this.subs.set(organizationId, { count: 1, events, lifecycle, ready });
    return ready;
  }

  leave(organizationId: string) {
    const sub = this.subs.get(organizationId);
    if (!sub) return;
    if (--sub.count <= 0) {
      this.subs.delete(organizationId);
      void sub.events.stop();
      void sub.lifecycle.stop();
    }
  }

  async close() {
    const all = [...this.subs.values()];
    this.subs.clear();
    await Promise.all(all.flatMap((s) => [s.events.stop(), s.lifecycle.stop()]));
  }
}
