import dgram from "node:dgram";
import net from "node:net";
import type { AddressInfo } from "node:net";
import tls from "node:tls";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import type { ConfigNodeSnapshot } from "@/shared/config-nodes";
import { makeTestCertificates, type TestCertificates } from "@/test/tls-fixtures";
import { closingTestFlows, gateNode, variablesFrom } from "@/test/runtime-harness";
import { VariableSet } from "@/server/runtime/variables";
import { tcpInConfig, tcpOutConfig } from "./definition";
import { udpOutConfig } from "../udp-out/definition";
import { createOutboundRules } from "@/server/runtime/outbound";
import { MAX_TCP_REQUEST_CONNECTIONS, MIN_QUICK_RECONNECT_GAP_MS } from "./behaviour";
import { DEFAULT_WORK_LIMITS, WorkLimits } from "@/server/runtime/work-limits";

/**
 * tcp-request, tcp-out and udp-out (SPEC §23), through the nodes in a real engine against real local
 * servers: Node-RED's return modes (char, count, time, keep open with a delimiter, immediately),
 * msg.host/msg.port, Base64; and the outbound rules: 127.0.0.1 is refused by default (nothing
 * connects or arrives) and reached with OUTBOUND_ALLOW_PRIVATE (allowPrivate).
 */

const loadTestFlow = closingTestFlows();
const allowed = { outbound: createOutboundRules({ allowPrivate: true }) };
const strict = { outbound: createOutboundRules({ allowPrivate: false }) };
/** tcp-request → a sink, with the node's configuration. */
const requestFlow = (config: Record<string, unknown>, services: typeof allowed) =>
  loadTestFlow(
    [
      { id: "req", type: "tcp-request", config },
      { id: "out", type: "sink" },
    ],
    [{ source: "req", target: "out" }],
    services,
  );
/** The organization's variables as the engine reads them. */
const withVariables = (vars: Record<string, string>) => {
  const set = new VariableSet(new Map(Object.entries(vars).map(([name, value]) => [name, { value, secret: false }])), new Map());
  return variablesFrom({ current: () => set });
};

let server: net.Server;
let port = 0;
let connections = 0;
const received: string[] = [];
/** What the server answers to a chunk; `null`: nothing. */
let reply: (data: string, socket: net.Socket) => void = () => undefined;
/** What the server does with a new connection (tcp in: what it sends first). */
let greet: (socket: net.Socket, nth: number) => void = () => undefined;

beforeEach(async () => {
  connections = 0;
  received.length = 0;
  reply = () => undefined;
  greet = () => undefined;
  server = net.createServer((socket) => {
    connections++;
    greet(socket, connections);
    socket.on("data", (d) => {
      received.push(d.toString());
      reply(d.toString(), socket);
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterEach(() => {
  server.close();
});

const until = async (probe: () => boolean, timeoutMs = 3000) => {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe("tcp-request", () => {
  it("returns the answer up to a character, as a string, keeping the message's other properties", async () => {
    reply = (data, socket) => socket.write(`got ${data}\nafter`);
    const flow = await requestFlow({ server: "127.0.0.1", port: String(port), out: "char", splitc: "\\n", ret: "string" }, allowed);
    flow.send("req", { payload: "hello", topic: "t" });
    const [msg] = await flow.waitFor(1);
    expect(msg).toMatchObject({ payload: "got hello\n", topic: "t" });
  });

  it("returns a number of bytes (count), or what came within the time after the first byte (time), as Buffers", async () => {
    reply = (_data, socket) => socket.write(Buffer.from([1, 2, 3, 4, 5, 6]));
    const count = await requestFlow({ server: "127.0.0.1", port: String(port), out: "count", splitc: "4" }, allowed);
    count.send("req", { payload: "x" });
    expect([...((await count.waitFor(1))[0]!.payload as Buffer)]).toEqual([1, 2, 3, 4]);

    const time = await requestFlow({ server: "", port: "", out: "time", splitc: "50" }, allowed);
    time.send("req", { payload: "x", host: "127.0.0.1", port });
    expect([...((await time.waitFor(1))[0]!.payload as Buffer)]).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("keeps the connection open and splits the stream on a delimiter (sit), or sends without waiting (immed)", async () => {
    reply = (data, socket) => socket.write(`${data}-a\n${data}-b\n${data}-`);
    const sit = await requestFlow({ server: "127.0.0.1", port: String(port), out: "sit", ret: "string", newline: "\\n" }, allowed);
    sit.send("req", { payload: "one" });
    expect((await sit.waitFor(2)).map((m) => m.payload)).toEqual(["one-a", "one-b"]);
    sit.send("req", { payload: "two" });
    // The rest of the first answer ("one-") is completed by the second.
    expect((await sit.waitFor(4)).map((m) => m.payload)).toEqual(["one-a", "one-b", "one-two-a", "two-b"]);
    expect(connections).toBe(1);

    // A two-character delimiter split across chunks, and text that waits for it over several chunks.
    reply = (_data, socket) => {
      socket.write("ab\r");
      setTimeout(() => socket.write("\nc"), 30);
      setTimeout(() => socket.write("d"), 60);
      setTimeout(() => socket.write("e\r\n"), 90);
    };
    const crlf = await requestFlow({ server: "127.0.0.1", port: String(port), out: "sit", ret: "string", newline: "\\r\\n" }, allowed);
    crlf.send("req", { payload: "go" });
    expect((await crlf.waitFor(2)).map((m) => m.payload)).toEqual(["ab", "cde"]);

    const immed = await requestFlow({ server: "127.0.0.1", port: String(port), out: "immed" }, allowed);
    immed.send("req", { payload: "fire and forget" });
    await until(() => received.includes("fire and forget"));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(immed.received).toEqual([]);
  });

  it("takes an answer from large chunks up to the byte that ends it (count, char), the rest dropped as Node-RED's", async () => {
    // 4 MiB in one write arrives as many chunks; the answer ends inside one of them.
    const big = Buffer.alloc(4 * 1024 * 1024, 0x61);
    big[3 * 1024 * 1024 + 5] = 0x0a;
    reply = (_data, socket) => socket.write(big);
    const char = await requestFlow({ server: "127.0.0.1", port: String(port), out: "char", splitc: "\\n" }, allowed);
    char.send("req", { payload: "x" });
    const [byChar] = await char.waitFor(1);
    expect((byChar!.payload as Buffer).length).toBe(3 * 1024 * 1024 + 6);
    expect((byChar!.payload as Buffer).at(-1)).toBe(0x0a);

    const count = await requestFlow({ server: "127.0.0.1", port: String(port), out: "count", splitc: String(2 * 1024 * 1024 + 1) }, allowed);
    count.send("req", { payload: "x" });
    expect(((await count.waitFor(1))[0]!.payload as Buffer).length).toBe(2 * 1024 * 1024 + 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(count.received).toHaveLength(1);
  });

  it("an answer over 16 MiB is the node's error, and so is a kept connection's text without its delimiter", async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    reply = (_data, socket) => {
      for (let i = 0; i < 17; i++) socket.write(chunk);
    };
    const char = await requestFlow({ server: "127.0.0.1", port: String(port), out: "char", splitc: "\\n" }, allowed);
    char.send("req", { payload: "x" });
    await until(() => char.errors.length > 0, 10_000);
    expect(char.errors[0]!.error).toMatch(/larger than 16777216 bytes/);
    expect(char.received).toEqual([]);

    const sit = await requestFlow({ server: "127.0.0.1", port: String(port), out: "sit", ret: "string", newline: "\\n" }, allowed);
    sit.send("req", { payload: "x" });
    await until(() => sit.errors.length > 0, 10_000);
    expect(sit.errors[0]!.error).toMatch(/larger than 16777216 bytes/);
    expect(sit.received).toEqual([]);
  });

  it("holds an answer in the organization's bytes being downloaded: given back once sent; past them, the node's error and nothing sent", async () => {
    const workLimits = new WorkLimits({ ...DEFAULT_WORK_LIMITS, responseBytesPerOrganization: 16 * 1024 });
    const budget = workLimits.responseBudget("org_test");
    reply = (data, socket) => socket.write(data === "small" ? "x".repeat(1000) : Buffer.alloc(1024 * 1024, 0x63));
    const flow = await requestFlow({ server: "127.0.0.1", port: String(port), out: "count", splitc: "1000", ret: "string" }, { ...allowed, workLimits } as typeof allowed);
    flow.send("req", { payload: "small" });
    expect((await flow.waitFor(1))[0]!.payload).toBe("x".repeat(1000));
    expect(budget.held).toBe(0);
    const large = await requestFlow({ server: "127.0.0.1", port: String(port), out: "count", splitc: String(1024 * 1024), ret: "buffer" }, { ...allowed, workLimits } as typeof allowed);
    large.send("req", { payload: "large" });
    await until(() => large.errors.length > 0, 5000);
    expect(large.errors[0]!.error).toMatch(/the organization's bytes being downloaded \(at most 16384 at once, http request's responses included\) left no room for the answer from 127\.0\.0\.1:\d+/);
    expect(budget.held).toBe(0);
    expect(large.received).toEqual([]);
  });

  it("keeps at most 100 connections open: a message for another host and port is the node's error", async () => {
    // A server on every address of the machine: 127.0.x.y are all this machine's, each a host:port of its own.
    let accepted = 0;
    const wide = net.createServer((socket) => {
      accepted++;
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => wide.listen(0, "0.0.0.0", resolve));
    const widePort = (wide.address() as AddressInfo).port;
    onTestFinished(() => {
      wide.close();
    });
    const flow = await requestFlow({ out: "sit" }, allowed);
    // 100 distinct ids (host:port) for the one server: 127.0.0.x all reach it on loopback.
    for (let i = 1; i <= MAX_TCP_REQUEST_CONNECTIONS; i++) flow.send("req", { payload: "x", host: `127.0.${Math.floor(i / 250)}.${(i % 250) + 1}`, port: widePort });
    await until(() => accepted === MAX_TCP_REQUEST_CONNECTIONS, 10_000).catch((err: Error) => {
      throw new Error(`${err.message}: ${accepted} connections, errors ${JSON.stringify(flow.errors.slice(0, 2))}`);
    });
    flow.send("req", { payload: "x", host: "127.0.9.9", port: widePort });
    await until(() => flow.errors.length > 0);
    expect(flow.errors[0]!.error).toMatch(/this node has 100 connections open, its limit: 127\.0\.9\.9:\d+ is not connected/);
    expect(accepted).toBe(MAX_TCP_REQUEST_CONNECTIONS);
    // A reset closes them, and the next one connects.
    flow.send("req", { reset: true });
    flow.send("req", { payload: "x", host: "127.0.9.9", port: widePort });
    await until(() => accepted === MAX_TCP_REQUEST_CONNECTIONS + 1);
  }, 20_000);

  it("refuses a private address by default: an error naming it, and nothing connects", async () => {
    const flow = await requestFlow({}, strict);
    flow.send("req", { payload: "x", host: "127.0.0.1", port });
    await until(() => flow.errors.length > 0);
    expect(flow.errors[0]!.error).toMatch(/127\.0\.0\.1 is a private or reserved address/);
    expect(flow.statuses.map((s) => s.status)).toContainEqual({ fill: "red", shape: "ring", text: "error" });
    // A host name resolving to it is refused too, by the lookup.
    flow.send("req", { payload: "x", host: "localhost", port });
    await until(() => flow.errors.some((e) => /localhost resolves to .*private or reserved/.test(e.error)));
    expect(connections).toBe(0);
  });
});

describe("tcp-out (client)", () => {
  it("connects when the flow starts and writes each payload (Base64 decoded)", async () => {
    const flow = await loadTestFlow([{ id: "out", type: "tcp-out", config: { host: "127.0.0.1", port: String(port), base64: true } }], [], allowed);
    await until(() => flow.statuses.some((s) => s.status?.text === "connected"));
    flow.send("out", { payload: Buffer.from("over tcp").toString("base64") });
    await until(() => received.join("") === "over tcp");
  });

  it("a host and port written as ${NAME} are the variables' values, as Node-RED maps them when the node starts", async () => {
    expect(tcpOutConfig.safeParse({ host: "${TCP_HOST}", port: "${TCP_PORT}" }).success).toBe(true);
    expect(tcpOutConfig.safeParse({ port: "x${TCP_PORT}" }).success).toBe(false);
    const flow = await loadTestFlow([{ id: "out", type: "tcp-out", config: { host: "${TCP_HOST}", port: "${TCP_PORT}" } }], [], allowed, {}, withVariables({ TCP_HOST: "127.0.0.1", TCP_PORT: String(port) }));
    await until(() => flow.statuses.some((s) => s.status?.text === "connected"));
    flow.send("out", { payload: "by variables" });
    await until(() => received.join("") === "by variables");
  });

  it("refuses a private address by default: it warns why, and nothing connects", async () => {
    const flow = await loadTestFlow([{ id: "out", type: "tcp-out", config: { host: "127.0.0.1", port: String(port) } }], [], strict);
    await until(() => flow.errors.length > 0);
    expect(flow.errors[0]!.error).toMatch(/127\.0\.0\.1 is a private or reserved address/);
    flow.send("out", { payload: "nothing" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(connections).toBe(0);
  });
});

describe("tcp-in (client)", () => {
  /** tcp-in → a sink. */
  const inFlow = (config: Record<string, unknown>, services = allowed, variables?: ReturnType<typeof withVariables>) =>
    loadTestFlow([{ id: "in", type: "tcp-in", config: { host: "127.0.0.1", port: String(port), ...config } }, { id: "out", type: "sink" }], [{ source: "in", target: "out" }], services, {}, variables);
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** Writes each piece as its own chunk (a pause between), then, if asked, ends the connection. */
  const script = (pieces: Array<string | Buffer>, end: boolean) => async (socket: net.Socket, nth: number) => {
    if (nth > 1) return; // the reconnection hears nothing
    for (const piece of pieces) {
      socket.write(piece);
      await pause(30);
    }
    if (end) socket.end();
  };

  it("as a stream of delimited text: a message per part with the topic and the connection's _session, the rest when the server closes; then it reconnects at once", async () => {
    greet = script(["alpha\nbe", "ta\ngam", "ma"], true);
    const flow = await inFlow({ datamode: "stream", datatype: "utf8", newline: "\\n", topic: "lines" });
    const messages = await flow.waitFor(3);
    expect(messages.map((m) => m.payload)).toEqual(["alpha", "beta", "gamma"]);
    expect(messages[0]).toMatchObject({ topic: "lines", _session: { type: "tcp", id: expect.stringMatching(/^[0-9a-f]{16}$/) } });
    expect(new Set(messages.map((m) => (m._session as { id: string }).id)).size).toBe(1);
    // Something came with the close: Node-RED reconnects after 20 ms, not 10 s.
    await until(() => connections === 2, 2000);
    expect(flow.statuses.filter((s) => s.nodeId === "in").map((s) => s.status?.text)).toEqual(expect.arrayContaining(["connecting", "connected", "disconnected"]));
  });

  it("re-attaches the delimiter when asked; a stream without one is a message per chunk, as a Buffer or Base64", async () => {
    greet = script(["one\r\ntwo\r\n"], false);
    const kept = await inFlow({ datamode: "stream", datatype: "utf8", newline: "\\r\\n", trim: true });
    expect((await kept.waitFor(2)).map((m) => m.payload)).toEqual(["one\r\n", "two\r\n"]);
    await kept.close();
    connections = 0;
    greet = script(["first", "second"], false);
    const buffers = await inFlow({ datamode: "stream", datatype: "buffer" });
    const chunks = await buffers.waitFor(2);
    expect(chunks.map((m) => Buffer.isBuffer(m.payload) && m.payload.toString())).toEqual(["first", "second"]);
    await buffers.close();
    connections = 0;
    greet = script([Buffer.from([0, 1, 2, 250])], false);
    const base64 = await inFlow({ datamode: "stream", datatype: "base64" });
    expect((await base64.waitFor(1))[0]!.payload).toBe(Buffer.from([0, 1, 2, 250]).toString("base64"));
  });

  it("as a single message: all that came, sent when the server closes; a character split between chunks is whole", async () => {
    const e = Buffer.from("é");
    greet = script([Buffer.concat([Buffer.from("caf"), e.subarray(0, 1)]), Buffer.concat([e.subarray(1), Buffer.from(" au lait")])], true);
    const flow = await inFlow({ datamode: "single", datatype: "utf8" });
    const [msg] = await flow.waitFor(1);
    expect(msg!.payload).toBe("café au lait");
  });

  it("refuses more than 16 MiB as one message: the node's error, nothing sent", async () => {
    greet = (socket, nth) => {
      if (nth === 1) socket.end(Buffer.alloc(17 * 1024 * 1024, 0x61));
    };
    const flow = await inFlow({ datamode: "single", datatype: "buffer" });
    await until(() => flow.errors.length > 0, 10_000);
    expect(flow.errors[0]!.error).toMatch(/more than 16777216 bytes arrived in one message from 127\.0\.0\.1:\d+; they are dropped and the connection closed/);
    await pause(100);
    expect(flow.received).toEqual([]);
  });

  it("a server that answers and closes every time is called again after 20 ms once, then at most once a second (Node-RED: every 20 ms)", async () => {
    greet = (socket) => socket.end("x");
    const flow = await inFlow({ datamode: "single", datatype: "utf8" });
    await flow.waitFor(2, 2000);
    const second = Date.now();
    expect(connections).toBe(2);
    await until(() => connections === 3, MIN_QUICK_RECONNECT_GAP_MS + 1000);
    expect(Date.now() - second).toBeGreaterThanOrEqual(MIN_QUICK_RECONNECT_GAP_MS - 100);
    expect(flow.received.map((m) => m.payload)).toEqual(expect.arrayContaining(["x", "x"]));
  });

  it("counts what it holds against the organization's bytes being downloaded: past them, the node's error, nothing sent, the bytes given back", async () => {
    const workLimits = new WorkLimits({ ...DEFAULT_WORK_LIMITS, responseBytesPerOrganization: 16 * 1024 });
    greet = (socket, nth) => {
      if (nth === 1) socket.end(Buffer.alloc(1024 * 1024, 0x62));
    };
    const flow = await inFlow({ datamode: "single", datatype: "buffer" }, { ...allowed, workLimits } as typeof allowed);
    await until(() => flow.errors.length > 0, 5000);
    expect(flow.errors[0]!.error).toMatch(/the organization's bytes being downloaded \(at most 16384 at once, http request's responses included\) left no room/);
    expect(workLimits.responseBudget("org_test").held).toBe(0);
    await pause(100);
    expect(flow.received).toEqual([]);
  });

  it("while the flow is busy, it stops reading (the server waits); as the flow catches up every line arrives, in order", async () => {
    const gate = gateNode();
    greet = async (socket, nth) => {
      if (nth > 1) return;
      for (let i = 0; i < 40 && socket.writable; i++) {
        socket.write(`line ${i}\n`);
        await pause(5);
      }
    };
    const flow = await loadTestFlow(
      [
        { id: "in", type: "tcp-in", config: { host: "127.0.0.1", port: String(port), datatype: "utf8", newline: "\\n" } },
        { id: "hold", type: "hold" },
        { id: "out", type: "sink" },
      ],
      [
        { source: "in", target: "hold" },
        { source: "hold", target: "out" },
      ],
      allowed,
      { hold: gate.factory },
      { highWaterMark: 4 },
    );
    await pause(800);
    // Paused: the flow holds about its high-water mark (and the lines of the chunk that crossed it).
    expect(gate.held()).toBeGreaterThanOrEqual(4);
    expect(gate.held()).toBeLessThan(30);
    gate.release();
    await flow.waitFor(40, 5000);
    expect(flow.received.map((m) => m.payload)).toEqual(Array.from({ length: 40 }, (_, i) => `line ${i}`));
  });

  it("a host and port written as ${NAME} are the variables' values; a private address is refused by default and nothing connects", async () => {
    expect(tcpInConfig.safeParse({ host: "${TCP_HOST}", port: "${TCP_PORT}" }).success).toBe(true);
    expect(tcpInConfig.safeParse({ server: "server", port: "9000" }).success).toBe(false);
    greet = script(["by variables"], false);
    const flow = await inFlow({ host: "${TCP_HOST}", port: "${TCP_PORT}", datatype: "utf8" }, allowed, withVariables({ TCP_HOST: "127.0.0.1", TCP_PORT: String(port) }));
    expect((await flow.waitFor(1))[0]!.payload).toBe("by variables");
    await flow.close();
    connections = 0;
    const refused = await inFlow({}, strict);
    await until(() => refused.errors.length > 0);
    expect(refused.errors[0]!.error).toMatch(/127\.0\.0\.1 is a private or reserved address/);
    await pause(100);
    expect(connections).toBe(0);
  });
});

describe("tcp-in, tcp-request and tcp-out over TLS (a tls-config)", () => {
  let pem: TestCertificates;
  let secure: tls.Server;
  let securePort = 0;
  const heard: string[] = [];
  beforeAll(async () => {
    pem = makeTestCertificates();
    // Greets each connection with a line, and echoes what it is sent.
    secure = tls.createServer({ cert: pem.serverCert, key: pem.serverKey }, (socket) => {
      socket.on("error", () => undefined);
      socket.write("secure hello\n");
      socket.on("data", (d) => {
        heard.push(d.toString());
        socket.write(d);
      });
    });
    await new Promise<void>((resolve) => secure.listen(0, "127.0.0.1", resolve));
    securePort = (secure.address() as AddressInfo).port;
  });
  afterAll(() => secure.close());
  const seal = (value: string) => `sealed:${Buffer.from(value).toString("base64")}`;
  const services = { ...allowed, openCredential: (sealed: string) => Buffer.from(sealed.slice("sealed:".length), "base64").toString("utf8") };
  /** The server's certificate names localhost only: 127.0.0.1 is reached with that server name (and, trusted, the test CA). */
  const tlsConfig = (id: string, ca?: string): ConfigNodeSnapshot => ({ id, type: "tls-config", name: "", config: { servername: "localhost" }, revision: 1, sealed_credentials: ca ? { cadata: seal(ca) } : {} });

  it("tcp-in reads the lines of a TLS server it trusts through the tls-config's CA", async () => {
    const flow = await loadTestFlow(
      [{ id: "in", type: "tcp-in", config: { host: "127.0.0.1", port: String(securePort), datatype: "utf8", newline: "\\n", tls: "tls1" } }, { id: "out", type: "sink" }],
      [{ source: "in", target: "out" }],
      services,
      {},
      { configNodes: { tls1: tlsConfig("tls1", pem.ca) } },
    );
    expect((await flow.waitFor(1, 5000))[0]!.payload).toBe("secure hello");
  });

  it("tcp-request and tcp-out talk to it too; without the CA the connection is refused and nothing is sent", async () => {
    const flow = await loadTestFlow(
      [{ id: "req", type: "tcp-request", config: { server: "127.0.0.1", port: String(securePort), out: "char", splitc: "!", ret: "string", tls: "tls1" } }, { id: "out", type: "sink" }],
      [{ source: "req", target: "out" }],
      services,
      {},
      { configNodes: { tls1: tlsConfig("tls1", pem.ca) } },
    );
    flow.send("req", { payload: "ping!" });
    // The greeting comes first, then the echo: the answer ends at the first "!".
    expect((await flow.waitFor(1, 5000))[0]!.payload).toBe("secure hello\nping!");
    const out = await loadTestFlow([{ id: "o", type: "tcp-out", config: { host: "127.0.0.1", port: String(securePort), tls: "tls1" } }], [], services, {}, { configNodes: { tls1: tlsConfig("tls1", pem.ca) } });
    await until(() => out.statuses.some((st) => st.nodeId === "o" && st.status?.text === "connected"), 5000);
    out.send("o", { payload: "over tls" });
    await until(() => heard.includes("over tls"), 5000);
    const refused = await loadTestFlow(
      [{ id: "in", type: "tcp-in", config: { host: "127.0.0.1", port: String(securePort), datatype: "utf8", tls: "tls2" } }, { id: "out", type: "sink" }],
      [{ source: "in", target: "out" }],
      services,
      {},
      { configNodes: { tls2: tlsConfig("tls2") } },
    );
    await until(() => refused.errors.length > 0, 5000);
    expect(refused.errors[0]!.error).toMatch(/self[- ]signed|unable to verify|certificate/i);
    expect(refused.received).toEqual([]);
  });

  it("a tls-config the flow lacks is the node's error, and the node shows disconnected", async () => {
    const flow = await loadTestFlow([{ id: "in", type: "tcp-in", config: { host: "127.0.0.1", port: String(securePort), tls: "gone" } }], [], services);
    await until(() => flow.errors.length > 0);
    expect(flow.errors[0]).toEqual({ nodeId: "in", error: "configuration node gone (tls-config) is not part of this deployment" });
    await until(() => flow.statuses.some((st) => st.status?.text === "disconnected"));
  });
});

describe("udp-out", () => {
  let udp: dgram.Socket;
  let udpPort = 0;
  const datagrams: string[] = [];
  beforeEach(async () => {
    datagrams.length = 0;
    udp = dgram.createSocket("udp4");
    udp.on("message", (m) => datagrams.push(m.toString()));
    await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", resolve));
    udpPort = udp.address().port;
  });
  afterEach(() => udp.close());

  it("sends the payload to the node's address, or to msg.ip and msg.port", async () => {
    const flow = await loadTestFlow([{ id: "u", type: "udp-out", config: { addr: "127.0.0.1", port: String(udpPort) } }], [], allowed);
    flow.send("u", { payload: "datagram" });
    await until(() => datagrams.includes("datagram"));
    const dynamic = await loadTestFlow([{ id: "u", type: "udp-out", config: {} }], [], allowed);
    dynamic.send("u", { payload: { a: 1 }, ip: "127.0.0.1", port: udpPort });
    await until(() => datagrams.includes("[object Object]"));
  });

  it("an address and port written as ${NAME} are the variables' values", async () => {
    expect(udpOutConfig.safeParse({ addr: "${UDP_HOST}", port: "${UDP_PORT}" }).success).toBe(true);
    const flow = await loadTestFlow([{ id: "u", type: "udp-out", config: { addr: "${UDP_HOST}", port: "${UDP_PORT}" } }], [], allowed, {}, withVariables({ UDP_HOST: "127.0.0.1", UDP_PORT: String(udpPort) }));
    flow.send("u", { payload: "by variables" });
    await until(() => datagrams.includes("by variables"));
  });

  it("refuses a private address by default, and broadcast or multicast, with an error; nothing arrives", async () => {
    const flow = await loadTestFlow([{ id: "u", type: "udp-out", config: { addr: "127.0.0.1", port: String(udpPort) } }], [], strict);
    flow.send("u", { payload: "no" });
    await until(() => flow.errors.length > 0);
    expect(flow.errors[0]!.error).toMatch(/127\.0\.0\.1 is a private or reserved address/);
    const broadcast = await loadTestFlow([{ id: "u", type: "udp-out", config: { addr: "255.255.255.255", port: String(udpPort), multicast: "broad" } }], [], strict);
    broadcast.send("u", { payload: "no" });
    await until(() => broadcast.errors.length > 0);
    expect(broadcast.errors[0]!.error).toMatch(/broadcast and multicast are not allowed/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(datagrams).toEqual([]);
  });
});
