/**
 * Entry of a sandbox worker thread (started by pool-worker.ts): hosts the QuickJS engines of many
 * function-node sandboxes, keyed by sandbox id, and the flow contexts of their flow groups. Requests
 * are handled one at a time, in order. The host terminates the whole thread when a request outlives
 * its hard deadline; nothing here needs to survive that.
 */
import { receiveMessageOnPort, workerData } from "node:worker_threads";
import { coreDiagnostics, createCoreSandbox, FlowStore, type CoreSandbox } from "./sandbox-core";
import type { WorkerData, WorkerReply, WorkerRequest } from "./sandbox-protocol";
import { setBufferMark } from "./buffer-source";
import { SandboxError, type GlobalAnswer, type GlobalCall } from "./sandbox-types";
import { SpinGate, spinFor } from "./spin";

const { port, syncPort, signal: signalBuffer, bufferMark, spinUs } = workerData as WorkerData;
setBufferMark(bufferMark);
const signal = new Int32Array(signalBuffer);

/** How long code may wait for the host to answer a global-context call (a database round trip). */
const GLOBAL_CALL_LIMIT_MS = 10_000;

/**
 * A global-context call of sandbox `sid`'s code: posted to the host, which answers on syncPort and
 * sets signal[2]; this thread sleeps meanwhile (the code is synchronous, as Node-RED's API).
 */
function globalCall(sid: number, call: GlobalCall): string | undefined {
  Atomics.store(signal, 2, 0);
  port.postMessage({ t: "ctx", sid, ...call });
  // Counted with the answers: a host spinning for this request's answer (spin.ts) takes the call
  // off the port and answers it at once, instead of spinning in vain while this thread waits.
  Atomics.add(signal, 0, 1);
  if (Atomics.load(signal, 1) !== 0) Atomics.notify(signal, 0);
  if (Atomics.wait(signal, 2, 0, GLOBAL_CALL_LIMIT_MS) === "timed-out") {
    throw new Error("global context: no answer from the host in time");
  }
  const received = receiveMessageOnPort(syncPort);
  Atomics.store(signal, 2, 0);
  if (!received) throw new Error("global context: no answer from the host");
  const answer = received.message as GlobalAnswer;
  if (!answer.ok) throw new Error(answer.e);
  return answer.v;
}

function syncFlow(flow: FlowStore, request: { fw?: Array<[string, string | null]>; fl?: number; fk?: number }): void {
  if (request.fw) flow.applyHost(request.fw);
  if (request.fl !== undefined) flow.budget = request.fl;
  if (request.fk !== undefined) flow.allowKeys(request.fk);
}

const sandboxes = new Map<number, { sandbox: CoreSandbox; flow: FlowStore }>();
const groups = new Map<number, FlowStore>();

function send(reply: WorkerReply): void {
  port.postMessage(reply);
  Atomics.add(signal, 0, 1);
  // signal[1] is set while the host is blocked waiting for an answer (close() with finalize).
  if (Atomics.load(signal, 1) !== 0) Atomics.notify(signal, 0);
}

function counters(): [number, number] {
  const d = coreDiagnostics();
  return [d.enginesAbandoned, d.disposeFailures];
}

function failure(id: number, err: unknown, flow: FlowStore | undefined): WorkerReply {
  const error =
    err instanceof SandboxError
      ? { kind: err.kind, message: err.message, result: err.result, ...(err.thrownError ? { thrown: true } : {}) }
      : { kind: "runtime" as const, message: `the sandbox failed (${err instanceof Error ? err.message : String(err)})` };
  return { t: "reply", id, ok: false, error, flow: flow?.takeWrites(), d: counters() };
}

async function handle(request: WorkerRequest): Promise<void> {
  switch (request.t) {
    case "drop":
      groups.delete(request.gid);
      return;
    case "create": {
      let flow = groups.get(request.gid);
      if (!flow) {
        flow = new FlowStore(request.seed);
        groups.set(request.gid, flow);
      }
      syncFlow(flow, request);
      try {
        const sid = request.sid;
        const sandbox = await createCoreSandbox({ ...request.options, flow, global: (call) => globalCall(sid, call) }, request.timerBase);
        sandboxes.set(request.sid, { sandbox, flow });
        send({ t: "reply", id: request.id, ok: true, value: sandbox.initResult, flow: flow.takeWrites() });
      } catch (err) {
        send(failure(request.id, err, flow));
      }
      return;
    }
    case "run":
    case "timer":
    case "link": {
      const entry = sandboxes.get(request.sid);
      if (!entry) {
        send(failure(request.id, new SandboxError("runtime", "the sandbox is closed"), undefined));
        return;
      }
      syncFlow(entry.flow, request);
      try {
        if (request.t === "run" && request.env) entry.sandbox.setEnv(request.env);
        const value =
          request.t === "run"
            ? await entry.sandbox.run(request.msgJson, request.msgid)
            : request.t === "timer"
              ? await entry.sandbox.fire(request.timer)
              : await entry.sandbox.linkReturn(request.link, request.answer);
        send({ t: "reply", id: request.id, ok: true, value, flow: entry.flow.takeWrites() });
      } catch (err) {
        send(failure(request.id, err, entry.flow));
      }
      return;
    }
    case "close": {
      const entry = sandboxes.get(request.sid);
      sandboxes.delete(request.sid);
      if (entry) syncFlow(entry.flow, request);
      try {
        const value = entry ? entry.sandbox.close() : null;
        send({ t: "reply", id: request.id, ok: true, value, flow: entry?.flow.takeWrites(), d: counters() });
      } catch (err) {
        send(failure(request.id, err, entry?.flow));
      }
      return;
    }
  }
}

const queue: WorkerRequest[] = [];
let busy = false;
/**
 * Requests taken off the port, as a 32-bit integer: the host counts its posts in signal[3], which
 * wraps around at 2^31, and the two are compared by their difference.
 */
let received = 0;
const gate = new SpinGate(spinUs);
const postedSinceReceived = () => (Atomics.load(signal, 3) - received) | 0;

/**
 * After the queue empties: watches signal[3] for the host's next request for up to the spin window
 * (spin.ts), and takes what came off the port; false when nothing came.
 */
function awaitNext(): boolean {
  if (!gate.open()) return false;
  let taken = 0;
  if (spinFor(gate.windowUs, () => postedSinceReceived() > 0)) {
    for (let next = receiveMessageOnPort(port); next; next = receiveMessageOnPort(port)) {
      received = (received + 1) | 0;
      taken++;
      queue.push(next.message as WorkerRequest);
    }
  }
  // Nothing on the port although the count said so (a message that could not be read): back to
  // the event loop, never a spin that cannot end.
  if (taken === 0) {
    gate.missed();
    return false;
  }
  gate.caught();
  return true;
}

async function pump(): Promise<void> {
  busy = true;
  try {
    do {
      for (let request = queue.shift(); request; request = queue.shift()) await handle(request);
    } while (awaitNext());
  } finally {
    busy = false;
  }
}

port.on("message", (request: WorkerRequest) => {
  received = (received + 1) | 0;
  queue.push(request);
  if (!busy) void pump();
});
send({ t: "ready" });
