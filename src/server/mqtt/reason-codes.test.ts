import mqttPacket from "mqtt-packet";
import { describe, expect, it } from "vitest";
import { AckRewriter, ReasonCode } from "./reason-codes";

const v5 = { protocolVersion: 5 as const };
const gen = (packet: object) => mqttPacket.generate(packet as mqttPacket.Packet, v5);

/** Parses what came out, as the client would. */
function parse(bytes: Buffer): mqttPacket.Packet[] {
  const parser = mqttPacket.parser(v5);
  const out: mqttPacket.Packet[] = [];
  parser.on("packet", (p) => out.push(p));
  parser.on("error", (err) => {
    throw err;
  });
  parser.parse(bytes);
  return out;
}

/** Feeds `bytes` in pieces of `size` and joins what the rewriter lets out. */
function through(rewriter: AckRewriter, bytes: Buffer, size: number): Buffer {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(...rewriter.rewrite(bytes.subarray(i, i + size)));
  return Buffer.concat(out);
}

describe("AckRewriter", () => {
  const stream = () =>
    Buffer.concat([
      gen({ cmd: "publish", topic: "a/b", payload: Buffer.alloc(300, 7), qos: 1, messageId: 9, retain: false, dup: false, properties: { userProperties: { k: "v" } } }),
      gen({ cmd: "puback", messageId: 5, reasonCode: ReasonCode.NOT_AUTHORIZED, properties: { reasonString: "too fast" } }),
      gen({ cmd: "suback", messageId: 6, granted: [1, 0x87, 0x87, 0], properties: { reasonString: "no" } }),
      gen({ cmd: "pubrec", messageId: 7, reasonCode: ReasonCode.NOT_AUTHORIZED }),
      gen({ cmd: "puback", messageId: 8, reasonCode: ReasonCode.NOT_AUTHORIZED }),
      gen({ cmd: "pingresp" }),
    ]);

  it("sets the codes it was given in the acknowledgements they are for, whatever the chunking, and changes nothing else", () => {
    for (const size of [1, 2, 3, 7, 64, 1 << 20]) {
      const r = new AckRewriter();
      r.setPublish(5, ReasonCode.QUOTA_EXCEEDED);
      r.setPublish(7, ReasonCode.TOPIC_NAME_INVALID);
      r.setSubscribe(6, 1, ReasonCode.TOPIC_FILTER_INVALID);
      r.setSubscribe(6, 2, ReasonCode.SHARED_SUBSCRIPTIONS_NOT_SUPPORTED);
      const input = stream();
      const copy = Buffer.from(input);
      const packets = parse(through(r, input, size));
      expect(input.equals(copy)).toBe(true);
      expect(packets.map((p) => p.cmd)).toEqual(["publish", "puback", "suback", "pubrec", "puback", "pingresp"]);
      expect(packets[0]).toMatchObject({ topic: "a/b", messageId: 9, properties: { userProperties: { k: "v" } } });
      expect((packets[0] as mqttPacket.IPublishPacket).payload).toEqual(Buffer.alloc(300, 7));
      expect(packets[1]).toMatchObject({ messageId: 5, reasonCode: 0x97, properties: { reasonString: "too fast" } });
      expect(packets[2]).toMatchObject({ messageId: 6, granted: [1, 0x8f, 0x9e, 0], properties: { reasonString: "no" } });
      expect(packets[3]).toMatchObject({ messageId: 7, reasonCode: 0x90 });
      // No code was noted for 8: aedes' 0x87 stands.
      expect(packets[4]).toMatchObject({ messageId: 8, reasonCode: 0x87 });
    }
  });

  it("uses a code once: a later acknowledgement with the same identifier is left alone", () => {
    const r = new AckRewriter();
    r.setPublish(5, ReasonCode.QUOTA_EXCEEDED);
    const ack = gen({ cmd: "puback", messageId: 5, reasonCode: ReasonCode.NOT_AUTHORIZED });
    expect(parse(Buffer.concat(r.rewrite(ack)))[0]).toMatchObject({ reasonCode: 0x97 });
    expect(parse(Buffer.concat(r.rewrite(ack)))[0]).toMatchObject({ reasonCode: 0x87 });
  });

  it("passes chunks through as they are when no code waits", () => {
    const r = new AckRewriter();
    const input = stream();
    const out = r.rewrite(input);
    expect(out).toHaveLength(1);
    expect(out[0]).toBe(input);
  });
});
