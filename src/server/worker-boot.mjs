// The worker threads' entries when the sources run as TypeScript (tsx in development, vitest in
// tests; the built server starts its bundled `*-worker.js` instead). On Node 20, `--import tsx` in
// a worker's execArgv does not reach the worker's module loading, so each `*-worker-boot.mjs` is a
// plain module that loads its TypeScript entry (and what it imports) through tsx's API, here.
import { tsImport } from "tsx/esm/api";

/**
 * Loads a worker's TypeScript entry. Not awaited at top level: V8 ends the whole process when a
 * worker is terminated while it evaluates a module with a top-level await ("Check failed:
 * (location_) != nullptr"), and a worker can be stopped while it still boots (its application
 * closing, a start that hangs; src/server/worker-entries.test.ts). A failed load is the worker's
 * uncaught error, as a failed entry module's is.
 */
export function bootTypeScriptEntry(specifier, parentURL) {
  tsImport(specifier, parentURL).catch((err) => {
    process.nextTick(() => {
      throw err;
    });
  });
}
