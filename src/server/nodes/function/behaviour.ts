import type { Message, NodeContext, NodeFactory, SendValue } from "../../runtime/types";
import { SandboxError, type SandboxResult } from "../../runtime/sandbox/function-sandbox";
import type { z } from "zod";
import type { functionConfig } from "./definition";

function emit(ctx: NodeContext, result: SandboxResult, send: (v: SendValue) => void) {
  for (const sent of result.sent) send(sent);
  if (result.outputs.some((port) => port.length > 0)) send(result.outputs);
  if (result.status !== undefined) ctx.status(result.status);
  for (const log of result.logs) if (log.level !== "log") ctx.log.warn(`${log.level}: ${log.message}`);
}

/** User JavaScript in a QuickJS sandbox: a time limit per call, a memory limit, no host access. */
export const functionBehaviour: NodeFactory = async (ctx) => {
  const c = ctx.node.config as z.infer<typeof functionConfig>;
  const sandboxes = ctx.services.sandboxes;
  if (!sandboxes) throw new Error("function nodes are not available here (no sandbox pool)");
  const sandbox = await sandboxes.create({
    code: c.code,
    outputs: c.outputs,
    timeoutMs: c.timeout_ms,
    initialize: c.initialize,
    finalize: c.finalize,
    flowContext: ctx.flowContext,
    nodeInfo: { id: ctx.node.id, name: ctx.node.name, flowId: ctx.flowId },
  });
  emit(ctx, sandbox.initResult, ctx.send);
  return {
    async input(msg: Message, send, done) {
      try {
        emit(ctx, await sandbox.run(msg), send);
        done();
      } catch (err) {
        if (err instanceof SandboxError && err.result) emit(ctx, err.result, send);
        done(err instanceof SandboxError ? new Error(`function ${err.kind === "runtime" ? "error" : err.kind}: ${err.message}`) : err);
      }
    },
    close() {
      const result = sandbox.close();
      if (result) emit(ctx, result, () => undefined);
    },
  };
};
