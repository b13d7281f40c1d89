import type { Message, NodeContext, NodeFactory, SendValue } from "../../runtime/types";
import { SandboxError, type SandboxResult } from "../../runtime/sandbox/function-sandbox";
import type { z } from "zod";
import type { functionConfig } from "./definition";
import { FunctionTimers } from "./timers";
import { ContextScope, contextJson } from "../../runtime/context/context-scope";
import type { SharedContextStore } from "../../runtime/types";
import type { SandboxFlowContext, SandboxGlobalContext } from "../../runtime/sandbox/sandbox-types";

/**
 * The flow context as the flow's sandboxes share it: a ContextScope as it is; any other store
 * (tests' in-memory stores) adapted once per store, so all function nodes of the flow share one
 * group. The adapter does not tell the sandboxes about writes made on the host after they started.
 */
const flowAdapters = new WeakMap<SharedContextStore, SandboxFlowContext>();
function sandboxFlow(store: SharedContextStore): SandboxFlowContext {
  if (store instanceof ContextScope) return store;
  let adapter = flowAdapters.get(store);
  if (!adapter) {
    adapter = {
      snapshot: () => store.keys().flatMap((key) => {
        const json = contextJson(store.get(key));
        return json === undefined ? [] : [[key, json] as [string, string]];
      }),
      applySandboxWrites: (writes) => {
        for (const [key, json] of writes) store.set(key, json === null ? undefined : JSON.parse(json));
      },
      trackHostWrites: () => undefined,
      takeHostWrites: () => undefined,
      clearHostWrites: () => undefined,
      budget: () => Infinity,
    };
    flowAdapters.set(store, adapter);
  }
  return adapter;
}

/** The global context as the sandbox calls it: a ContextScope as it is, any other store adapted. */
function sandboxGlobal(store: SharedContextStore): SandboxGlobalContext {
  if (store instanceof ContextScope) return store;
  return {
    getJson: (key) => contextJson(store.get(key)),
    setJson: (key, json) => store.set(key, json === null ? undefined : JSON.parse(json)),
    keys: () => store.keys(),
    incrementStored: (key, by) => Promise.resolve(store.increment(key, by)),
  };
}

function emit(ctx: NodeContext, result: SandboxResult, send: (v: SendValue) => void, timers?: FunctionTimers) {
  for (const sent of result.sent) send(sent);
  if (result.outputs.some((port) => port.length > 0)) send(result.outputs);
  if (result.status !== undefined) ctx.status(result.status);
  for (const log of result.logs) if (log.level !== "log") ctx.log.warn(`${log.level}: ${log.message}`);
  timers?.apply(result.timers);
}

/**
 * User JavaScript in a QuickJS sandbox: a time limit per call, a memory limit, no host access.
 * setTimeout/setInterval: the sandbox keeps the callbacks, timers.ts the clocks; a callback runs only
 * while the flow is not busy, sends through ctx.send (its input, if any, is long done), and every
 * timer is cleared when the node closes (before `finalize` runs).
 */
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
    flowScope: sandboxFlow(ctx.context.flow),
    globalContext: sandboxGlobal(ctx.context.global),
    nodeInfo: { id: ctx.node.id, name: ctx.node.name, flowId: ctx.flowId },
    // env.get: built-ins and non-secret variables; a secret reads as undefined (SPEC §14).
    env: ctx.env.values(),
    owner: ctx.organizationId,
  });
  let closed = false;
  const timers: FunctionTimers = new FunctionTimers(ctx, async (id, repeat) => {
    try {
      const result = await sandbox.fire(id);
      if (!closed) emit(ctx, result, ctx.send, timers);
    } catch (err) {
      if (closed) return;
      if (!(err instanceof SandboxError)) {
        ctx.log.error(err);
        return;
      }
      if (err.result) emit(ctx, err.result, ctx.send, timers);
      const what = err.kind === "runtime" ? "error" : err.kind;
      ctx.log.error(new Error(`function ${what} in a ${repeat ? "setInterval" : "setTimeout"} callback: ${err.message}`));
    }
  });
  // Timers set by `initialize` are armed now and run once the flow has started.
  emit(ctx, sandbox.initResult, ctx.send, timers);
  return {
    async input(msg: Message, send, done) {
      try {
        emit(ctx, await sandbox.run(msg, { env: ctx.env.values() }), send, timers);
        done();
      } catch (err) {
        if (err instanceof SandboxError && err.result) emit(ctx, err.result, send, timers);
        done(err instanceof SandboxError ? new Error(`function ${err.kind === "runtime" ? "error" : err.kind}: ${err.message}`) : err);
      }
    },
    start() {
      timers.start();
    },
    async close() {
      // Timers first (none runs from here on), then `finalize`, as Node-RED's close does in effect.
      closed = true;
      timers.close();
      const result = await sandbox.close();
      if (result) emit(ctx, result, () => undefined);
    },
  };
};
