import { AppError } from "../errors";

/** Dates PostgreSQL and JavaScript both hold (±8.64e15 ms is JavaScript's own Date range). */
const MAX_MS = 8.64e15;

function invalidCursor(): AppError {
  return new AppError("VALIDATION_FAILED", "cursor: is not a cursor from a previous page", { details: [{ path: "cursor", message: "is not a cursor from a previous page" }] });
}

/** A keyset cursor: base64url of `[epochMs, id]`, as the list endpoints hand out. */
export function encodeKeysetCursor(at: Date, id: string): string {
  return Buffer.from(JSON.stringify([at.getTime(), id])).toString("base64url");
}

/**
 * Decodes a keyset cursor, or throws 400 VALIDATION_FAILED: garbage base64, wrong shapes
 * (`["x",1]`), out-of-range times (`[1e20,"a"]`) and odd ids never reach the database.
 */
export function decodeKeysetCursor(cursor: string): { at: Date; id: string } {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw invalidCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw invalidCursor();
  const [ms, id] = parsed as [unknown, unknown];
  if (typeof ms !== "number" || !Number.isInteger(ms) || Math.abs(ms) > MAX_MS) throw invalidCursor();
  if (typeof id !== "string" || !/^[\w-]{1,100}$/.test(id)) throw invalidCursor();
  const at = new Date(ms);
  if (Number.isNaN(at.getTime())) throw invalidCursor();
  return { at, id };
}
