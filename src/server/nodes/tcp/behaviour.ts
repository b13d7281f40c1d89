import { randomBytes } from "node:crypto";
import net from "node:net";
import { StringDecoder } from "node:string_decoder";
import tls from "node:tls";
import { tcpInNode, tcpOutNode, tcpRequestNode } from "./definition";
import { defineBehaviour } from "../types";
import type { Done, Message, NodeContext, NodeStatus } from "../../runtime/types";
import { cloneMessage } from "../sequence-support";
import { tlsConnectOptions } from "../tls-config/connect-options";
import { wholeEnvValue } from "../../runtime/env-values";
import { DelimitedText } from "./delimited-text";
import { BudgetHold } from "./budget-hold";

/** A host or port written as one `${NAME}` is the variable's value, as Node-RED maps it when the node starts. */
const atStart = (ctx: NodeContext, value: string) => wholeEnvValue(value, (name) => ctx.env.get(name));

/** An answer bigger than this is an error (Node-RED's fixed 64 KiB buffer silently loses the rest). */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/**
 * Connections one tcp-request node keeps open at once (one per host and port, msg.host and msg.port
 * included). Node-RED has no bound; in a shared runtime a flow must not hold every socket.
 */
export const MAX_TCP_REQUEST_CONNECTIONS = 100;
/** Node-RED's `socketReconnectTime` default. */
const RECONNECT_MS = 10_000;
/** tcp in: Node-RED reconnects this soon after a close that brought data… */
const QUICK_RECONNECT_MS = 20;
/** …and ours at most once in this long (a server that answers and closes is not called 50 times a second). */
export const MIN_QUICK_RECONNECT_GAP_MS = 1000;
/** Node-RED's keep-alive on its TCP sockets. */
const KEEP_ALIVE_MS = 120_000;

/** Node-RED's `tcpin.status.connections`, with i18next's plural. */
const connections = (count: number) => `${count} connection${count === 1 ? "" : "s"}`;

/**
 * Opens a client socket under the outbound rules: a literal address is checked before connecting,
 * a host name is resolved by the rules' lookup (the address checked is the one connected to).
 * Throws BlockedAddressError at once for a blocked literal.
 */
function openSocket(ctx: NodeContext, host: string, port: number, tlsOptions: tls.ConnectionOptions | undefined, onConnect: () => void): net.Socket {
  const outbound = ctx.services.outbound;
  outbound?.checkHost(host);
  const lookup = outbound?.lookup;
  if (tlsOptions) return tls.connect({ host, port, ...(lookup ? { lookup } : {}), ...(net.isIP(host) ? {} : { servername: host }), ...tlsOptions }, onConnect);
  return net.connect({ host, port, ...(lookup ? { lookup } : {}) }, onConnect);
}

/**
 * A kept client connection's attempt (tcp out, tcp in): status "connecting", then "connected";
 * each distinct failure reported once (Node-RED logs every attempt: a refused address would repeat
 * every 10 s). Undefined when it did not start: a refused address (tried again through `retry`),
 * or a TLS configuration the flow lacks (the node's error; a redeploy brings it).
 */
function startClient(
  ctx: NodeContext,
  target: { host: string; port: number; tls: string },
  failures: { report(text: string): void; clear(): void },
  retry: () => void,
  onConnected: () => void = () => undefined,
): net.Socket | undefined {
  ctx.status({ fill: "grey", shape: "dot", text: "connecting" });
  const tlsOptions = tlsConnectOptions(ctx, target.tls);
  if (tlsOptions === null) {
    ctx.status({ fill: "red", shape: "ring", text: "disconnected" });
    return undefined;
  }
  let client: net.Socket;
  try {
    client = openSocket(ctx, target.host, target.port, tlsOptions, () => {
      failures.clear();
      onConnected();
      ctx.status({ fill: "green", shape: "dot", text: "connected" });
    });
  } catch (err) {
    failures.report((err as Error).message);
    ctx.status({ fill: "red", shape: "ring", text: "disconnected" });
    retry();
    return undefined;
  }
  client.setKeepAlive(true, KEEP_ALIVE_MS);
  client.on("error", (err) => failures.report(err.message));
  return client;
}

/** Each distinct failure once, as a warning; `clear` after a success. */
function distinctFailures(ctx: NodeContext) {
  let last = "";
  return {
    report(text: string) {
      if (text !== last) ctx.log.warn(`error: ${text}`);
      last = text;
    },
    clear() {
      last = "";
    },
  };
}

/** The split character of "char" mode, as Node-RED reads it (`\n`, `0x0A`, or the first character). */
function splitCharOf(text: string): number {
  if (text.startsWith("\\")) {
    const escaped = { "\\n": 0x0a, "\\r": 0x0d, "\\t": 0x09, "\\e": 0x1b, "\\f": 0x0c, "\\0": 0x00 }[text.slice(0, 2)];
    if (escaped !== undefined) return escaped;
  }
  if (text.startsWith("0x")) return Number.parseInt(text, 16);
  return text.charCodeAt(0);
}

interface Pending {
  msg: Message;
  done: Done;
}

interface Connection {
  socket?: net.Socket;
  queue: Pending[];
  connected: boolean;
  connecting: boolean;
  lastMsg: Message;
  chunks: Buffer[];
  size: number;
  timer?: NodeJS.Timeout;
  /** "sit" with a newline: the text after the last delimiter. */
  text: DelimitedText;
  /** What it holds (the answer, the kept text) in the organization's download budget. */
  held: BudgetHold;
}

export const tcpRequestBehaviour = defineBehaviour(tcpRequestNode, (ctx, config) => {
  const c = { ...config, server: atStart(ctx, config.server), port: atStart(ctx, config.port) };
  let out = c.out;
  let splitc: number;
  if (out === "immed") {
    splitc = -1;
    out = "time";
  } else if (out === "char") {
    splitc = splitCharOf(c.splitc);
  } else {
    splitc = Number(c.splitc);
  }
  const newline = c.newline.replace("\\n", "\n").replace("\\r", "\r").replace("\\t", "\t");
  const clients = new Map<string, Connection>();
  const budget = ctx.services.workLimits?.responseBudget(ctx.organizationId);
  let lastId: string | undefined;

  const status = (s: NodeStatus | null) => ctx.status(s);

  const answer = (client: Connection, payload: Buffer | string) => {
    const msg = cloneMessage(client.lastMsg);
    msg.payload = payload;
    ctx.send(msg);
  };
  const asReturned = (bytes: Buffer): Buffer | string => (c.ret === "string" ? bytes.toString() : bytes);

  const finish = (id: string, client: Connection) => {
    clearTimeout(client.timer);
    client.socket?.destroy();
    client.held.release();
    if (clients.get(id) === client) clients.delete(id);
  };

  const failAnswer = (id: string, client: Connection, why: string) => {
    ctx.log.error(new Error(why), client.lastMsg);
    status({ fill: "red", shape: "ring", text: "error" });
    finish(id, client);
  };
  const tooLarge = (id: string, client: Connection) => failAnswer(id, client, `the answer from ${id} is larger than ${MAX_ANSWER_BYTES} bytes`);
  const noRoom = (id: string, client: Connection) =>
    failAnswer(id, client, `the organization's bytes being downloaded (at most ${client.held.max} at once, http request's responses included) left no room for the answer from ${id}`);

  /**
   * Node-RED reads an answer byte by byte (count: until it has that many, char: up to the split
   * byte, time: all that came within the time). Here each chunk is taken whole or up to the byte
   * that ends the answer: the same answers, without an object per byte.
   */
  const collect = (id: string, client: Connection, data: Buffer) => {
    if (out === "sit") {
      if (c.ret === "string" && newline !== "") {
        let parts: string[];
        try {
          parts = client.text.push(data.toString());
        } catch {
          tooLarge(id, client);
          return;
        }
        if (!client.held.hold(client.text.heldBytes)) {
          noRoom(id, client);
          return;
        }
        for (const part of parts) answer(client, c.trim ? part + newline : part);
      } else {
        answer(client, c.ret === "string" ? data.toString() : Buffer.from(data));
      }
      return;
    }
    if (clients.get(id) !== client) return;
    // How many bytes of this chunk belong to the answer before it is complete (all of them: not yet).
    let ending = -1;
    if (out === "count") {
      if (!Number.isNaN(splitc)) ending = Math.max(1, Math.ceil(splitc - client.size));
    } else if (out === "char") {
      if (Number.isInteger(splitc) && splitc >= 0 && splitc <= 255) {
        const at = data.indexOf(splitc);
        if (at !== -1) ending = at + 1;
      }
    }
    const taken = ending !== -1 && ending <= data.length ? ending : data.length;
    if (client.size + taken > MAX_ANSWER_BYTES) {
      tooLarge(id, client);
      return;
    }
    if (!client.held.hold(client.size + taken)) {
      noRoom(id, client);
      return;
    }
    client.chunks.push(data.subarray(0, taken));
    client.size += taken;
    const take = () => {
      const bytes = Buffer.concat(client.chunks);
      client.chunks = [];
      client.size = 0;
      client.held.release();
      answer(client, asReturned(bytes));
      status(null);
      finish(id, client);
    };
    if (out === "time") {
      if (!client.timer) client.timer = setTimeout(take, Math.max(0, splitc));
    } else if (ending !== -1 && ending <= data.length) {
      take();
    }
  };

  const write = (client: Connection, pending: Pending) => {
    if (pending.msg.payload !== undefined) client.socket?.write(pending.msg.payload as Buffer | string);
    pending.done();
  };

  return {
    input(msg, _send, done) {
      if (msg.payload !== undefined && msg.payload !== null && !Buffer.isBuffer(msg.payload) && typeof msg.payload !== "string") {
        msg.payload = String(msg.payload);
      }
      const host = c.server || (typeof msg.host === "string" ? msg.host : "");
      const port = Number(c.port) || Number(msg.port) || 0;
      if (out === "sit" && msg.reset) {
        if (msg.reset === true) for (const [id, client] of [...clients]) finish(id, client);
        if (typeof msg.reset === "string" && msg.reset.includes(":")) {
          const client = clients.get(msg.reset);
          if (client) finish(msg.reset, client);
        }
        status({ fill: "green", shape: clients.size === 0 ? "ring" : "dot", text: connections(clients.size) });
        if (!Object.hasOwn(msg, "payload")) {
          done();
          return;
        }
      }
      const id = `${host}:${port}`;
      if (id !== lastId) {
        status(null);
        lastId = id;
      }
      let client = clients.get(id);
      if (!client && clients.size >= MAX_TCP_REQUEST_CONNECTIONS) {
        status({ fill: "red", shape: "ring", text: connections(clients.size) });
        done(new Error(`this node has ${MAX_TCP_REQUEST_CONNECTIONS} connections open, its limit: ${id} is not connected (msg.reset closes them)`));
        return;
      }
      if (!client) {
        client = { queue: [], connected: false, connecting: false, lastMsg: msg, chunks: [], size: 0, text: new DelimitedText(newline, MAX_ANSWER_BYTES), held: new BudgetHold(budget) };
        clients.set(id, client);
      }
      client.lastMsg = msg;
      if (client.connected && client.socket) {
        write(client, { msg, done });
        return;
      }
      client.queue.push({ msg, done });
      if (client.connecting) return;
      if (!host || !port) {
        ctx.log.warn("Host and/or port not set");
        for (const pending of client.queue.splice(0)) pending.done();
        clients.delete(id);
        return;
      }
      const tlsOptions = tlsConnectOptions(ctx, c.tls);
      const failed = (err: Error) => {
        status({ fill: "red", shape: "ring", text: "error" });
        for (const pending of current.queue.splice(0)) pending.done(new Error(`connect failed ${id}: ${err.message}`));
        finish(id, current);
      };
      const current = client;
      if (tlsOptions === null) {
        failed(new Error(`the TLS configuration ${c.tls} is not available`));
        return;
      }
      current.connecting = true;
      let socket: net.Socket;
      try {
        socket = openSocket(ctx, host, port, tlsOptions, () => {
          current.connected = true;
          current.connecting = false;
          status({ fill: "green", shape: "dot", text: connections(clients.size) });
          for (const pending of current.queue.splice(0)) write(current, pending);
          if (out === "time" && splitc < 0) {
            current.connected = false;
            socket.end();
            if (clients.get(id) === current) clients.delete(id);
            status(null);
          }
        });
      } catch (err) {
        failed(err as Error);
        return;
      }
      current.socket = socket;
      socket.setKeepAlive(true, KEEP_ALIVE_MS);
      socket.on("data", (data: Buffer) => collect(id, current, data));
      socket.on("end", () => {
        status({ fill: "grey", shape: "ring", text: "disconnected" });
        current.connected = current.connecting = false;
        current.socket = undefined;
        if (clients.get(id) === current) clients.delete(id);
      });
      socket.on("close", () => {
        current.connected = current.connecting = false;
        // An answer the close left incomplete is never sent (a time answer's timer sends its bytes still).
        current.held.release();
      });
      socket.on("error", failed);
    },
    close() {
      for (const [id, client] of [...clients]) {
        for (const pending of client.queue.splice(0)) pending.done();
        finish(id, client);
      }
      status(null);
    },
  };
});

export const tcpOutBehaviour = defineBehaviour(tcpOutNode, (ctx, config) => {
  const c = { ...config, host: atStart(ctx, config.host), port: atStart(ctx, config.port) };
  let socket: net.Socket | undefined;
  let connected = false;
  let closing = false;
  let ended = false;
  let reconnect: NodeJS.Timeout | undefined;
  const failures = distinctFailures(ctx);
  const port = Number(c.port);

  const setup = () => {
    if (closing) return;
    if (!c.host || !port) {
      ctx.log.warn("Host and/or port not set");
      return;
    }
    const client = startClient(
      ctx,
      { host: c.host, port, tls: c.tls },
      failures,
      () => {
        reconnect = setTimeout(setup, RECONNECT_MS);
      },
      () => {
        connected = true;
      },
    );
    if (!client) return;
    socket = client;
    client.on("end", () => {
      ctx.status(null);
      connected = false;
    });
    client.on("close", () => {
      if (socket !== client) return;
      ctx.status({ fill: "red", shape: "ring", text: "disconnected" });
      connected = false;
      client.destroy();
      if (closing) return;
      const quick = ended;
      ended = false;
      reconnect = setTimeout(setup, quick ? 20 : RECONNECT_MS);
    });
  };
  return {
    start() {
      setup();
    },
    input(msg, _send, done) {
      if (connected && socket && msg.payload !== null && msg.payload !== undefined) {
        const payload = msg.payload;
        if (Buffer.isBuffer(payload)) socket.write(payload);
        else if (typeof payload === "string" && c.base64) socket.write(Buffer.from(payload, "base64"));
        else socket.write(Buffer.from(String(payload)));
        if (c.end) {
          ended = true;
          ctx.status(null);
          socket.destroy();
        }
      }
      done();
    },
    close() {
      closing = true;
      clearTimeout(reconnect);
      socket?.destroy();
      ctx.status(null);
    },
  };
});

/**
 * Node-RED's `tcp in` connecting out (`server: "client"`): a message per chunk or per delimited
 * part (stream), or all that came when the server closes (single); reconnects as Node-RED does.
 * What it holds (a single message, text before its delimiter) counts against the organization's
 * budget for bytes being downloaded, which http request's responses share: when it is spent, the
 * socket stops reading until there is room; and it stops while the flow is busy.
 */
export const tcpInBehaviour = defineBehaviour(tcpInNode, (ctx, config) => {
  const c = { ...config, host: atStart(ctx, config.host), port: atStart(ctx, config.port) };
  const port = Number(c.port);
  const newline = c.newline.replace(/\\n/g, "\n").replace(/\\r/g, "\r").replace(/\\t/g, "\t");
  const stream = c.datamode === "stream";
  const delimited = stream && c.datatype === "utf8" && newline !== "";
  const budget = ctx.services.workLimits?.responseBudget(ctx.organizationId);
  let socket: net.Socket | undefined;
  let reconnect: NodeJS.Timeout | undefined;
  let closing = false;
  const failures = distinctFailures(ctx);
  /** When the last quick reconnection (after a close that brought data) started. */
  let lastQuick = 0;
  const emit = (payload: Buffer | string, session: { type: "tcp"; id: string }) => ctx.send({ _msgid: ctx.newMessageId(), topic: c.topic, payload, _session: session });

  const setup = () => {
    if (closing) return;
    if (!c.host || !port) {
      ctx.log.warn("Host and/or port not set");
      return;
    }
    // Node-RED's RED.util.generateId(): 8 random bytes in hex.
    const session = { type: "tcp" as const, id: randomBytes(8).toString("hex") };
    const decoder = c.datatype === "utf8" ? new StringDecoder("utf8") : undefined;
    const text = delimited ? new DelimitedText(newline, MAX_ANSWER_BYTES) : undefined;
    let chunks: Buffer[] = [];
    let size = 0;
    /** Something arrived that the close sends: reconnect at once (Node-RED's `end`). */
    let sentAtEnd = false;
    const client = startClient(ctx, { host: c.host, port, tls: c.tls }, failures, () => {
      reconnect = setTimeout(setup, RECONNECT_MS);
    });
    if (!client) return;
    socket = client;

    const held = new BudgetHold(budget);
    let cancelReady: (() => void) | undefined;
    const release = () => {
      cancelReady?.();
      cancelReady = undefined;
      held.release();
    };
    /** Sends a message; while the flow is busy, the socket stops reading (the server waits). */
    const send = (payload: Buffer | string) => {
      emit(payload, session);
      if (!cancelReady && ctx.busy()) {
        client.pause();
        cancelReady = ctx.whenReady(() => {
          cancelReady = undefined;
          if (socket === client) client.resume();
        });
      }
    };
    const drop = (why: string) => {
      ctx.log.error(new Error(`${why} from ${c.host}:${port}; they are dropped and the connection closed`));
      chunks = [];
      size = 0;
      text?.clear();
      client.destroy();
    };
    const tooLarge = () => drop(`more than ${MAX_ANSWER_BYTES} bytes arrived ${stream ? "without the delimiter" : "in one message"}`);
    const noRoom = () => drop(`the organization's bytes being downloaded (at most ${budget?.max} at once, http request's responses included) left no room for what arrived`);
    client.on("data", (data: Buffer) => {
      if (socket !== client) return;
      if (!stream) {
        if (size + data.length > MAX_ANSWER_BYTES) {
          tooLarge();
          return;
        }
        if (!held.hold(size + data.length)) {
          noRoom();
          return;
        }
        chunks.push(data);
        size += data.length;
        return;
      }
      if (text) {
        let parts: string[];
        try {
          parts = text.push(decoder!.write(data));
        } catch {
          tooLarge();
          return;
        }
        if (!held.hold(text.heldBytes)) {
          noRoom();
          return;
        }
        for (const part of parts) send(c.trim ? part + newline : part);
        return;
      }
      if (c.datatype === "buffer") send(Buffer.from(data));
      else if (decoder) {
        const decoded = decoder.write(data);
        if (decoded !== "") send(decoded);
      } else send(data.toString("base64"));
    });
    client.on("end", () => {
      if (socket !== client) return;
      if (!stream && size > 0) {
        const bytes = Buffer.concat(chunks);
        sentAtEnd = true;
        send(c.datatype === "buffer" ? bytes : c.datatype === "utf8" ? bytes.toString("utf8") : bytes.toString("base64"));
      } else if (text) {
        const rest = text.take() + decoder!.end();
        if (rest !== "") {
          sentAtEnd = true;
          send(rest);
        }
      }
      chunks = [];
      size = 0;
      held.release();
    });
    client.on("close", () => {
      release();
      if (socket !== client) return;
      socket = undefined;
      client.destroy();
      ctx.status({ fill: "red", shape: "ring", text: "disconnected" });
      if (closing) return;
      // Node-RED reconnects 20 ms after a close that brought data (a server that answers and
      // closes); here at most once a second, so such a server is not called 50 times a second.
      let wait = RECONNECT_MS;
      if (sentAtEnd) {
        wait = Math.max(QUICK_RECONNECT_MS, lastQuick + MIN_QUICK_RECONNECT_GAP_MS - Date.now());
        lastQuick = Date.now() + wait;
      }
      reconnect = setTimeout(setup, wait);
    });
  };

  return {
    start() {
      setup();
    },
    close() {
      closing = true;
      clearTimeout(reconnect);
      socket?.destroy();
      socket = undefined;
      ctx.status(null);
    },
  };
});
