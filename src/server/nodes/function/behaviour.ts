import { functionNode } from "./definition";
import { defineBehaviour } from "../types";
import { DONE_LATER, type Done, type Message, type NodeContext, type Send, type SendValue } from "../../runtime/types";
import { randomBytes } from "node:crypto";
import { SandboxError, type LinkAnswer, type SandboxResult } from "../../runtime/sandbox/function-sandbox";
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
  // node.error(err, msg) goes to the catch nodes with that msg (Node-RED's node.error), in its place among the node.send calls.
  const errors = result.errors ?? [];
  let next = 0;
  result.sent.forEach((sent, i) => {
    while (next < errors.length && errors[next]!.after <= i) ctx.log.error(errors[next]!.text, asMessage(ctx, errors[next++]!.msg));
    send(sent);
  });
  while (next < errors.length) ctx.log.error(errors[next]!.text, asMessage(ctx, errors[next++]!.msg));
  if (result.outputs.some((port) => port.length > 0)) send(result.outputs);
  if (result.status !== undefined) ctx.status(result.status);
  for (const log of result.logs) if (log.level !== "log") ctx.log.warn(`${log.level}: ${log.message}`);
  timers?.apply(result.timers);
}

/** A msg from the sandbox as the engine takes it (Node-RED's catch node gives one without _msgid an id when it sends). */
function asMessage(ctx: NodeContext, msg: Record<string, unknown>): Message {
  return (typeof msg._msgid === "string" ? msg : { ...msg, _msgid: ctx.newMessageId() }) as Message;
}

/** The host's copy of the input msg becomes the msg as the code left it (Node-RED's code works on the msg itself). */
function replaceMessage(target: Message, state: Record<string, unknown> | undefined): void {
  if (!state) return;
  for (const key of Object.keys(target)) if (key !== "_msgid" && !Object.hasOwn(state, key)) delete target[key];
  for (const [key, value] of Object.entries(state)) if (key !== "_msgid" && key !== "__proto__") target[key] = value;
}

/**
 * Node-RED finishes a message itself (done() once the code returned) unless the code calls
 * `node.done()` (10-function.js: the same test, then a look at the syntax tree; here the test alone).
 */
const CALLS_NODE_DONE = /node\.done\s*\(\s*\)/;

/**
 * Inputs kept waiting for their node.done() (or their promise) at most: code that calls node.done()
 * for some messages only would otherwise make the node hold every other one forever (Node-RED lets
 * them go with their closures). Past it the oldest is forgotten (never finished, as in Node-RED).
 */
const MAX_UNFINISHED = 10_000;

/** An input under way: finished by the first of node.done(err?), a thrown error, or (unless the code calls node.done()) its return. */
interface Pending {
  msg: Message;
  done: Done;
  finished: boolean;
}

/**
 * User JavaScript in a QuickJS sandbox: a time limit per call, a memory limit, no host access.
 * setTimeout/setInterval: the sandbox keeps the callbacks, timers.ts the clocks; a callback runs only
 * while the flow is not busy, sends through ctx.send (its input, if any, is long done), and every
 * timer is cleared when the node closes (before `finalize` runs).
 *
 * As Node-RED's function node: errors reach the catch nodes with Node-RED's texts (a thrown Error
 * as "Error: boom", with the msg as the code left it and msg._error); node.done(err) finishes that
 * message, now or from a timer; an On Start that returns a promise holds the messages, in order,
 * until it settles (if it fails, they are dropped and so is every later one, as in Node-RED).
 */
export const functionBehaviour = defineBehaviour(functionNode, async (ctx, c) => {
  const sandboxes = ctx.services.sandboxes;
  if (!sandboxes) throw new Error("function nodes are not available here (no sandbox pool)");
  const doneByCode = CALLS_NODE_DONE.test(c.code);
  const created = sandboxes.create({
    code: c.code,
    outputs: c.outputs,
    timeoutMs: c.timeout_ms,
    initialize: c.initialize,
    finalize: c.finalize,
    libs: c.libs,
    flowContext: ctx.flowContext,
    flowScope: sandboxFlow(ctx.context.flow),
    globalContext: sandboxGlobal(ctx.context.global),
    nodeInfo: { id: ctx.node.id, name: ctx.node.name, flowId: ctx.flowId },
    // env.get: built-ins and non-secret variables; a secret reads as undefined (SPEC §14).
    env: ctx.env.values(),
    owner: ctx.organizationId,
    finalMsg: ctx.watchedByComplete,
  });
  let sandbox: Awaited<typeof created>;
  try {
    sandbox = await created;
  } catch (err) {
    if (!(err instanceof SandboxError) || err.kind !== "syntax") throw err;
    // As Node-RED's function node: code that does not compile is the node's error (logged, in the
    // Debug sidebar; no message, so no catch node), the node drops what it is sent, and the rest of
    // the flow runs.
    const reason = err.message;
    return { start: () => ctx.log.error(reason), input: (_msg: Message, _send: Send, done: Done) => done() };
  }
  let closed = false;
  /** Inputs whose code calls node.done() and has not yet: by run token. */
  const unfinished = new Map<string, Pending>();
  /** On Start: "pending" while its promise has not settled (inputs wait in `held`), "failed" once it was rejected. */
  let start: "ready" | "pending" | "failed" = "ready";
  let held: Array<{ msg: Message; send: Send; done: Done }> = [];
  let heldOverflow = false;

  const finish = (pending: Pending, error: string | undefined, state: Record<string, unknown> | undefined) => {
    if (pending.finished) return;
    pending.finished = true;
    replaceMessage(pending.msg, state);
    pending.done(error);
  };
  /**
   * node.done() calls a result reports, of this run (`current`) or of an earlier one; and earlier
   * runs whose promise settled: a rejection fails the message, a fulfilment finishes it unless the
   * code calls node.done() itself.
   */
  const applyDones = (result: SandboxResult | undefined, current?: Pending & { run?: string }) => {
    for (const call of result?.dones ?? []) {
      const pending = current && call.run === current.run ? current : unfinished.get(call.run);
      if (!pending) continue;
      unfinished.delete(call.run);
      finish(pending, call.error, call.msg);
    }
    for (const run of result?.settled ?? []) {
      const pending = unfinished.get(run.run);
      if (!pending) continue;
      if (run.error === undefined && doneByCode) continue;
      unfinished.delete(run.run);
      finish(pending, run.error, run.thrownError ? { ...run.msg, error: {} } : run.msg);
    }
  };
  /** On Start's promise settled: the held messages go in, in order; or it failed, and they are dropped. */
  const applyStart = (result: SandboxResult | undefined) => {
    if (!result?.initSettled || start !== "pending") return;
    const waiting = held;
    held = [];
    if (result.initSettled.error !== undefined) {
      start = "failed";
      ctx.log.error(result.initSettled.error);
      return;
    }
    start = "ready";
    for (const { msg, send, done } of waiting) {
      handle(msg, send, done).then(
        (value) => {
          if (value !== DONE_LATER) done();
        },
        (err: unknown) => done(err),
      );
    }
  };

  /** What a call outside an input (a timer, a link call's answer) did, or its failure (Node-RED's node.error(err, {})). */
  const later = async (call: () => Promise<SandboxResult>) => {
    try {
      const result = await call();
      if (closed) return;
      emit(ctx, result, ctx.send, timers);
      applyDones(result);
      applyStart(result);
      startLinkCalls(result);
    } catch (err) {
      if (closed) return;
      if (!(err instanceof SandboxError)) {
        ctx.log.error(err);
        return;
      }
      if (err.result) {
        emit(ctx, err.result, ctx.send, timers);
        applyDones(err.result);
        applyStart(err.result);
        startLinkCalls(err.result);
      }
      // Node-RED's timer wrapper: node.error(err, {}), which the catch nodes get.
      ctx.log.error(err.message, { _msgid: ctx.newMessageId() });
    }
  };
  const timers: FunctionTimers = new FunctionTimers(ctx, (id) => later(() => sandbox.fire(id)));

  /**
   * node.linkcall() (Node-RED 5.0): as a link-call node, the message goes to the link-in with
   * {id, node} pushed on msg._linkSource, and the link-out in return mode that answers it (by event
   * id) settles the code's promise; so do the timeout ("timeout") and a target not found.
   */
  const linkCalls = new Map<string, { id: number; timer: NodeJS.Timeout; end: () => void }>();
  const answerLink = (eventId: string, answer: LinkAnswer): boolean => {
    const entry = linkCalls.get(eventId);
    if (!entry) return false;
    linkCalls.delete(eventId);
    clearTimeout(entry.timer);
    entry.end();
    if (!closed) void later(() => sandbox.linkReturn(entry.id, answer));
    return true;
  };
  const textOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
  function startLinkCalls(result: SandboxResult | undefined) {
    for (const call of result?.linkCalls ?? []) {
      if (closed) return;
      const msg = asMessage(ctx, call.msg);
      const stack = Array.isArray(msg._linkSource) ? msg._linkSource : (msg._linkSource = []);
      const eventId = randomBytes(14).toString("hex");
      const entry: { id: number; timer: NodeJS.Timeout; end: () => void } = { id: call.id, timer: setTimeout(() => answerLink(eventId, { error: "timeout" }), call.timeoutMs), end: () => undefined };
      linkCalls.set(eventId, entry);
      (stack as unknown[]).push({ id: eventId, node: ctx.node.id });
      try {
        const handle = ctx.links.call(call.target, msg, { byName: true });
        if (linkCalls.get(eventId) === entry) entry.end = handle.end;
        else handle.end();
        handle.delivered?.catch((err: unknown) => answerLink(eventId, { error: textOf(err) }));
      } catch (err) {
        answerLink(eventId, { error: textOf(err) });
      }
    }
  }

  async function handle(msg: Message, send: Send, done: Done): Promise<void | typeof DONE_LATER> {
    const current: Pending & { run?: string } = { msg, done, finished: false };
    try {
      const result = await sandbox.run(msg, { env: ctx.env.values() });
      current.run = result.run;
      emit(ctx, result, send, timers);
      applyDones(result, current);
      applyStart(result);
      startLinkCalls(result);
      if (current.finished) return DONE_LATER;
      if (doneByCode || result.runPending) {
        if (result.run) {
          unfinished.set(result.run, current);
          if (unfinished.size > MAX_UNFINISHED) unfinished.delete(unfinished.keys().next().value!);
        }
        return DONE_LATER;
      }
      replaceMessage(msg, result.msg);
      return undefined;
    } catch (err) {
      if (!(err instanceof SandboxError)) throw err;
      if (err.result) {
        emit(ctx, err.result, send, timers);
        current.run = err.result.run;
        applyDones(err.result, current);
        startLinkCalls(err.result);
      }
      if (current.finished) return DONE_LATER;
      // Node-RED sets msg.error to the Error the code threw (a catch node shows it as msg._error).
      const state = err.result?.msg;
      finish(current, err.message, err.thrownError ? { ...(state ?? msg), error: {} } : state);
      return DONE_LATER;
    }
  }

  // Timers set by `initialize` are armed now and run once the flow has started.
  emit(ctx, sandbox.initResult, ctx.send, timers);
  startLinkCalls(sandbox.initResult);
  if (sandbox.initResult.initPending) start = "pending";
  else if (sandbox.initResult.initSettled?.error !== undefined) {
    start = "failed";
    ctx.log.error(sandbox.initResult.initSettled.error);
  }
  return {
    input(msg: Message, send, done) {
      if (start === "ready") return handle(msg, send, done);
      // Held until On Start's promise settles (not counted as the flow's work meanwhile: the timers
      // that settle it run only while the flow is not busy); after it failed, dropped as in Node-RED.
      if (start === "pending") {
        if (held.length < MAX_UNFINISHED) held.push({ msg, send, done });
        else if (!heldOverflow) {
          heldOverflow = true;
          ctx.log.warn(`On Start has not finished and ${MAX_UNFINISHED} messages wait for it: later ones are dropped until it does`);
        }
      }
      return undefined;
    },
    start() {
      timers.start();
    },
    linkReturn(eventId, msg) {
      if (Array.isArray(msg._linkSource) && msg._linkSource.length === 0) delete msg._linkSource;
      answerLink(eventId, { msg: msg as Record<string, unknown> });
    },
    async close() {
      // Timers first (none runs from here on), then `finalize`, as Node-RED's close does in effect.
      closed = true;
      held = [];
      unfinished.clear();
      timers.close();
      for (const entry of linkCalls.values()) {
        clearTimeout(entry.timer);
        entry.end();
      }
      linkCalls.clear();
      const result = await sandbox.close();
      if (result) emit(ctx, result, () => undefined);
    },
  };
});
