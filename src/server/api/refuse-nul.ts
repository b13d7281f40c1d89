/**
 * Text PostgreSQL cannot store, found in a raw input before anything parses or stores it: U+0000
 * (text and jsonb have no NUL) and a lone UTF-16 surrogate (`"\ud800"` in JSON parses into one; it
 * has no UTF-8 form, so jsonb refuses it and the write used to answer 500). No field of ours means
 * either.
 */
// eslint-disable-next-line no-control-regex -- finding NUL is the point
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export interface Unstorable {
  /** Where, as a details path ("name", "nodes.0.config.code"). */
  path: string;
  message: string;
}

function problem(text: string): string | null {
  const found = UNSTORABLE.exec(text);
  if (!found) return null;
  return found[0] === "\u0000" ? "must not contain the NUL character (U+0000)" : "must not contain a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff)";
}

/** Printable in a path: what cannot be stored cannot be echoed either. */
function printable(key: string): string {
  return key.replace(new RegExp(UNSTORABLE.source, "g"), (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export function findUnstorable(value: unknown, path: string[] = [], depth = 0): Unstorable | null {
  if (typeof value === "string") {
    const message = problem(value);
    return message === null ? null : { path: path.join(".") || "(input)", message };
  }
  if (value === null || typeof value !== "object" || depth > 64) return null;
  // Bytes (a file's content, SPEC §23) are not text: stored as bytea, NUL included.
  if (ArrayBuffer.isView(value)) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorable(value[i], [...path, String(i)], depth + 1);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, child] of Object.entries(value)) {
    const message = problem(key);
    if (message !== null) return { path: [...path, printable(key)].join("."), message };
    const found = findUnstorable(child, [...path, key], depth + 1);
    if (found !== null) return found;
  }
  return null;
}
