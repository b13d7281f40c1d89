// A function sandbox's worker from source: see ../../worker-boot.mjs.
import { bootTypeScriptEntry } from "../../worker-boot.mjs";

bootTypeScriptEntry("./sandbox-worker.ts", import.meta.url);
