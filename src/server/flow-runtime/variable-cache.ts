import type { KeyValueStore } from "../store";
import type { Logger } from "../logger";
import { durableSubscription, type DurableSubscription } from "../store/durable-subscription";
import { VariableSet, type VariableSource } from "../runtime/variables";

/** The store channel on which a variable change is announced to every instance (payload: the organization id). */
export const VARIABLES_CHANGED_CHANNEL = "variables:changed";

export interface VariableCacheOptions {
  store: KeyValueStore;
  logger: Logger;
  /** Reads an organization's variables (decrypted) from the database. */
  load(organizationId: string): Promise<VariableSet>;
  /**
   * A backstop for an announcement lost on its way (Redis reconnecting): every organization held
   * here is read again this often. Default 30 s.
   */
  refreshMs?: number;
}

/**
 * This instance's copy of the variables of the organizations whose flows run here. Resolvers read
 * it synchronously (`current`); a flow is started only after its organization's set was loaded
 * (`ensure`). A change made on any instance is announced on the store's pub/sub (`changed`), and
 * every instance reads that organization's variables again at once, so running flows see the new
 * value well within 2 s, without a redeploy. Reloads of one organization run one after the other,
 * so an older read never replaces a newer one.
 */
export class VariableCache implements VariableSource {
  private readonly sets = new Map<string, VariableSet>();
  private readonly loading = new Map<string, Promise<void>>();
  private subscription: DurableSubscription | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly options: VariableCacheOptions) {}

  /** Listens for changes from other instances; resolves once the subscription is active. */
  async start(): Promise<void> {
    this.subscription = durableSubscription(this.options.store, VARIABLES_CHANGED_CHANNEL, (organizationId) => {
      // A load under way may have read the database before the change: read again after it.
      if (this.sets.has(organizationId) || this.loading.has(organizationId)) void this.reload(organizationId);
    }, { onRetry: (err) => this.options.logger.warn({ err }, "variables: subscription failed, retrying") });
    this.timer = setInterval(() => {
      for (const organizationId of this.sets.keys()) void this.reload(organizationId);
    }, this.options.refreshMs ?? 30_000);
    this.timer.unref?.();
    await this.subscription.ready;
  }

  current(organizationId: string): VariableSet {
    return this.sets.get(organizationId) ?? VariableSet.empty;
  }

  /**
   * Loads the organization's variables unless held already (before one of its flows starts).
   * Throws when they cannot be read: a flow must not start without its secrets (its start fails
   * and is retried like any other).
   */
  async ensure(organizationId: string): Promise<VariableSet> {
    if (!this.sets.has(organizationId)) await this.reload(organizationId);
    const set = this.sets.get(organizationId);
    if (!set) throw new Error("the organization's variables could not be read");
    return set;
  }

  /**
   * After a change is committed: this instance reads the organization again, then every other
   * instance is told to. Resolves once this instance holds the new values.
   */
  async changed(organizationId: string): Promise<void> {
    await this.reload(organizationId);
    await this.options.store.publish(VARIABLES_CHANGED_CHANNEL, organizationId).catch((err: unknown) => {
      this.options.logger.warn({ err, organizationId }, "variables: change could not be announced; other instances see it within the refresh interval");
    });
  }

  private reload(organizationId: string): Promise<void> {
    const previous = this.loading.get(organizationId) ?? Promise.resolve();
    const next = previous.then(async () => {
      if (this.closed) return;
      try {
        const loaded = await this.options.load(organizationId);
        const previous = this.sets.get(organizationId);
        this.sets.set(organizationId, previous ? loaded.retaining(previous) : loaded);
      } catch (err) {
        this.options.logger.error({ err, organizationId }, "variables could not be read");
      }
    });
    this.loading.set(organizationId, next);
    void next.finally(() => {
      if (this.loading.get(organizationId) === next) this.loading.delete(organizationId);
    });
    return next;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.subscription?.stop();
  }
}
