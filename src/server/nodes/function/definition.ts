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

export const functionHelp = `A JavaScript function to run against the messages received by the node, in a sandbox with time and memory limits.

The message is passed in as an object called \`msg\`; by convention \`msg.payload\` holds its body. The function returns the message (or several) to send on, or nothing to halt the flow. **On Start** code runs when the node starts, **On Stop** code when it stops.

### Inputs

- **msg** (object): the message, as JSON.

### Outputs

- One port per output: return a message for the first output, an array (one entry per output) for several, an array inside that array for several messages on one output, or \`null\` for none. \`node.send(...)\` sends the same shapes at any time.

### Details

#### Logging and errors

\`node.log()\`, \`node.warn()\` and \`node.error()\` report; an error thrown by the code is the node's error and goes to Catch nodes with the message.

#### Context

- \`context\`: this node's own store, in memory (lost when the flow is redeployed or the node's sandbox restarts).
- \`flow\`: the flow's store, shared by its nodes. \`global\` (also \`context.global\`): the organization's store, shared by all its flows.
- Each has \`get(key)\`, \`set(key, value)\` (\`undefined\` deletes) and \`keys()\`, synchronous as with Node-RED's default store (the callback forms work too); \`flow.increment(key, by = 1)\` and \`global.increment(key, by = 1)\` add to a number (anything else counts as 0) in one atomic step and return the new value, exact even when several instances add at once.
- Flow and global context are **durable**: a value written while a message is handled is stored before any message this handling sends is delivered, so the count survives a redeploy, a restart and a failover to another instance. The editor's Context tab and the REST API (\`/flows/{id}/context\`, \`/context/global\`) show and change them.
- An organization's context holds at most CONTEXT_MAX_BYTES (10 MiB by default); past it \`set\` throws \`context is full\`.

#### Timers

\`setTimeout\` and \`setInterval\` work as in Node-RED (up to 1,000 at once; a callback sends with \`node.send()\`).

#### Node information and variables

\`node.id\`, \`node.name\`, \`node.outputCount\`; \`env.get("NAME")\`.

### Differences from Node-RED

- The code runs in QuickJS, isolated from the server: no \`require\`, files, network or host process; messages and context values cross as JSON (functions, Buffers and cycles do not).
- Context values are copies (as with Node-RED's persistent stores), keys are whole names (\`flow.get("a.b")\` reads the key \`a.b\`, not a nested property), there is one store (a store name is ignored), and \`global\` is the organization's, never the server's \`functionGlobalContext\`.
- Flow and global context are durable by default, where Node-RED's default store is in memory and its file store flushes every 30 s.
- A due timer callback waits while the flow is busy, so code that sends in batches and yields with \`setTimeout\` is paced by the flow.
`;

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
  help: functionHelp,
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
