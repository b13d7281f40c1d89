/**
 * Messages between the host (pool-worker.ts) and a sandbox worker (sandbox-worker.ts). Everything is
 * JSON-safe data, sent by structured clone over a MessagePort; the worker answers every request with
 * an id, in order (it handles one request at a time), and after each answer (and each global-context
 * call) increments the shared counter `signal[0]` (an Int32Array over `signal`) and, while the host
 * has set `signal[1]`, notifies it. The host increments `signal[3]` after each post. Each side can so see the other's message
 * before its event loop would deliver it, and take it with receiveMessageOnPort: both spin for a
 * moment after a call instead of sleeping at once (spin.ts).
 */
import type { MessagePort } from "node:worker_threads";
import type { FunctionSandboxOptions, GlobalCall, SandboxErrorKind, SandboxResult } from "./sandbox-types";

/**
 * What the host tells the group's worker copy of the flow context with a request: writes made on
 * the host since the last request (`fw`, null = deleted; applied before the request runs) and the
 * bytes the copy may hold (`fl`) and how many keys it may add (`fk`: the organization's CONTEXT_MAX_KEYS).
 */
export interface FlowSync {
  fw?: Array<[string, string | null]>;
  fl?: number;
  fk?: number;
}

/** The sandbox options that cross to the worker: all but the host-side flowContext Map (its group id and seed travel instead). */
export type WireOptions = Pick<
  FunctionSandboxOptions,
  "code" | "outputs" | "timeoutMs" | "memoryLimitBytes" | "initialize" | "finalize" | "libs" | "flowContextLimitBytes" | "nodeInfo" | "env" | "finalMsg"
>;

/** A link call's answer on the wire: the message as the JSON text the host handed over (pooled-sandbox.ts). */
export type WireLinkAnswer = { msgJson: string } | { error: string };

export type WorkerRequest =
  /**
   * Creates sandbox `sid` in flow group `gid`; `seed` (JSON texts) when the worker does not hold the
   * group yet; `timerBase`: the highest timer id the host has seen from this sandbox (its new ids
   * start above it).
   */
  | ({ t: "create"; id: number; sid: number; gid: number; seed?: Array<[string, string]>; options: WireOptions; timerBase: number } & FlowSync)
  /** `env`: env.get's new values, sent only when they changed since the sandbox's last call. */
  | ({ t: "run"; id: number; sid: number; msgJson: string; msgid: string; env?: Readonly<Record<string, unknown>> } & FlowSync)
  /** Runs the callback of timer `timer` of sandbox `sid`. */
  | ({ t: "timer"; id: number; sid: number; timer: number } & FlowSync)
  /** Settles node.linkcall `link` of sandbox `sid` with `answer`. */
  | ({ t: "link"; id: number; sid: number; link: number; answer: WireLinkAnswer } & FlowSync)
  | ({ t: "close"; id: number; sid: number } & FlowSync)
  /** No answer: the host holds no sandbox of the group on this worker any more. */
  | { t: "drop"; gid: number };

export interface WireError {
  kind: SandboxErrorKind;
  message: string;
  result?: SandboxResult;
  /** SandboxError.thrownError. */
  thrown?: boolean;
}

export type WorkerReply =
  | { t: "ready" }
  /**
   * A synchronous call of sandbox `sid`'s code on the global context: the worker waits (Atomics.wait
   * on `signal[2]`) until the host posts the GlobalAnswer on `syncPort` and sets `signal[2]` to 1.
   */
  | ({ t: "ctx"; sid: number } & GlobalCall)
  | {
      t: "reply";
      id: number;
      ok: boolean;
      value?: SandboxResult | null;
      error?: WireError;
      /** Flow context writes made during the request (null = deleted), for the host's mirror. */
      flow?: Array<[string, string | null]>;
      /** The worker's engine counters [abandoned, disposeFailures], on close and error answers. */
      d?: [number, number];
    };

export interface WorkerData {
  port: MessagePort;
  /** Where the host answers "ctx" calls (read with receiveMessageOnPort while the worker waits). */
  syncPort: MessagePort;
  signal: SharedArrayBuffer;
  /** The host's key of a Buffer's stand-in (buffer-source.ts). */
  bufferMark: string;
  /** How long the worker watches `signal[3]` (the host's count of posts) after emptying its queue (spin.ts). */
  spinUs: number;
}
