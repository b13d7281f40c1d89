// Entry of the SQLite worker when the sources run as TypeScript (tsx, vitest): as the sandbox's
// boot file, it loads the TypeScript entry through tsx's API (Node 20 workers ignore --import).
import { tsImport } from "tsx/esm/api";

await tsImport("./sqlite-worker.ts", import.meta.url);
