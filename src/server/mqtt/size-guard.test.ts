import net from "node:net";
import { describe, expect, it } from "vitest";
import mqttPacket from "mqtt-packet";
import { guardPacketSize, PacketSizeGuard } from "./size-guard";

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

describe("a guarded connection ending", () => {
  it("the peer gets what was written before the end, even while it is still sending (no reset)", async () => {
    const server = net.createServer((socket) => {
      const guarded = guardPacketSize(socket, 64 * 1024 * 1024);
      // As Aedes ends a connection: the reason written, then destroyed at once, with bytes unread.
      guarded.once("data", () => guarded.write(Buffer.from("BYE"), () => guarded.destroy()));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const { port } = server.address() as net.AddressInfo;
      for (let round = 0; round < 5; round++) {
        const client = net.connect(port, "127.0.0.1");
        const received: Buffer[] = [];
        client.on("data", (b: Buffer) => received.push(b));
        const closed = new Promise<Error | undefined>((resolve) => {
          client.on("error", (err) => resolve(err));
          client.on("close", () => resolve(undefined));
        });
        // A 4 MB packet: far more than one read, so the server has bytes it did not read when it ends.
        client.write(publish(4 * 1024 * 1024));
        expect(await closed).toBeUndefined();
        expect(Buffer.concat(received).toString()).toBe("BYE");
      }
    } finally {
      server.close();
    }
  });
});
