// Entry of a sandbox worker when the sources run as TypeScript (tsx in production, vitest in tests).
// On Node 20, `--import tsx` in a worker's execArgv does not reach the worker's module loading, so
// this plain module loads the TypeScript entry (and what it imports) through tsx's API.
import { tsImport } from "tsx/esm/api";

await tsImport("./sandbox-worker.ts", import.meta.url);
