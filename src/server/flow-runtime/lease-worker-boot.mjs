// Entry of the lease keeper's worker when the sources run as TypeScript (tsx in development,
// vitest in tests): on Node 20, `--import tsx` in a worker's execArgv does not reach the worker's
// module loading, so this plain module loads the TypeScript entry through tsx's API.
import { tsImport } from "tsx/esm/api";

// Not a top-level await: V8 ends the whole process when a worker is terminated while it evaluates a
// module with one ("Check failed: (location_) != nullptr"), and a worker can be stopped while it
// still boots (its application closing, a start that hangs). A failed load is the worker's uncaught
// error, as it was.
tsImport("./lease-worker.ts", import.meta.url).catch((err) => {
  process.nextTick(() => {
    throw err;
  });
});
