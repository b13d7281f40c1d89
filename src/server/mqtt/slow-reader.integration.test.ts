/**
 * A subscriber that stops reading (broker.ts, MAX_BUFFERED_BYTES_PER_CONNECTION): the broker closes
 * it once that much waits to be written to it, instead of holding the organization's traffic for
 * it; a subscriber that reads gets every message meanwhile.
 */
import net from "node:net";
import mqttPacket from "mqtt-packet";
import { describe, expect, it } from "vitest";
import { connectMqtt, setUpLoggedBroker, sleep } from "@/test/mqtt";
import { MAX_BUFFERED_BYTES_PER_CONNECTION } from "./broker";

const broker = setUpLoggedBroker();

/** A raw MQTT 3.1.1 client that subscribes, then stops reading its socket. */
async function subscribeAndStopReading(url: string, topic: string): Promise<{ socket: net.Socket; closed: Promise<void> }> {
  const { hostname, port } = new URL(url);
  const socket = net.connect({ host: hostname, port: Number(port) });
  const parser = mqttPacket.parser({ protocolVersion: 4 });
  const packets: string[] = [];
  parser.on("packet", (p: { cmd: string }) => packets.push(p.cmd));
  socket.on("data", (d) => parser.parse(d));
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.on("error", () => undefined);
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.write(mqttPacket.generate({ cmd: "connect", protocolId: "MQTT", protocolVersion: 4, clean: true, clientId: "stalled", keepalive: 0, username: "device", password: Buffer.from(broker.key) }));
  while (!packets.includes("connack")) await sleep(10);
  socket.write(mqttPacket.generate({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic, qos: 0 }] }));
  while (!packets.includes("suback")) await sleep(10);
  socket.pause();
  return { socket, closed };
}

describe("a subscriber that stops reading", () => {
  it("is closed once 8 MiB wait for it; a subscriber that reads gets every message", { timeout: 60_000 }, async () => {
    const stalled = await subscribeAndStopReading(broker.mq.tcp, "big/#");
    const reader = await connectMqtt(broker.mq.tcp, { password: broker.key, clientId: "reader" });
    await reader.subscribe("big/#", 0);
    const publisher = await connectMqtt(broker.mq.tcp, { password: broker.key, clientId: "publisher" });
    const payload = Buffer.alloc(256 * 1024, 0x61);
    // Three times the bound, beyond what the kernel's socket buffers hold.
    const count = Math.ceil((3 * MAX_BUFFERED_BYTES_PER_CONNECTION) / payload.length) + 64;
    for (let i = 0; i < count; i++) {
      await publisher.publish(`big/${i}`, payload, { qos: 1 });
    }
    for (let i = 0; i < count; i++) await reader.next((m) => m.topic === `big/${i}`);
    const warned = broker.lines.find((l) => l.msg === "mqtt: closing a connection that reads too slowly");
    expect(warned).toMatchObject({ clientId: "stalled" });
    expect(Number(warned!.buffered)).toBeGreaterThan(MAX_BUFFERED_BYTES_PER_CONNECTION);
    stalled.socket.resume();
    await stalled.closed;
    await reader.end();
    await publisher.end();
  });
});
