/**
 * MQTT_PERSISTENT_SESSION_EXPIRY_SECONDS: an MQTT 3.1.1 persistent session (clean session false),
 * which Aedes keeps until its client returns, ends that long after its client left, through the
 * session-expiry ledger's sweep (session-expiry.ts): its subscriptions and queue are gone, its place
 * in the organization's session limit is free. A client that is connected, or came back in time,
 * keeps its session. Embedded by default; PostgreSQL + Redis with DATABASE_URL + REDIS_URL.
 */
import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { refusedWith, setUpTestMqtt, sleep } from "@/test/mqtt";

const testApp = setUpTestApp({ MQTT_PERSISTENT_SESSION_EXPIRY_SECONDS: "1", MQTT_MAX_SESSIONS_PER_ORGANIZATION: "2" });
const request = testApp.request;
const mq = setUpTestMqtt(testApp);

describe("MQTT 3.1.1 persistent sessions with MQTT_PERSISTENT_SESSION_EXPIRY_SECONDS", () => {
  it("end that long after their client left: no session, no queue, room in the session limit; one that came back in time stays", async () => {
    const owner = await signUp(request);
    const key = (await request("POST", "/api-keys", { token: owner.accessToken, body: { name: "d", kind: "device" } })).body.secret as string;
    const leave = async (clientId: string) => {
      const device = await mq.connect(mq.tcp, { password: key, clientId, clean: false });
      await device.subscribe(`cmd/${clientId}`, 1);
      await device.end();
    };
    await leave("gone");
    await leave("back");
    const sender = await mq.connect(mq.tcp, { password: key, clientId: "sender" });
    await sender.publish("cmd/gone", "reboot", { qos: 1 });
    await sender.publish("cmd/back", "reboot", { qos: 1 });
    // Both places of the limit are taken while the sessions are kept.
    expect(await refusedWith(mq.tcp, { password: key, clientId: "third", clean: false })).toBe(3);
    // "back" returns before its second is over and stays connected.
    const back = await mq.connect(mq.tcp, { password: key, clientId: "back", clean: false });
    expect(back.connack.sessionPresent).toBe(true);
    await back.next((m) => m.topic === "cmd/back");
    await sleep(1_300);
    await testApp.app.mqtt.sweepExpiredSessions();
    // "gone" is over: its place is free for another, and it returns to a new session with nothing queued.
    expect(await refusedWith(mq.tcp, { password: key, clientId: "third", clean: false })).toBe("accepted");
    const returned = await mq.connect(mq.tcp, { password: key, clientId: "gone", clean: false });
    expect(returned.connack.sessionPresent).toBe(false);
    await sleep(300);
    expect(returned.messages).toEqual([]);
    await returned.end();
    // "back" kept its session while connected, and after the sweep.
    await back.end();
    const again = await mq.connect(mq.tcp, { password: key, clientId: "back", clean: false });
    expect(again.connack.sessionPresent).toBe(true);
    await again.end();
  });
});
