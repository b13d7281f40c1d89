/**
 * QoS 2 across a restart of the broker: a client that acknowledged a queued message's PUBLISH
 * (PUBREC) and was sent its PUBREL, but had not completed it (PUBCOMP) when the broker stopped, is
 * sent that PUBREL again when it returns, with the same packet id, and never the PUBLISH: it would
 * take a PUBLISH with a new packet id for a new message and deliver it twice ([MQTT-4.3.3-1]: the
 * sender MUST NOT re-send the PUBLISH once it has sent the PUBREL). Embedded: the row's
 * `pubrel_message_id` (durable-persistence.ts); with DATABASE_URL + REDIS_URL: aedes-persistence-redis
 * keeps the PUBREL in Redis. A raw MQTT client (mqtt-packet over TCP) so that the test decides
 * which acknowledgements go.
 */
import type { Packet } from "mqtt-packet";
import { afterAll, describe, expect, it } from "vitest";
import { restartableApp, restClient } from "@/test/app";
import { signUp } from "@/test/accounts";
import { connectMqtt, rawMqttClient, serveMqtt, sleep } from "@/test/mqtt";

const restartable = restartableApp("mqtt-qos2");
const startApp = () => restartable.start();
afterAll(() => restartable.cleanUp());

describe("QoS 2 across a restart", () => {
  it("a message whose PUBREC came before the broker stopped is completed with its PUBREL, never published again", { timeout: 90_000 }, async () => {
    let app = await startApp();
    let mq = await serveMqtt(app);
    let device: Awaited<ReturnType<typeof rawMqttClient>> | undefined;
    try {
      const owner = await signUp(restClient(app));
      const key = (await restClient(app)("POST", "/api-keys", { token: owner.accessToken, body: { name: "meter", kind: "device" } })).body.secret as string;
      /** The device leaves, the broker restarts, the device comes back (clean session false). */
      const restartAndReturn = async () => {
        await device?.end();
        await mq.close();
        await app.close();
        app = await startApp();
        mq = await serveMqtt(app);
        return rawMqttClient(mq.tcp, "meter", key);
      };
      device = await rawMqttClient(mq.tcp, "meter", key);
      device.send({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "billing/#", qos: 2 }] });
      expect(((await device.next("suback")) as Packet & { granted: number[] }).granted).toEqual([2]);
      await device.end();
      // Two readings queued while it is away.
      const sender = await connectMqtt(mq.tcp, { password: key, clientId: "meter-console" });
      await sender.publish("billing/kwh", "first", { qos: 2 });
      await sender.publish("billing/kwh", "second", { qos: 2 });
      await sender.end();
      await sleep(100);

      // It returns, takes both, acknowledges the first (PUBREC) and gets its PUBREL, then is gone
      // without its PUBCOMP; the second it never acknowledged.
      device = await rawMqttClient(mq.tcp, "meter", key);
      const first = (await device.next("publish")) as Packet & { messageId: number; payload: Buffer };
      const second = (await device.next("publish")) as Packet & { messageId: number; payload: Buffer };
      expect([first.payload.toString(), second.payload.toString()]).toEqual(["first", "second"]);
      device.send({ cmd: "pubrec", messageId: first.messageId });
      expect((await device.next("pubrel")).messageId).toBe(first.messageId);
      // The broker's write of its state (the embedded one writes a connected client's a second later).
      await sleep(1_500);
      device = await restartAndReturn();
      expect(device.connack.sessionPresent).toBe(true);
      // The first: its PUBREL again, with its packet id; the second: its PUBLISH again.
      expect((await device.next("pubrel")).messageId).toBe(first.messageId);
      const again = (await device.next("publish")) as Packet & { messageId: number; payload: Buffer };
      expect(again.payload.toString()).toBe("second");
      await sleep(300);
      expect(device.packets.filter((p) => p.cmd === "publish")).toEqual([]);
      // Both completed: nothing is left to send after another restart.
      device.send({ cmd: "pubcomp", messageId: first.messageId });
      device.send({ cmd: "pubrec", messageId: again.messageId });
      expect((await device.next("pubrel")).messageId).toBe(again.messageId);
      device.send({ cmd: "pubcomp", messageId: again.messageId });
      await sleep(300);
      device = await restartAndReturn();
      await sleep(500);
      expect(device.packets.map((p) => p.cmd)).toEqual([]);
      await device.end();
      device = undefined;
    } finally {
      await device?.end();
      await mq.close();
      await app.close();
    }
  });
});
