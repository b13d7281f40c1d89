/**
 * MQTT 5 reason codes of the built-in broker's refusals (src/server/mqtt/README.md, "Built-in
 * MQTT broker"), and the one place where they reach the wire when Aedes cannot be told them.
 *
 * Aedes 2's hooks refuse a PUBLISH (QoS 1/2) or a subscription of an MQTT 5 client with one code
 * only, 0x87 (not authorized). Our refusals have better ones: a publish over the organization's
 * rate is 0x97 (quota exceeded), to a `$` topic 0x90 (topic name invalid); a subscription to `$…`
 * is 0x8F (topic filter invalid), `$share/…` 0x9E, over the per-client limit 0x97. The broker
 * notes the code a refusal should carry (by packet identifier, and position in a SUBSCRIBE);
 * `AckRewriter` sits on the connection's way out, follows the packets' framing, and sets that
 * code in the PUBACK / PUBREC / SUBACK Aedes writes for it. Nothing else is copied or changed: a
 * packet is held only while it is one of those acknowledgements and a code is waiting for one.
 *
 * It also keeps the CONNACK first ([MQTT-3.2.0-1]). Aedes restores a persistent session's
 * subscriptions before it writes the CONNACK, and a message published in between (on Redis, one
 * published just before the client came back and returning through pub/sub) is written at once:
 * a client then reads a PUBLISH before its CONNACK. mqtt.js holds the PUBACK it owes until it is
 * connected and reads nothing more meanwhile, so it never sees the CONNACK and gives up (connack
 * timeout). Whatever Aedes writes before the CONNACK is held here and follows it.
 */

/** MQTT 5 reason codes the broker sends (MQTT 5.0 §2.4). */
export const ReasonCode = {
  UNSPECIFIED_ERROR: 0x80,
  CLIENT_IDENTIFIER_NOT_VALID: 0x85,
  BAD_USER_NAME_OR_PASSWORD: 0x86,
  NOT_AUTHORIZED: 0x87,
  SERVER_UNAVAILABLE: 0x88,
  TOPIC_FILTER_INVALID: 0x8f,
  TOPIC_NAME_INVALID: 0x90,
  PACKET_TOO_LARGE: 0x95,
  QUOTA_EXCEEDED: 0x97,
  ADMINISTRATIVE_ACTION: 0x98,
  SHARED_SUBSCRIPTIONS_NOT_SUPPORTED: 0x9e,
  CONNECTION_RATE_EXCEEDED: 0x9f,
} as const;

const CONNACK = 2;
const PUBACK = 4;
const PUBREC = 5;
const SUBACK = 9;

type Phase = { kind: "type" } | { kind: "length"; value: number; multiplier: number } | { kind: "body"; left: number };

export class AckRewriter {
  /** PUBACK / PUBREC code by packet identifier. */
  private readonly publish = new Map<number, number>();
  /** SUBACK codes by packet identifier, then position in the SUBSCRIBE. */
  private readonly subscribe = new Map<number, Map<number, number>>();
  private phase: Phase = { kind: "type" };
  private type = 0;
  /** The packet being held (its bytes so far), or null when bytes pass through. */
  private held: Buffer[] | null = null;
  /** The packet being held was written before the CONNACK: it goes once the CONNACK has. */
  private heldEarly = false;
  /** Whole packets written before the CONNACK, in order. */
  private readonly early: Buffer[] = [];
  /** A CONNACK went out on this connection (the server may send DISCONNECT from then on). */
  connackWritten = false;

  /** The PUBACK or PUBREC of this PUBLISH carries `code`. */
  setPublish(messageId: number, code: number) {
    this.publish.set(messageId, code);
  }

  /** The SUBACK of this SUBSCRIBE carries `code` for its `index`th filter. */
  setSubscribe(messageId: number, index: number, code: number) {
    let codes = this.subscribe.get(messageId);
    if (!codes) this.subscribe.set(messageId, (codes = new Map()));
    codes.set(index, code);
  }

  /** Outgoing bytes in, the bytes to send out (the same ones, with the codes set, the CONNACK first). */
  rewrite(chunk: Buffer): Buffer[] {
    const out: Buffer[] = [];
    // Where the bytes not yet passed on start in this chunk.
    let from = 0;
    let i = 0;
    const endPacket = () => {
      this.phase = { kind: "type" };
      if (this.type === CONNACK && this.early.length > 0) {
        // The CONNACK passed through (it is never held): what was written before it follows it.
        out.push(chunk.subarray(from, i), ...this.early.splice(0));
        from = i;
        return;
      }
      if (!this.held) return;
      this.held.push(chunk.subarray(from, i));
      const packet = this.patched(Buffer.concat(this.held));
      if (this.heldEarly) this.early.push(packet);
      else out.push(packet);
      this.held = null;
      from = i;
    };
    while (i < chunk.length) {
      const p = this.phase;
      if (p.kind === "type") {
        this.type = chunk[i]! >> 4;
        this.heldEarly = !this.connackWritten && this.type !== CONNACK;
        if (this.type === CONNACK) this.connackWritten = true;
        const hold = this.heldEarly || ((this.type === PUBACK || this.type === PUBREC) && this.publish.size > 0) || (this.type === SUBACK && this.subscribe.size > 0);
        if (hold) {
          if (i > from) out.push(chunk.subarray(from, i));
          this.held = [];
          from = i;
        }
        i++;
        this.phase = { kind: "length", value: 0, multiplier: 1 };
      } else if (p.kind === "length") {
        const byte = chunk[i++]!;
        p.value += (byte & 0x7f) * p.multiplier;
        p.multiplier *= 128;
        if ((byte & 0x80) === 0) {
          if (p.value === 0) endPacket();
          else this.phase = { kind: "body", left: p.value };
        }
      } else {
        const take = Math.min(p.left, chunk.length - i);
        i += take;
        p.left -= take;
        if (p.left === 0) endPacket();
      }
    }
    if (this.held) this.held.push(chunk.subarray(from));
    else if (from < chunk.length) out.push(from === 0 ? chunk : chunk.subarray(from));
    return out;
  }

  /** A whole PUBACK / PUBREC / SUBACK (a copy: the caller's buffers are never changed). */
  private patched(packet: Buffer): Buffer {
    if (this.type !== PUBACK && this.type !== PUBREC && this.type !== SUBACK) return packet;
    let at = 1;
    while (packet[at]! & 0x80) at++;
    const body = packet.subarray(at + 1);
    if (body.length < 2) return packet;
    const messageId = body.readUInt16BE(0);
    if (this.type === SUBACK) {
      const codes = this.subscribe.get(messageId);
      if (!codes) return packet;
      this.subscribe.delete(messageId);
      // Packet identifier, properties (a variable byte integer length, then them), one code per filter.
      let p = 2;
      let length = 0;
      let multiplier = 1;
      while (p < body.length) {
        const byte = body[p++]!;
        length += (byte & 0x7f) * multiplier;
        multiplier *= 128;
        if ((byte & 0x80) === 0) break;
      }
      const granted = body.subarray(p + length);
      for (const [index, code] of codes) if (index < granted.length) granted[index] = code;
      return packet;
    }
    const code = this.publish.get(messageId);
    if (code === undefined) return packet;
    this.publish.delete(messageId);
    // An MQTT 5 PUBACK / PUBREC: packet identifier, then the reason code (absent means success).
    if (body.length >= 3) body[2] = code;
    return packet;
  }
}
