import { StoreUnavailableError, type KeyValueStore } from "@/server/store/types";

/** The store as one process sees it, until cut(): then every call fails and its subscriptions end, as after a kill -9. */
export function cuttable(store: KeyValueStore): { store: KeyValueStore; cut(): Promise<void> } {
  let cut = false;
  const ends = new Set<() => Promise<void>>();
  const proxy = new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      // No second connection: the lease renewals go through this proxy, so cut() cuts them too, as a
      // kill -9 ends the lease keeper's thread with its process (lease-keeper.integration.test.ts
      // covers the keeper itself).
      if (property === "connectionInfo") return () => null;
      if (property === "subscribe") {
        return async (channel: string, handler: (message: string) => void) => {
          if (cut) throw new StoreUnavailableError("cut off");
          const end = await target.subscribe(channel, handler);
          ends.add(end);
          return async () => {
            ends.delete(end);
            await end();
          };
        };
      }
      return (...args: unknown[]) => {
        if (cut) {
          if (property === "round") throw new StoreUnavailableError("cut off");
          return Promise.reject(new StoreUnavailableError("cut off"));
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return {
    store: proxy,
    async cut() {
      cut = true;
      await Promise.all([...ends].map((end) => end()));
      ends.clear();
    },
  };
}
