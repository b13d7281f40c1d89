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
  const connack = () => gen({ cmd: "connack", returnCode: 0, reasonCode: 0, sessionPresent: true });
  const stream = () =>
    Buffer.concat([
      connack(),
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
      expect(packets.map((p) => p.cmd)).toEqual(["connack", "publish", "puback", "suback", "pubrec", "puback", "pingresp"]);
      expect(packets[1]).toMatchObject({ topic: "a/b", messageId: 9, properties: { userProperties: { k: "v" } } });
      expect((packets[1] as mqttPacket.IPublishPacket).payload).toEqual(Buffer.alloc(300, 7));
      expect(packets[2]).toMatchObject({ messageId: 5, reasonCode: 0x97, properties: { reasonString: "too fast" } });
      expect(packets[3]).toMatchObject({ messageId: 6, granted: [1, 0x8f, 0x9e, 0], properties: { reasonString: "no" } });
      expect(packets[4]).toMatchObject({ messageId: 7, reasonCode: 0x90 });
      // No code was noted for 8: aedes' 0x87 stands.
      expect(packets[5]).toMatchObject({ messageId: 8, reasonCode: 0x87 });
    }
  });

  it("uses a code once: a later acknowledgement with the same identifier is left alone", () => {
    const r = new AckRewriter();
    r.setPublish(5, ReasonCode.QUOTA_EXCEEDED);
    r.rewrite(connack());
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

  it("keeps the CONNACK first: packets written before it follow it, in order, whatever the chunking ([MQTT-3.2.0-1])", () => {
    for (const size of [1, 2, 5, 64, 1 << 20]) {
      const r = new AckRewriter();
      r.setPublish(3, ReasonCode.QUOTA_EXCEEDED);
      // A live message of a restored subscription, written before Aedes wrote the CONNACK.
      const input = Buffer.concat([
        gen({ cmd: "publish", topic: "live/1", payload: Buffer.from("first"), qos: 1, messageId: 3, retain: false, dup: false }),
        gen({ cmd: "publish", topic: "live/2", payload: Buffer.alloc(200, 1), qos: 0, retain: false, dup: false }),
        connack(),
        gen({ cmd: "publish", topic: "queued/1", payload: Buffer.from("replayed"), qos: 1, messageId: 4, retain: false, dup: false }),
        gen({ cmd: "puback", messageId: 3, reasonCode: ReasonCode.NOT_AUTHORIZED }),
      ]);
      const packets = parse(through(r, input, size));
      expect(packets.map((p) => [p.cmd, (p as mqttPacket.IPublishPacket).topic ?? null]), `chunks of ${size}`).toEqual([
        ["connack", null],
        ["publish", "live/1"],
        ["publish", "live/2"],
        ["publish", "queued/1"],
        ["puback", null],
      ]);
      // A PUBLISH is never taken for an acknowledgement (its topic length is not a packet id).
      expect(packets[1]).toMatchObject({ messageId: 3, payload: Buffer.from("first") });
      expect(packets[4]).toMatchObject({ messageId: 3, reasonCode: 0x97 });
      expect(r.connackWritten).toBe(true);
    }
  });

  it("lets nothing out before a CONNACK: a connection refused or closed before it sends nothing else", () => {
    const r = new AckRewriter();
    const early = gen({ cmd: "publish", topic: "live/1", payload: Buffer.from("x"), qos: 0, retain: false, dup: false });
    expect(r.rewrite(early)).toEqual([]);
    expect(r.connackWritten).toBe(false);
  });
});
