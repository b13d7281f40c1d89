import { describe, expect, it } from "vitest";
import mqttPacket from "mqtt-packet";
import { PacketSizeGuard } from "./size-guard";

const publish = (bytes: number) => mqttPacket.generate({ cmd: "publish", topic: "a/b", payload: Buffer.alloc(bytes), qos: 0, retain: false, dup: false });

describe("MQTT packet size guard", () => {
  it("lets packets within the bound through, whole or split anywhere", () => {
    const stream = Buffer.concat([publish(10), publish(1000), publish(0), mqttPacket.generate({ cmd: "pingreq" })]);
    expect(new PacketSizeGuard(2000).feed(stream)).toBe(true);
    const guard = new PacketSizeGuard(2000);
    for (let i = 0; i < stream.length; i++) expect(guard.feed(stream.subarray(i, i + 1))).toBe(true);
  });

  it("refuses a packet announced larger than the bound before its body arrives, and stays refused", () => {
    const big = publish(300_000);
    const guard = new PacketSizeGuard(256 * 1024);
    expect(guard.feed(big.subarray(0, 5))).toBe(false);
    expect(guard.feed(publish(1))).toBe(false);
  });

  it("refuses a remaining length of more than four bytes", () => {
    expect(new PacketSizeGuard(Number.MAX_SAFE_INTEGER).feed(Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff, 0x01]))).toBe(false);
  });
});
