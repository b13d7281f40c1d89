import { splitNode } from "./definition";
import { defineBehaviour } from "../types";
import type { Message, Send } from "../../runtime/types";
import { getProperty, setProperty } from "../../runtime/properties";
import { cloneMessage, own, parseByteArray, unescapeSeparator, type Parts } from "../sequence-support";

const toBuffer = (value: Uint8Array): Buffer => (Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength));

/**
 * Node-RED 4.1's split (17-split.js), step for step: strings and buffers at a separator or into
 * fixed lengths (with streaming), arrays into elements or chunks, objects into key/value messages.
 */
export const splitBehaviour = defineBehaviour(splitNode, (ctx, c) => {
  const property = c.property;
  const stream = c.stream;
  const arraySplit = c.array_split;
  // As Node-RED, an empty string separator means "\n"; a separator naming a variable (${NAME}) is
  // read each time it is used, so a changed variable reaches the running flow.
  const stringSeparator = () => unescapeSeparator(ctx.env.substitute(c.split) || "\\n");
  const variableSeparator = c.split_type === "str" && c.split.includes("${");
  let separator: string | Buffer | number =
    c.split_type === "len" ? Number.parseInt(c.split, 10) : c.split_type === "bin" ? Buffer.from(parseByteArray(c.split)) : stringSeparator();
  const separatorBytes = c.split_type === "bin" ? parseByteArray(c.split) : undefined;
  /** Index of the next message of a stream. */
  let next = 0;
  let remainder = "";
  let heldBuffer = Buffer.alloc(0);
  let pendingDones: Array<() => void> = [];
  const settlePending = () => {
    const dones = pendingDones;
    pendingDones = [];
    dones.forEach((d) => d());
  };

  const emit = (msg: Message, parts: Parts, value: unknown, send: Send) => {
    setProperty(msg, property, value);
    msg.parts = parts;
    send(cloneMessage(msg));
  };

  const sendArray = (msg: Message, parts: Parts, pieces: string[], send: Send) => {
    let i = 0;
    for (; i < pieces.length - 1; i++) {
      parts.index = next++;
      if (!stream) parts.count = pieces.length;
      emit(msg, parts, pieces[i], send);
    }
    if (!stream) {
      parts.index = next++;
      parts.count = pieces.length;
      emit(msg, parts, pieces[i], send);
      next = 0;
    } else remainder = pieces[i]!;
  };

  /**
   * What is still to be sent, in order: a large split goes out as fast as the flow takes it, pausing
   * while the flow is busy (backpressure) instead of queueing more than the flow may hold; an array
   * is split lazily, one message at a time. Later inputs queue behind, so the order stays Node-RED's.
   */
  const outbox: Array<{ items: Iterator<Message>; send: Send }> = [];
  let cancelWait: (() => void) | undefined;
  const pump = () => {
    cancelWait = undefined;
    while (outbox.length > 0) {
      const head = outbox[0]!;
      for (;;) {
        if (ctx.busy()) {
          cancelWait = ctx.whenReady(pump);
          return;
        }
        const next = head.items.next();
        if (next.done) break;
        head.send(next.value);
      }
      outbox.shift();
    }
  };

  return {
    input(msg, realSend, done) {
      const collected: Message[] = [];
      let lazy: Iterator<Message> | undefined;
      const send: Send = (m) => {
        collected.push(m as Message);
      };
      if (variableSeparator) separator = stringSeparator();
      const run = () => {
        let value = getProperty(msg, property);
        if (value === undefined) return done();
        const parts: Parts = (own(msg, "parts") ? { parts: msg.parts } : {}) as Parts;
        parts.id = ctx.newMessageId();
        if (property !== "payload") parts.property = property;
        delete (msg as Partial<Message>)._msgid;
        msg.parts = parts;

        if (typeof value === "string") {
          value = remainder + value;
          const text = value as string;
          parts.type = "string";
          if (typeof separator === "number") {
            parts.ch = "";
            parts.len = separator;
            const count = Math.ceil(text.length / separator);
            if (!stream) {
              parts.count = count;
              next = 0;
            }
            let pos = 0;
            for (let i = 0; i < count - 1; i++) {
              parts.index = next++;
              emit(msg, parts, text.substring(pos, pos + separator), send);
              pos += separator;
            }
            if (count > 1) settlePending();
            remainder = text.substring(pos);
            if (!stream || remainder.length === separator) {
              parts.index = next++;
              emit(msg, parts, remainder, send);
              settlePending();
              done();
              remainder = "";
            } else pendingDones.push(() => done());
            return;
          }
          const at = typeof separator === "string" ? separator : separator.toString();
          parts.ch = separatorBytes ?? (separator as string);
          sendArray(msg, parts, text.split(at), send);
          return done();
        }

        if (Array.isArray(value)) {
          parts.type = "array";
          const count = Math.ceil(value.length / arraySplit);
          parts.count = count;
          parts.len = arraySplit;
          // The array leaves the base message, so each copy carries only its own element(s).
          setProperty(msg, property, null);
          const array = value;
          lazy = (function* () {
            for (let i = 0, pos = 0; i < count; i++, pos += arraySplit) {
              const out = cloneMessage(msg);
              setProperty(out, property, arraySplit === 1 ? array[pos] : array.slice(pos, pos + arraySplit));
              (out.parts as Parts).index = i;
              yield out;
            }
          })();
          return done();
        }

        if (value !== null && typeof value === "object" && !(value instanceof Uint8Array)) {
          const record = value as Record<string, unknown>;
          const count = Object.keys(record).length;
          parts.type = "object";
          let index = 0;
          for (const key of Object.keys(record)) {
            setProperty(msg, property, record[key]);
            if (c.add_name !== "") setProperty(msg, c.add_name, key);
            parts.key = key;
            parts.index = index++;
            parts.count = count;
            send(cloneMessage(msg));
          }
          return done();
        }

        if (value instanceof Uint8Array) {
          const incoming = toBuffer(value);
          const buff = Buffer.concat([heldBuffer, incoming], heldBuffer.length + incoming.length);
          parts.type = "buffer";
          if (typeof separator === "number") {
            const count = Math.ceil(buff.length / separator);
            if (!stream) {
              parts.count = count;
              next = 0;
            }
            parts.len = separator;
            let pos = 0;
            for (let i = 0; i < count - 1; i++) {
              parts.index = next++;
              emit(msg, parts, Buffer.from(buff.subarray(pos, pos + separator)), send);
              pos += separator;
            }
            if (count > 1) settlePending();
            heldBuffer = Buffer.from(buff.subarray(pos));
            if (!stream || heldBuffer.length === separator) {
              parts.index = next++;
              emit(msg, parts, heldBuffer, send);
              settlePending();
              done();
              heldBuffer = Buffer.alloc(0);
            } else pendingDones.push(() => done());
            return;
          }
          parts.ch = separatorBytes ?? (separator as string);
          let count = 0;
          for (let pos = buff.indexOf(separator); pos > -1; pos = buff.indexOf(separator, pos + separator.length)) count++;
          count++;
          if (!stream) {
            parts.count = count;
            next = 0;
          }
          let start = 0;
          for (let pos = buff.indexOf(separator); pos > -1; pos = buff.indexOf(separator, start)) {
            parts.index = next++;
            emit(msg, parts, Buffer.from(buff.subarray(start, pos)), send);
            start = pos + separator.length;
          }
          if (count > 1) settlePending();
          if (!stream && start < buff.length) {
            parts.index = next++;
            // Node-RED counts the last piece twice here (msg.parts.count = node.c++): count ends as index + 1.
            parts.count = next++;
            emit(msg, parts, Buffer.from(buff.subarray(start)), send);
            settlePending();
          } else {
            heldBuffer = Buffer.from(buff.subarray(start));
            if (heldBuffer.length > 0) pendingDones.push(() => done());
          }
          if (heldBuffer.length === 0) done();
          return;
        }
        done();
      };
      run();
      if (collected.length > 0) outbox.push({ items: collected[Symbol.iterator](), send: realSend });
      if (lazy) outbox.push({ items: lazy, send: realSend });
      if (!cancelWait && outbox.length > 0) pump();
    },
    close() {
      cancelWait?.();
      cancelWait = undefined;
      outbox.length = 0;
      settlePending();
      remainder = "";
      heldBuffer = Buffer.alloc(0);
    },
  };
});
