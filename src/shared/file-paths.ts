/**
 * The path rules of an organization's files (SPEC §23), in one place for the REST API, the tRPC
 * router, the `file` / `file in` nodes and the import: every path is taken relative to the
 * organization's storage and normalized to "dir/name.txt" ("/"-separated, no "." or ".."
 * segments, no leading or trailing "/"). The storage is rows in the database (src/server/services/files/
 * README.md): there are no links, so no link can lead out of it, and the only way out would be "..",
 * which is refused when it would climb above the storage's root.
 */

/**
 * Bounds in UTF-8 bytes (an ASCII character is one), as a file system's: a name at most 255, a path
 * at most 1024. Counted in characters, four names of 255 Chinese characters were ~3 KB, over
 * PostgreSQL's index row limit: a database error instead of a 400.
 */
export const FILE_PATH_MAX_BYTES = 1024;
export const FILE_SEGMENT_MAX_BYTES = 255;
/**
 * The bounds before 2026-12-06, in characters: a file named then may be longer in bytes, and is
 * still read, listed past and deleted by its name (`{ existing: true }`); a write needs the bytes.
 */
const FILE_PATH_MAX_CHARS = 1024;
const FILE_SEGMENT_MAX_CHARS = 255;

const utf8 = new TextEncoder();
const NOT_ASCII = /[^\u0000-\u007f]/; // eslint-disable-line no-control-regex
const bytesOf = (text: string) => (NOT_ASCII.test(text) ? utf8.encode(text).length : text.length);

export type FilePathResult = { ok: true; path: string; absolute: boolean } | { ok: false; problem: string };

// C0 controls, DEL and C1 controls; NUL is one of them but gets its own message.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0001-\u001f\u007f-\u009f]/;

/**
 * Normalizes `input` as a path inside the organization's storage, or says why it cannot be one.
 * An absolute path (`/home/pi/x.txt`, `C:\data\x.txt`) is taken relative to the storage
 * (`home/pi/x.txt`, `data/x.txt`): Node-RED flows written for a device use them. "\" separates as
 * "/" does. "." segments are dropped, ".." climbs one level and is refused past the root.
 */
export function normalizeFilePath(input: string, options: { existing?: boolean } = {}): FilePathResult {
  const bound = options.existing
    ? { segment: FILE_SEGMENT_MAX_CHARS, path: FILE_PATH_MAX_CHARS, sizeOf: (text: string) => text.length, unit: "characters" }
    : { segment: FILE_SEGMENT_MAX_BYTES, path: FILE_PATH_MAX_BYTES, sizeOf: bytesOf, unit: "bytes (UTF-8: an ASCII character is one byte)" };
  if (typeof input !== "string") return { ok: false, problem: "must be a text" };
  if (input.includes("\u0000")) return { ok: false, problem: "must not contain NUL characters" };
  if (CONTROL.test(input)) return { ok: false, problem: "must not contain control characters (such as a tab or a line break)" };
  let rest = input.replace(/\\/g, "/");
  let absolute = false;
  const drive = /^[A-Za-z]:(?=\/|$)/.exec(rest);
  if (drive) {
    rest = rest.slice(drive[0].length);
    absolute = true;
  }
  if (rest.startsWith("/")) {
    absolute = true;
    rest = rest.replace(/^\/+/, "");
  }
  if (rest === "") return { ok: false, problem: absolute ? "must name a file, not the storage's root" : "must not be empty" };
  const raw = rest.split("/");
  const out: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    const segment = raw[i]!;
    if (segment === "") {
      // "a/" names a directory, "a//b" an empty segment: neither names a file.
      return { ok: false, problem: i === raw.length - 1 ? "must name a file, not end with /" : "must not contain empty segments (//)" };
    }
    if (segment === ".") continue;
    if (segment === "..") {
      if (out.length === 0) return { ok: false, problem: "must stay inside the organization's files (.. would leave them)" };
      out.pop();
      continue;
    }
    if (bound.sizeOf(segment) > bound.segment) return { ok: false, problem: `each name between / must be at most ${bound.segment} ${bound.unit}` };
    out.push(segment);
  }
  if (out.length === 0) return { ok: false, problem: "must name a file, not the storage's root" };
  const path = out.join("/");
  if (bound.sizeOf(path) > bound.path) return { ok: false, problem: `must be at most ${bound.path} ${bound.unit}` };
  return { ok: true, path, absolute };
}

/** Bytes shown as a person reads them (the Files page, error messages). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 10 ? Math.round(value) : Math.round(value * 10) / 10} ${units[unit]}`;
}
