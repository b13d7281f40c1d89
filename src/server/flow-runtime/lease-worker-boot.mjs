// The lease keeper's worker from source: see ../worker-boot.mjs.
import { bootTypeScriptEntry } from "../worker-boot.mjs";

bootTypeScriptEntry("./lease-worker.ts", import.meta.url);
