/**
 * Outgoing packet identifiers toward a client that returns to its session (packet-ids.ts). Aedes
 * numbers a connection's messages from a random start and sends the messages still in flight from
 * the last connection again with their own identifiers: a message sent live could take one of
 * those, and the client then holds two messages under one identifier (a QoS 2 one is dropped as a
 * duplicate; a PUBACK clears whichever the broker finds first). The test makes the random start
 * land on an identifier in flight, as it does by chance about once in ten returns with a queue of a
 * thousand. Embedded; with DATABASE_URL + REDIS_URL on aedes-persistence-redis.
 */
import type { Packet } from "mqtt-packet";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { AppServices } from "@/server/app-services";
import { createTestApp, restClient } from "@/test/app";
import { signUp } from "@/test/accounts";
import { connectMqtt, prefixRedis, rawMqttClient, serveMqtt, sleep, type MqttEndpoints } from "@/test/mqtt";

const testRedis = prefixRedis();

let app: AppServices;
let mq: MqttEndpoints;
let key: string;

beforeAll(async () => {
  app = await createTestApp({}, { storeKeyPrefix: testRedis.prefix });
  mq = await serveMqtt(app);
  const request = restClient(app);
  const owner = await signUp(request);
  key = (await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "tracker", kind: "device" } })).body.secret as string;
});

afterAll(async () => {
  await mq?.close();
  await app?.close();
  await testRedis.close();
});

type Publish = Packet & { messageId: number; payload: Buffer };

describe("outgoing packet identifiers", () => {
  it("a message sent live never takes the identifier of a queued message still in flight from the client's last connection", { timeout: 60_000 }, async () => {
    let device = await rawMqttClient(mq.tcp, "tracker", key);
    device.send({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "fleet/#", qos: 1 }] });
    await device.next("suback");
    await device.end();
    const sender = await connectMqtt(mq.tcp, { password: key, clientId: "tracker-console" });
    try {
      for (const p of ["a", "b", "c"]) await sender.publish("fleet/pos", p, { qos: 1 });
      await sleep(100);
      // It takes the three and is gone before acknowledging any.
      device = await rawMqttClient(mq.tcp, "tracker", key);
      const first = [(await device.next("publish")) as Publish, (await device.next("publish")) as Publish, (await device.next("publish")) as Publish];
      expect(first.map((p) => p.payload.toString())).toEqual(["a", "b", "c"]);
      const inFlight = first.map((p) => p.messageId);
      await device.end();
      await sleep(100);

      // Back, with the connection's numbering starting at the first identifier in flight.
      const random = vi.spyOn(Math, "random").mockReturnValue((inFlight[0]! - 0.5) / 65_535);
      try {
        device = await rawMqttClient(mq.tcp, "tracker", key);
      } finally {
        random.mockRestore();
      }
      const again = [(await device.next("publish")) as Publish, (await device.next("publish")) as Publish, (await device.next("publish")) as Publish];
      expect(again.map((p) => [p.payload.toString(), p.messageId])).toEqual(first.map((p) => [p.payload.toString(), p.messageId]));
      // Two live messages while those three are unacknowledged: identifiers of their own.
      await sender.publish("fleet/pos", "d", { qos: 1 });
      await sender.publish("fleet/pos", "e", { qos: 1 });
      const live = [(await device.next("publish")) as Publish, (await device.next("publish")) as Publish];
      expect(live.map((p) => p.payload.toString())).toEqual(["d", "e"]);
      for (const p of live) expect(inFlight).not.toContain(p.messageId);
      expect(live[0]!.messageId).not.toBe(live[1]!.messageId);

      // Each acknowledged by its identifier: none is sent again when it returns.
      for (const p of [...again, ...live]) device.send({ cmd: "puback", messageId: p.messageId });
      await sleep(300);
      await device.end();
      await sleep(100);
      device = await rawMqttClient(mq.tcp, "tracker", key);
      await sleep(500);
      expect(device.packets.filter((p) => p.cmd === "publish").map((p) => (p as Publish).payload.toString())).toEqual([]);
      await device.end();
    } finally {
      await sender.end();
    }
  });
});
