import { createRequire } from "node:module";

// Through a variable: a bundler that sees `createRequire(import.meta.url)` takes the calls of its
// result for requires to bundle (Next's does, for the route files that reach src/server); these
// packages stay where Node finds them, in node_modules.
const here = import.meta.url;
const load = createRequire(here);

/**
 * A CommonJS package loaded at its first use instead of at start-up: what only some organizations
 * or configurations use (the MQTT client, SMTP, MFA's QR codes, the password dictionary, xml,
 * iconv) stays out of an idle server's memory (issue 39, docs/BENCHMARKS.md "Idle memory").
 */
export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load(id) as T);
}
