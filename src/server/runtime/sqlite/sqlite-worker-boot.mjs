// The SQLite worker from source: see ../../worker-boot.mjs.
import { bootTypeScriptEntry } from "../../worker-boot.mjs";

bootTypeScriptEntry("./sqlite-worker.ts", import.meta.url);
