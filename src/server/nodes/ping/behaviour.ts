import dns from "node:dns";
import net from "node:net";
import { MAX_PING_HOSTS, pingList, pingNode } from "./definition";
import { defineBehaviour } from "../types";
import type { Message, NodeContext } from "../../runtime/types";
import { cloneMessage } from "../sequence-support";

/** node-red-node-ping's default timeout and its clamp. */
const DEFAULT_TIMEOUT_MS = 5_000;
const clampTimeout = (ms: number) => Math.min(Math.max(ms, 1_000), 30_000);
/** The ports a host is asked on unless the operator says otherwise (PING_PORTS). */
const DEFAULT_PORTS = [443, 80];
/** Pings one node may have under way at once; a message past them waits for the flow (backpressure). */
const MAX_IN_FLIGHT = MAX_PING_HOSTS;

type Family = 0 | 4 | 6;

/** The address to probe: a literal checked against the outbound rules, a name resolved through them; null: none. */
async function resolve(ctx: NodeContext, host: string, family: Family): Promise<string | null> {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  if (bare === "") return null;
  const literal = net.isIP(bare);
  if (literal) {
    ctx.services.outbound?.checkHost(bare);
    return family === 0 || family === literal ? bare : null;
  }
  const lookup = ctx.services.outbound?.lookup ?? dns.lookup;
  return new Promise((ok, fail) => {
    lookup(bare, { family }, (err, address) => {
      if (!err && typeof address === "string" && address !== "") ok(address);
      // A refused address is the node's error; a name that does not resolve is an unanswered ping.
      else if (err && (err as Error).name === "BlockedAddressError") fail(err);
      else ok(null);
    });
  });
}

/** One ping under way: it settles with the answer, or false once cancelled. */
interface Probe {
  result: Promise<number | false>;
  cancel(): void;
}

/**
 * The time until a connection to one of the ports is accepted, or false when none is within the
 * deadline. A refused connection is no answer: firewalls refuse on behalf of hosts that are not there.
 */
function probe(address: string, ports: number[], deadline: number): Probe {
  let finish: (result: number | false) => void = () => undefined;
  const result = new Promise<number | false>((settle) => {
    const started = performance.now();
    const sockets: net.Socket[] = [];
    let pending = ports.length;
    let done = false;
    finish = (answer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      for (const s of sockets) s.destroy();
      settle(answer);
    };
    const timer = setTimeout(() => finish(false), Math.max(0, deadline - Date.now()));
    const answered = () => finish(Math.round((performance.now() - started) * 1000) / 1000);
    for (const port of ports) {
      const socket = net.connect({ host: address, port });
      sockets.push(socket);
      socket.once("connect", answered);
      socket.once("error", () => {
        if (--pending === 0) finish(false);
      });
    }
  });
  return { result, cancel: () => finish(false) };
}

export const pingBehaviour = defineBehaviour(pingNode, (ctx, c) => {
  const family: Family = c.protocol === "IPv4" ? 4 : c.protocol === "IPv6" ? 6 : 0;
  const ports = ctx.services.pingPorts ?? DEFAULT_PORTS;
  let interval: NodeJS.Timeout | undefined;
  let closed = false;
  /** Pings under way: cancelled when the flow stops. */
  const running = new Set<() => void>();
  /** An error's status shows until the next tick or message, as node-red-node-ping's hadErr. */
  let hadError = false;
  const clearError = () => {
    if (!hadError) return;
    hadError = false;
    ctx.status(null);
  };

  /** node-red-node-ping's doPing: payload false and topic the host first, then the answer. Settles when sent. */
  const ping = async (target: string | Record<string, unknown>, msg: Message, arrayMode: boolean): Promise<void> => {
    // The entry is the message's own (it comes back in msg.ping): a copy, so other wires' copies are untouched.
    const options: Record<string, unknown> = typeof target === "string" ? { host: target, timeout: DEFAULT_TIMEOUT_MS } : { ...target };
    if (typeof target !== "string") {
      const t = parseInt(String(options.timeout));
      options.timeout = Number.isNaN(t) ? DEFAULT_TIMEOUT_MS : t;
    }
    options.timeout = clampTimeout(options.timeout as number);
    msg.payload = false;
    msg.topic = options.host as string;
    if (arrayMode) msg.ping = options;
    // One deadline for the name's lookup and the connection, as the ping program's whole run is bounded.
    const deadline = Date.now() + (options.timeout as number);
    let cancelled = false;
    let current: Probe | undefined;
    const cancel = () => {
      cancelled = true;
      current?.cancel();
    };
    running.add(cancel);
    try {
      const address = await Promise.race([resolve(ctx, String(options.host ?? ""), family), new Promise<null>((ok) => setTimeout(() => ok(null), options.timeout as number).unref())]);
      if (cancelled || closed) return;
      if (address !== null) {
        current = probe(address, ports, deadline);
        msg.payload = await current.result;
      }
      if (cancelled || closed) return;
      ctx.send(msg);
    } catch (err) {
      if (closed) return;
      // The engine shows the error as the node's status; the next tick or message clears it.
      hadError = true;
      ctx.log.error(err, msg);
    } finally {
      running.delete(cancel);
    }
  };

  let tickRunning = false;
  return {
    start() {
      if (c.mode !== "timed") return;
      interval = setInterval(() => {
        clearError();
        // A tick still under way (hosts slower than the period), or a busy flow: this one is skipped.
        if (tickRunning || ctx.busy()) return;
        tickRunning = true;
        void Promise.allSettled(pingList(c.host).map((host) => ping(host, { _msgid: ctx.newMessageId() }, false))).then(() => {
          tickRunning = false;
        });
      }, c.timer * 1000);
    },
    // Asynchronous: a message weighs on the flow until its pings are answered (backpressure), so a
    // storm of messages waits instead of opening sockets without bound.
    async input(msg) {
      clearError();
      const targets = c.host || msg.payload;
      const list = typeof targets === "string" ? pingList(targets) : Array.isArray(targets) ? targets.filter((e) => e) : [];
      if (list.length > MAX_PING_HOSTS) throw new Error(`at most ${MAX_PING_HOSTS} hosts can be pinged at once; msg.payload lists ${list.length}`);
      while (running.size + list.length > MAX_IN_FLIGHT && running.size > 0 && !closed) await new Promise((r) => setTimeout(r, 50));
      const arrayMode = typeof targets !== "string";
      await Promise.allSettled(
        list
          .filter((element) => typeof element === "string" || (typeof element === "object" && element !== null && !Array.isArray(element)))
          .map((element) => ping(element as string | Record<string, unknown>, cloneMessage(msg), arrayMode)),
      );
    },
    close() {
      closed = true;
      clearInterval(interval);
      for (const cancel of running) cancel();
      running.clear();
    },
  };
});
