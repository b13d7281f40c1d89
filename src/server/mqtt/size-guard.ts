/**
 * A bound on MQTT packets before they are parsed: Aedes' parser (mqtt-packet) buffers a whole
 * packet, however large its header says it is, before any hook sees it, so a client (even one that
 * has not authenticated: CONNECT is a packet too) could make the process hold hundreds of MB. This
 * wraps a connection and reads only the fixed headers going by (type byte, then the "remaining
 * length" varint of at most 4 bytes); a packet announced larger than `maxBytes`, or a malformed
 * length, ends the connection (an MQTT 5 client is told so first: `GuardHooks.onTooLarge`). The
 * payload itself is never copied or looked at.
 */
import { Socket } from "node:net";
import { Duplex } from "node:stream";
import type { AckRewriter } from "./reason-codes";

type Phase = { kind: "type" } | { kind: "length"; value: number; multiplier: number; bytes: number } | { kind: "body"; left: number };

export class PacketSizeGuard {
  private phase: Phase = { kind: "type" };

  constructor(private readonly maxBytes: number) {}

  /** Feeds bytes as they arrive; false once a packet is too large or malformed (then stays false). */
  feed(chunk: Buffer): boolean {
    let i = 0;
    while (i < chunk.length) {
      const p = this.phase;
      if (p.kind === "type") {
        i++;
        this.phase = { kind: "length", value: 0, multiplier: 1, bytes: 0 };
      } else if (p.kind === "length") {
        const byte = chunk[i++]!;
        p.value += (byte & 0x7f) * p.multiplier;
        p.multiplier *= 128;
        p.bytes++;
        if (p.value > this.maxBytes) return this.fail();
        if ((byte & 0x80) === 0) this.phase = p.value === 0 ? { kind: "type" } : { kind: "body", left: p.value };
        else if (p.bytes >= 4) return this.fail();
      } else {
        const take = Math.min(p.left, chunk.length - i);
        i += take;
        p.left -= take;
        if (p.left === 0) this.phase = { kind: "type" };
      }
    }
    return true;
  }

  private fail(): false {
    this.feed = () => false;
    return false;
  }
}

export interface GuardHooks {
  /**
   * A packet announced too large: true when the caller ends the connection itself (an MQTT 5
   * client is told why, DISCONNECT 0x95, before it closes); nothing more is read either way.
   */
  onTooLarge?: () => boolean;
  /** Outgoing bytes pass through it (reason codes Aedes cannot be told, reason-codes.ts). */
  acks?: AckRewriter;
}

/**
 * The connection as Aedes reads it: the same bytes, checked by a PacketSizeGuard on the way in;
 * writes go to the connection (through `hooks.acks` when given).
 */
export function guardPacketSize(conn: Duplex, maxBytes: number, hooks: GuardHooks = {}): Duplex {
  const guard = new PacketSizeGuard(maxBytes);
  /** Nothing more goes to Aedes: a packet was too large, or the connection is ending. */
  let refused = false;
  const guarded = new Duplex({
    read() {
      if (!refused) conn.resume();
    },
    write(chunk: Buffer, _encoding, callback) {
      writeOut([chunk], callback);
    },
    // What was written together goes out together: a packet comes as several writes (mqtt-packet
    // writes header, topic and payload apart, corked), and over WebSocket each write to the
    // connection is a frame of its own.
    writev(chunks, callback) {
      writeOut(
        chunks.map((c) => c.chunk as Buffer),
        callback,
      );
    },
    final(callback) {
      conn.end();
      callback();
    },
    destroy(err, callback) {
      if (err) conn.destroy(err);
      else endGracefully();
      callback(err);
    },
  });
  /**
   * One write to the connection: one WebSocket frame (the packet arrives whole, and cannot be cut
   * by a close between its parts), one system call on TCP (a socket writes its corked chunks with
   * writev, without copying them).
   */
  function writeOut(chunks: Buffer[], callback: (err?: Error | null) => void) {
    const out = hooks.acks ? chunks.flatMap((chunk) => hooks.acks!.rewrite(chunk)) : chunks;
    if (out.length === 0) return callback();
    if (out.length === 1) {
      conn.write(out[0], callback);
      return;
    }
    if (conn instanceof Socket) {
      conn.cork();
      for (let i = 0; i < out.length - 1; i++) conn.write(out[i]!);
      conn.write(out[out.length - 1]!, callback);
      conn.uncork();
      return;
    }
    conn.write(Buffer.concat(out), callback);
  }
  /**
   * Aedes ends a connection by destroying it, often right after writing the reason (DISCONNECT
   * 0x95, 0x8E, 0x8B). Closing a socket with unread bytes from the peer resets it (RST), and a
   * reset peer discards what it has received and not yet read: the DISCONNECT would be lost. So the
   * connection is ended after what was written (FIN), bytes still arriving are read and dropped,
   * and it is destroyed once the peer closes too, or after 2 s.
   */
  function endGracefully() {
    refused = true;
    if (conn.destroyed) return;
    conn.end();
    conn.resume();
    const timer = setTimeout(() => conn.destroy(), 2_000).unref();
    conn.once("close", () => clearTimeout(timer));
  }
  conn.on("data", (chunk: Buffer) => {
    if (refused) return;
    if (!guard.feed(chunk)) {
      refused = true;
      // The caller says why and ends the connection (gracefully, above); should it not manage to,
      // the connection ends anyway.
      if (hooks.onTooLarge?.()) {
        setTimeout(() => conn.destroy(), 2_000).unref();
        return;
      }
      conn.destroy();
      guarded.destroy();
      return;
    }
    if (!guarded.push(chunk)) conn.pause();
  });
  conn.on("end", () => guarded.push(null));
  conn.on("close", () => guarded.destroy());
  conn.on("error", (err) => guarded.destroy(err));
  return guarded;
}
