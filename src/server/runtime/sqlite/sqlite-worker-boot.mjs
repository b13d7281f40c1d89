// Entry of the SQLite worker when the sources run as TypeScript (tsx, vitest): as the sandbox's
// boot file, it loads the TypeScript entry through tsx's API (Node 20 workers ignore --import).
import { tsImport } from "tsx/esm/api";

// Not a top-level await: V8 ends the whole process when a worker is terminated while it evaluates a
// module with one ("Check failed: (location_) != nullptr"), and a worker can be stopped while it
// still boots (its application closing, a start that hangs). A failed load is the worker's uncaught
// error, as it was.
tsImport("./sqlite-worker.ts", import.meta.url).catch((err) => {
  process.nextTick(() => {
    throw err;
  });
});
