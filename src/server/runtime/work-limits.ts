/**
 * Bounds on what one flow and one organization may hold in memory or keep busy at once (issue 40):
 * the size of the messages a flow holds waiting (the runaway guard counts bytes, not only
 * messages), the JSONata evaluations that run at once, and the response bytes http-request nodes
 * hold. Nothing here knows the engine: it counts, and makes work wait its turn.
 */

/** Past this many estimated bytes one message is counted as this many: the walk stops there. */
export const MESSAGE_BYTES_CAP = 1024 * 1024;

/**
 * An estimate of the memory a message holds, in bytes: strings at their length plus a header,
 * Buffers at their size, objects and arrays 16 bytes an entry. Walks at most `cap` bytes' worth
 * (counting a shared object each time it is reached, as a clone of the message would copy it), so
 * it costs a small message a few dozen property reads and a huge one no more than the cap.
 */
export function approxMessageBytes(value: unknown, cap = MESSAGE_BYTES_CAP): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    switch (typeof v) {
      case "string":
        total += 16 + v.length;
        break;
      case "object": {
        if (v === null) {
          total += 8;
          break;
        }
        if (ArrayBuffer.isView(v)) {
          total += 64 + v.byteLength;
          break;
        }
        if (Array.isArray(v)) {
          total += 32 + 8 * v.length;
          if (total >= cap) return cap;
          for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
        } else {
          total += 32;
          for (const k in v) {
            if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
            total += 16;
            if (total >= cap) return cap;
            stack.push((v as Record<string, unknown>)[k]);
          }
        }
        break;
      }
      default:
        total += 8;
    }
    if (total >= cap) return cap;
  }
  return total;
}
