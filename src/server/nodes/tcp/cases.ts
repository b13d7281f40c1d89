import type { DiffCase } from "@/test/node-red-diff/types";
import { ECHO_TCP_CLOSING_PORT, ECHO_TCP_ECHO_PORT, ECHO_TCP_LINES_PORT } from "@/test/node-red-diff/echo-server";

/**
 * tcp in connecting out (Node-RED's `server: "client"`) to the echo server's TCP talkers
 * (echo-server.ts): LINES sends "alpha\nbe" then "ta\ngamma\n" and stays open; CLOSING sends
 * "one\ntwo" and closes. Chunking over loopback is not fixed, so only cases whose messages do not
 * depend on it: delimited text, and a single message at the close. tcp request talks to ECHO, which
 * sends back what it is sent.
 */
const tcpIn = (id: string, port: number, props: Record<string, unknown>) => ({
  id,
  type: "tcp in",
  name: "",
  server: "client",
  host: "127.0.0.1",
  port: String(port),
  datamode: "stream",
  datatype: "utf8",
  newline: "",
  topic: "",
  trim: false,
  base64: false,
  tls: "",
  wires: [["out"]],
  ...props,
});
const randomSession = { ignore: ["_session.id"], ignoreWhy: "the connection's id is random on both sides (RED.util.generateId; ours is 16 hex digits too, tcp.test.ts)" };

const tcpRequest = (id: string, props: Record<string, unknown>) => ({
  id,
  type: "tcp request",
  name: "",
  server: "127.0.0.1",
  port: String(ECHO_TCP_ECHO_PORT),
  out: "time",
  ret: "buffer",
  splitc: "0",
  newline: "",
  trim: false,
  tls: "",
  wires: [["out"]],
  ...props,
});

export const cases: DiffCase[] = [
  {
    name: "tcp request: the answer up to a character, as a string, the message's other properties kept",
    nodes: [tcpRequest("r1", { out: "char", splitc: "\\n", ret: "string" })],
    echo: true,
    send: [{ msg: { payload: "ping\nrest", topic: "t" } }],
    expect: 1,
  },
  {
    name: "tcp request: a number of bytes, as a Buffer",
    nodes: [tcpRequest("r2", { out: "count", splitc: "3" })],
    echo: true,
    send: [{ msg: { payload: "abcdef" } }],
    expect: 1,
  },
  {
    name: "tcp request: what came within the time, as a string",
    nodes: [tcpRequest("r3", { out: "time", splitc: "100", ret: "string" })],
    echo: true,
    send: [{ msg: { payload: "hello" } }],
    expect: 1,
  },
  {
    name: "tcp request: kept open, a message per delimited part, the rest kept",
    nodes: [tcpRequest("r4", { out: "sit", ret: "string", newline: "\\n" })],
    echo: true,
    send: [{ msg: { payload: "a\nb\nc" } }],
    expect: 2,
  },
  {
    name: "tcp request: to msg.host and msg.port when the node names none",
    nodes: [tcpRequest("r5", { server: "", port: "", out: "char", splitc: "\\n", ret: "string" })],
    echo: true,
    send: [{ msg: { payload: "dynamic\n", host: "127.0.0.1", port: ECHO_TCP_ECHO_PORT } }],
    expect: 1,
  },
  {
    name: "tcp in: a stream of delimited text, a message per line with the topic and the connection's _session",
    nodes: [tcpIn("t1", ECHO_TCP_LINES_PORT, { newline: "\\n", topic: "lines" })],
    echo: true,
    send: [],
    expect: 3,
    ...randomSession,
  },
  {
    name: "tcp in: the delimiter re-attached",
    nodes: [tcpIn("t2", ECHO_TCP_LINES_PORT, { newline: "\\n", trim: true })],
    echo: true,
    send: [],
    expect: 3,
    ...randomSession,
  },
  {
    name: "tcp in: a single message, all that came, when the server closes the connection",
    nodes: [tcpIn("t3", ECHO_TCP_CLOSING_PORT, { datamode: "single" })],
    echo: true,
    send: [],
    expect: 1,
    ...randomSession,
  },
];
