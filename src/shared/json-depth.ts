/**
 * How deep a JSON value may nest at our doors (REST, tRPC, webhooks, WebSocket frames). Deeper
 * values are refused with 400 before they are parsed: validation, NUL checks, cloning and
 * serialisation all recurse, and a 100,000-deep array would overflow the stack (a 500). No field of
 * ours, and no Node-RED flow, comes near it.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether the JSON text nests arrays and objects deeper than `max`, by one pass over its characters
 * (strings skipped, escapes honoured). Text shorter than twice `max` cannot, and is not scanned.
 */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  if (text.length <= max * 2) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}

/** The message of the 400 (or INVALID_FRAME) a too-deep value gets. */
export const JSON_TOO_DEEP_MESSAGE = `JSON values may nest at most ${MAX_JSON_DEPTH} levels deep`;
