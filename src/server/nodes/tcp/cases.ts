import type { DiffCase } from "@/test/node-red-diff/types";
import { ECHO_TCP_CLOSING_PORT, ECHO_TCP_LINES_PORT } from "@/test/node-red-diff/echo-server";

/**
 * tcp in connecting out (Node-RED's `server: "client"`) to the echo server's TCP talkers
 * (echo-server.ts): LINES sends "alpha\nbe" then "ta\ngamma\n" and stays open; CLOSING sends
 * "one\ntwo" and closes. Chunking over loopback is not fixed, so only cases whose messages do not
 * depend on it: delimited text, and a single message at the close.
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

export const cases: DiffCase[] = [
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
