import { EventEmitter } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import type { WebSocket } from "ws";
import { MemoryStore, StoreUnavailableError } from "../store";
import { createLogger } from "../logger";
import type { ApiKeyPrincipal } from "../auth/principal";
import type { DeviceInMessage } from "../runtime/types";
import { DeviceBus, devicesInChannel, devicesOutChannel } from "./device-bus";
import { DeviceChannel } from "./devices";

const logger = createLogger({ level: "silent" });
const stores: MemoryStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

/** A MemoryStore whose first `failures` subscribe calls fail, as Redis does while (re)connecting. */
function flakyStore(failures: number) {
  const store = new MemoryStore();
  stores.push(store);
  const subscribe = store.subscribe.bind(store);
  const counter = { attempts: 0 };
  store.subscribe = (channel, handler) => {
    counter.attempts++;
    if (counter.attempts <= failures) return Promise.reject(new StoreUnavailableError("redis store unavailable (reconnecting)"));
    return subscribe(channel, handler);
  };
  return { store, counter };
}

describe("DeviceBus", () => {
  it("keeps subscribing when the store cannot yet: device-in nodes are not left deaf (and nothing rejects unhandled)", async () => {
    const { store, counter } = flakyStore(1);
    const bus = new DeviceBus(store, logger);
    const received: DeviceInMessage[] = [];
    const stop = bus.onDeviceMessage("org_a", (m) => received.push(m));
    await expect.poll(() => counter.attempts, { timeout: 2_000 }).toBe(2);
    await expect.poll(async () => store.publish(devicesInChannel("org_a"), "{}")).toBe(1);
    const message = { topic: "t", payload: 1, device_key_id: "key_1" };
    bus.publishFromDevice("org_a", message);
    await expect.poll(() => received).toContainEqual(message);
    stop();
    await expect.poll(async () => store.publish(devicesInChannel("org_a"), "{}")).toBe(0);
  });

  it("one subscription per organization; stopping before it is active leaves nothing subscribed", async () => {
    const { store, counter } = flakyStore(1);
    const bus = new DeviceBus(store, logger);
    const stopFirst = bus.onDeviceMessage("org_a", () => undefined);
    const stopSecond = bus.onDeviceMessage("org_a", () => undefined);
    expect(counter.attempts).toBe(1);
    stopFirst();
    stopSecond();
    // Past the first retry's delay (250 ms): no attempt is made any more.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(counter.attempts).toBe(1);
    expect(await store.publish(devicesInChannel("org_a"), "{}")).toBe(0);
  });
});

describe("DeviceChannel", () => {
  const principal = { kind: "api_key", keyId: "key_1", keyKind: "device", organizationId: "org_a" } as unknown as ApiKeyPrincipal;

  function fakeSocket() {
    const ws = Object.assign(new EventEmitter(), { OPEN: 1, readyState: 1, sent: [] as string[] });
    (ws as unknown as { send: (text: string) => void }).send = (text: string) => ws.sent.push(text);
    return ws;
  }

  it("keeps subscribing to the devices:out channel when the store cannot yet, and stops with the last socket", async () => {
    const { store, counter } = flakyStore(1);
    const channel = new DeviceChannel(store, { deviceMessage: () => undefined });
    const ws = fakeSocket();
    channel.attach(ws as unknown as WebSocket, principal);
    await expect.poll(() => counter.attempts, { timeout: 2_000 }).toBe(2);
    await expect.poll(async () => store.publish(devicesOutChannel("org_a"), JSON.stringify({ topic: "cmd", payload: "reboot" }))).toBe(1);
    await expect.poll(() => ws.sent.length).toBeGreaterThan(0);
    expect(JSON.parse(ws.sent[0]!)).toEqual({ type: "device.message", topic: "cmd", payload: "reboot" });
    ws.emit("close");
    await expect.poll(async () => store.publish(devicesOutChannel("org_a"), "{}")).toBe(0);
  });
});
