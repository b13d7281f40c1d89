import { describe, expect, it } from "vitest";
import { OrgChannels } from "./org-channels";

/**
 * The hub's subscriptions to an organization's channels: a socket's `ready` waits for join(), so
 * join() must settle only once both subscriptions are active (on Redis, after SUBSCRIBE's answer).
 * An event published before that would be lost to a client that read the state on `ready`.
 */
function fakeStore() {
  const pending: Array<() => void> = [];
  const channels: string[] = [];
  const stopped: string[] = [];
  const subscribe = (channel: string) => {
    channels.push(channel);
    let resolve!: () => void;
    const ready = new Promise<void>((r) => (resolve = r));
    pending.push(resolve);
    return { ready, stop: async () => void stopped.push(channel) };
  };
  return { subscribe, pending, channels, stopped };
}

const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setTimeout(r, 0));
  return done;
};

describe("OrgChannels", () => {
  it("join settles when both subscriptions are active; a second join of the organization shares them", async () => {
    const store = fakeStore();
    const channels = new OrgChannels(store.subscribe, { event: () => undefined, lifecycle: () => undefined });
    const first = channels.join("org_a");
    const second = channels.join("org_a");
    expect(store.channels).toHaveLength(2);
    expect(await settled(first)).toBe(false);
    store.pending[0]!();
    expect(await settled(first)).toBe(false);
    store.pending[1]!();
    expect(await settled(first)).toBe(true);
    expect(await settled(second)).toBe(true);
    // Once active, a later join settles at once.
    expect(await settled(channels.join("org_a"))).toBe(true);
  });

  it("leaves the subscriptions with the organization's last connection", async () => {
    const store = fakeStore();
    const channels = new OrgChannels(store.subscribe, { event: () => undefined, lifecycle: () => undefined });
    void channels.join("org_a");
    void channels.join("org_a");
    channels.leave("org_a");
    expect(store.stopped).toEqual([]);
    channels.leave("org_a");
    expect(store.stopped).toHaveLength(2);
  });
});
