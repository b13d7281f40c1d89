import type { KeyValueStore } from "./types";
import { durableSubscription, type DurableSubscription } from "./durable-subscription";
import type { Logger } from "../logger";

/**
 * Handlers per organization over one durable subscription of the store's pub/sub, held while at
 * least one handler is: the shape of every per-organization channel (dashboards, devices). A
 * message that is not JSON is dropped; a handler that throws is logged and the others still run.
 * When the store cannot subscribe (Redis connecting or down) the subscription keeps trying rather
 * than leaving the handlers deaf.
 */
export class OrgListeners<T> {
  private readonly orgs = new Map<string, { set: Set<(m: T) => void>; subscription: DurableSubscription }>();

  constructor(
    private readonly store: KeyValueStore,
    private readonly logger: Logger,
    private readonly channelOf: (organizationId: string) => string,
    /** Names the traffic in log lines ("dashboard", "device"). */
    private readonly label: string,
  ) {}

  add(organizationId: string, handler: (m: T) => void): () => void {
    let entry = this.orgs.get(organizationId);
    if (!entry) {
      const set = new Set<(m: T) => void>();
      const channel = this.channelOf(organizationId);
      entry = {
        set,
        subscription: durableSubscription(
          this.store,
          channel,
          (raw) => {
            let message: T;
            try {
              message = JSON.parse(raw) as T;
            } catch {
              return;
            }
            for (const h of set) {
              try {
                h(message);
              } catch (err) {
                this.logger.warn({ err, channel }, `${this.label} message handler failed`);
              }
            }
          },
          { onRetry: (err, attempt) => this.logger.warn({ err, channel, attempt }, `${this.label} channel could not be subscribed; retrying`) },
        ),
      };
      this.orgs.set(organizationId, entry);
    }
    entry.set.add(handler);
    return () => {
      const current = this.orgs.get(organizationId);
      if (!current) return;
      current.set.delete(handler);
      if (current.set.size === 0) {
        this.orgs.delete(organizationId);
        void current.subscription.stop();
      }
    };
  }

  /** Resolves once the organization's subscription is active (tests, and a socket's first page). */
  ready(organizationId: string): Promise<void> {
    return this.orgs.get(organizationId)?.subscription.ready ?? Promise.resolve();
  }

  async close() {
    const all = [...this.orgs.values()];
    this.orgs.clear();
    await Promise.all(all.map((e) => e.subscription.stop()));
  }
}
