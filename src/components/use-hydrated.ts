import { useSyncExternalStore } from "react";

const subscribe = () => () => undefined;

/**
 * False in the server's HTML and while React hydrates it, true from then on. A control whose change
 * is saved at once stays disabled until then: a choice made before React listens would be lost, or
 * (React replays the change event at hydration, with the value the page was rendered with) saved
 * as the opposite of what the person picked.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
