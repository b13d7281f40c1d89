import { z } from "zod";
import { defineNode } from "../types";

export const functionConfig = z.object({
  code: z.string().max(100_000, "must be at most 100,000 characters").default("return msg;"),
  outputs: z.number().int().min(0).max(10).default(1),
  /** Per-call time limit. */
  timeout_ms: z.number().int().min(1).max(10_000).default(1000),
  initialize: z.string().max(100_000).default(""),
  finalize: z.string().max(100_000).default(""),
});

export const functionNode = defineNode({
  type: "function",
  version: 1,
  category: "function",
  name: "Function",
  description:
    "Runs JavaScript on each message in a sandbox with time and memory limits: return msg, an array for several outputs, or node.send(). " +
    "setTimeout and setInterval work as in Node-RED (up to 1,000 at once; a callback sends with node.send()), with one difference: " +
    "a due callback waits while the flow is busy, so code that sends in batches and yields with setTimeout is paced by the flow. " +
    "Timers are cleared when the flow is redeployed or stopped, and lost, like the node's context, if its sandbox restarts after a timeout or memory error.",
  inputs: 1,
  outputs: { value_of: "outputs" },
  configSchema: functionConfig,
  nodeRed: {
    type: "function",
    toNodeRed: (c) => ({ func: c.code, outputs: c.outputs, timeout: c.timeout_ms / 1000, noerr: 0, initialize: c.initialize, finalize: c.finalize, libs: [] }),
    fromNodeRed: (p) => {
      const timeout = Number(p.timeout);
      return {
        code: String(p.func ?? "return msg;"),
        outputs: Number(p.outputs ?? 1),
        timeout_ms: Number.isFinite(timeout) && timeout > 0 ? Math.min(10_000, Math.round(timeout * 1000)) : 1000,
        initialize: String(p.initialize ?? ""),
        finalize: String(p.finalize ?? ""),
      };
    },
  },
});
