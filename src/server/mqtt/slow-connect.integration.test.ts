/**
 * A CONNECT that waits long for its CONNACK is logged with the step it waits on (broker.ts,
 * SLOW_CONNECT_MS): here the organization's connection count, read from the store, is held back.
 * A CONNECT answered in time logs nothing.
 */
import { describe, expect, it } from "vitest";
import { connectMqtt, setUpLoggedBroker, sleep } from "@/test/mqtt";
import { SLOW_CONNECT_MS } from "./broker";

const broker = setUpLoggedBroker();

const slowLines = () => broker.lines.filter((l) => String(l.msg).startsWith("mqtt: a CONNECT has waited"));

describe("a slow CONNECT", () => {
  it("is logged with the step it waits on, once, and still answered; one answered in time is not logged", { timeout: 30_000 }, async () => {
    const quick = await connectMqtt(broker.mq.tcp, { password: broker.key, clientId: "quick" });
    await quick.end();

    // The connection count of the organization (admit's onlineMqttClients) answers late.
    const setMembers = broker.app.store.setMembers.bind(broker.app.store);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    broker.app.store.setMembers = async (name: string) => {
      await held;
      return setMembers(name);
    };
    try {
      const connecting = connectMqtt(broker.mq.tcp, { password: broker.key, clientId: "slow-one" });
      await expect.poll(() => slowLines().length, { timeout: SLOW_CONNECT_MS + 3_000, interval: 100 }).toBe(1);
      release();
      const slow = await connecting;
      expect(slow.client.connected).toBe(true);
      await slow.end();
    } finally {
      release();
      broker.app.store.setMembers = setMembers;
    }
    const [line] = slowLines();
    expect(line).toMatchObject({ level: 40, clientId: "slow-one", step: "checking its API key and the organization's connection limit" });
    expect(line!.waitedMs).toBeGreaterThanOrEqual(SLOW_CONNECT_MS - 50);
    // Answered in time: no line, nor a later one for the slow connection.
    const again = await connectMqtt(broker.mq.tcp, { password: broker.key, clientId: "quick" });
    await again.end();
    await sleep(200);
    expect(slowLines()).toHaveLength(1);
  });
});
