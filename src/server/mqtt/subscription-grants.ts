/**
 * What a persistence stores for a SUBSCRIBE. Aedes (2.0.0-beta.1, handlers/subscribe.js
 * `storeSubscriptions`) calls `addSubscriptions(client, packet.subscriptions)` once per granted
 * filter of a persistent client's SUBSCRIBE, each time with the packet's whole list, refused
 * filters included (its README says once per packet; moscajs/aedes#121 had made it so in 2017 by
 * storing only from the packet's first filter, a guard 2.0.0-beta.1 no longer has). Taken as is:
 * - aedes-persistence-redis waits for its own broadcast of each store to come back, keyed by the
 *   client and the list's first filter: of N stores of one list, N - 1 waited forever, so a
 *   persistent client subscribing to several filters in one packet never got its SUBACK on Redis;
 * - a filter refused for the client's subscription limit was stored with its granted siblings,
 *   queued messages while the client was away, and came back as a live subscription when the
 *   session was restored (a restore does not count against the limit).
 * So each packet's list is stored once, with only the filters `authorizeSubscribe` granted: it
 * decides every filter of a packet synchronously, as aedes fans them out, before any store.
 */
export class SubscriptionGrants {
  private readonly granted = new WeakSet<object>();
  private readonly stores = new WeakMap<object, Promise<void>>();

  /** `authorizeSubscribe` granted this subscription (the object aedes hands on to the store). */
  grant(subscription: object): void {
    this.granted.add(subscription);
  }

  /** Stores the granted members of `subs` once, however often aedes asks for the same list. */
  storeOnce<T extends object>(subs: T[], store: (granted: T[]) => Promise<void>): Promise<void> {
    let pending = this.stores.get(subs);
    if (!pending) {
      const granted = subs.filter((s) => this.granted.has(s));
      pending = granted.length > 0 ? store(granted) : Promise.resolve();
      this.stores.set(subs, pending);
    }
    return pending;
  }
}
