/**
 * What a context key may be, at every door that writes one (function code's flow/global `set` and
 * `increment` in the worker and on the host, change nodes, REST): PostgreSQL's unique index on
 * (organization, scope, key) refuses an entry over about 2.7 kB, and text holds neither NUL nor a
 * lone surrogate. One key of 3 kB in one tenant's flow once failed the shared batch of every
 * tenant's writes; now it is refused where it is written, with an error the flow's catch sees.
 */
export const MAX_CONTEXT_KEY_LENGTH = 256;

// eslint-disable-next-line no-control-regex -- NUL is what PostgreSQL text cannot hold
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a key cannot be stored, or null when it can. */
export function contextKeyProblem(key: string): string | null {
  if (key.length > MAX_CONTEXT_KEY_LENGTH) return `context key is too long: ${key.length} characters (at most ${MAX_CONTEXT_KEY_LENGTH})`;
  if (UNSTORABLE.test(key)) return "context key must not contain NUL (U+0000) or a lone UTF-16 surrogate";
  return null;
}

/** Throws (a TypeError, as for a value that is not JSON) when the key cannot be stored. */
export function assertContextKey(key: string): void {
  const problem = contextKeyProblem(key);
  if (problem !== null) throw new TypeError(problem);
}
