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

type Family = 0 | 4 | 6;

/** The address to probe: a literal checked against the outbound rules, a name resolved through them. */
async function resolve(ctx: NodeContext, host: string, family: Family): Promise<string | null> {
  const bare = host.replace(/^\[|\]$/g, "");
  const literal = net.isIP(bare);
  if (literal) {
    ctx.services.outbound?.checkHost(bare);
    return family === 0 || family === literal ? bare : null;
  }
  const lookup = ctx.services.outbound?.lookup ?? dns.lookup;
  return new Promise((ok, fail) => {
    lookup(bare, { family }, (err, address) => {
      if (!err) ok(address as string);
      // A refused address is the node's error; a name that does not resolve is an unanswered ping.
      else if ((err as Error).name === "BlockedAddressError") fail(err);
      else ok(null);
    });
  });
}

/**
 * The time until a connection to one of the ports is accepted, or false when none is within the
 * timeout. A refused connection is no answer: firewalls refuse on behalf of hosts that are not there.
 */
function probe(address: string, ports: number[], timeoutMs: number): Promise<number | false> {
  return new Promise((settle) => {
    const started = performance.now();
    const sockets: net.Socket[] = [];
    let pending = ports.length;
    let done = false;
    const finish = (result: number | false) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      for (const s of sockets) s.destroy();
      settle(result);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
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
}

export const pingBehaviour = defineBehaviour(pingNode, (ctx, c) => {
  const family: Family = c.protocol === "IPv4" ? 4 : c.protocol === "IPv6" ? 6 : 0;
  const ports = ctx.services.pingPorts ?? DEFAULT_PORTS;
  let interval: NodeJS.Timeout | undefined;
  let closed = false;
  /** An error's status shows until the next tick or message, as node-red-node-ping's hadErr. */
  let hadError = false;
  const clearError = () => {
    if (!hadError) return;
    hadError = false;
    ctx.status(null);
  };

  /** node-red-node-ping's doPing: payload false and topic the host first, then the answer. */
  const ping = (target: string | Record<string, unknown>, msg: Message, arrayMode: boolean) => {
    const options: Record<string, unknown> = typeof target === "string" ? { host: target, timeout: DEFAULT_TIMEOUT_MS } : target;
    if (typeof target !== "string") {
      const t = parseInt(String(options.timeout));
      options.timeout = Number.isNaN(t) ? DEFAULT_TIMEOUT_MS : t;
    }
    options.timeout = clampTimeout(options.timeout as number);
    msg.payload = false;
    msg.topic = options.host as string;
    if (arrayMode) msg.ping = options;
    const host = String(options.host ?? "");
    void resolve(ctx, host, family)
      .then((address) => (address === null ? false : probe(address, ports, options.timeout as number)))
      .then(
        (result) => {
          if (closed) return;
          msg.payload = result;
          ctx.send(msg);
        },
        (err: unknown) => {
          if (closed) return;
          // The engine shows the error as the node's status; the next tick or message clears it.
          hadError = true;
          ctx.log.error(err, msg);
        },
      );
  };

  return {
    start() {
      if (c.mode !== "timed") return;
      interval = setInterval(() => {
        clearError();
        for (const host of pingList(c.host)) ping(host, { _msgid: ctx.newMessageId() }, false);
      }, c.timer * 1000);
    },
    input(msg, _send, done) {
      clearError();
      const targets = c.host || msg.payload;
      const list = typeof targets === "string" ? pingList(targets) : Array.isArray(targets) ? targets.filter((e) => e) : [];
      if (list.length > MAX_PING_HOSTS) {
        done(new Error(`at most ${MAX_PING_HOSTS} hosts can be pinged at once; msg.payload lists ${list.length}`));
        return;
      }
      const arrayMode = typeof targets !== "string";
      for (const element of list) {
        if (typeof element === "string" || (typeof element === "object" && element !== null && !Array.isArray(element))) ping(element as string | Record<string, unknown>, cloneMessage(msg), arrayMode);
      }
      done();
    },
    close() {
      closed = true;
      clearInterval(interval);
    },
  };
});
