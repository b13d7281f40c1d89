// Entry of the lease keeper's worker when the sources run as TypeScript (tsx in development,
// vitest in tests): on Node 20, `--import tsx` in a worker's execArgv does not reach the worker's
// module loading, so this plain module loads the TypeScript entry through tsx's API.
import { tsImport } from "tsx/esm/api";

await tsImport("./lease-worker.ts", import.meta.url);
