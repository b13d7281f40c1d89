import http from "node:http";
import net from "node:net";
import { digestCompute } from "@/server/nodes/http-request/digest";

/**
 * A server the differential cases' http request nodes call, on both sides (Node-RED's recording and
 * our test): it answers every request with what it received, as JSON, so a case compares the
 * request a node made (its method, URL, headers and body) through the response the node puts in
 * msg.payload. Headers each HTTP client chooses for itself (user-agent, accept-encoding, connection,
 * host) are left out. `/redirect` answers 302 to `/echo`; `/slow?ms=N` answers after N ms;
 * `/set-cookie` echoes and sets cookies (SET_COOKIES); `/redirect-cookie` sets one and answers 302 to
 * `/echo`; `/digest?algorithm=…&qop=…` asks for Digest authentication (user "user", password "pass")
 * and echoes the answer's fields but its random ones (cnonce, response) with whether it was right. A multipart body's boundary, random on each side, is written `BOUNDARY`. A fixed port in
 * this work's range (the recording's Node-RED serves on 4103).
 */
export const ECHO_PORT = 4104;
export const ECHO_URL = `http://127.0.0.1:${ECHO_PORT}`;
/**
 * TCP servers beside it for the cases' tcp in nodes: on LINES, every connection is sent LINES_SCRIPT
 * in two chunks (the first 250 ms after it connects) and kept open; on CLOSING, the first connection is sent "one\ntwo" and closed, later
 * ones nothing (a tcp in reconnects after a close; only one case uses it).
 */
export const ECHO_TCP_LINES_PORT = 4105;
export const ECHO_TCP_CLOSING_PORT = 4106;
/** The cases' tcp request nodes: every chunk a connection sends comes back on it. */
export const ECHO_TCP_ECHO_PORT = 4107;
const LINES_SCRIPT = ["alpha\nbe", "ta\ngamma\n"];
const TALK_AFTER_MS = 250;

/** What `/set-cookie` sets: a URI-encoded value with a path and HttpOnly, one with Max-Age and SameSite, one with an Expires date (its commas). */
export const SET_COOKIES = ["session=abc%20def; Path=/; HttpOnly", "theme=dark; Max-Age=3600; SameSite=Lax", "seen=yes; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Path=/echo"];

const CLIENTS_OWN = new Set(["host", "connection", "user-agent", "accept-encoding", "accept", "keep-alive", "transfer-encoding"]);

/** Started on ECHO_PORT unless given another (0: any free port, for tests beside the differential one); `url` says where. */
export async function startEchoServer(port = ECHO_PORT): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers)
          .filter(([name]) => !CLIENTS_OWN.has(name))
          .sort(([a], [b]) => a.localeCompare(b)),
      );
      let body = Buffer.concat(chunks);
      const boundary = /boundary=(\S+)/.exec(String(headers["content-type"] ?? ""))?.[1];
      if (boundary) {
        headers["content-type"] = String(headers["content-type"]).replace(boundary, "BOUNDARY");
        body = Buffer.from(body.toString("latin1").split(boundary).join("BOUNDARY"), "latin1");
      }
      const url = new URL(req.url ?? "/", "http://echo");
      if (url.pathname === "/redirect" || url.pathname === "/redirect-cookie") {
        res.sendDate = false;
        res.writeHead(302, { location: "/echo", "content-length": "0", ...(url.pathname === "/redirect-cookie" ? { "set-cookie": ["hop=1; Path=/"] } : {}) });
        res.end();
        return;
      }
      if (url.pathname === "/digest") {
        res.sendDate = false;
        const authorization = req.headers.authorization;
        if (!authorization?.startsWith("Digest ")) {
          const algorithm = url.searchParams.get("algorithm");
          const qop = url.searchParams.get("qop") ?? "auth";
          const challenge = [`realm="echo"`, qop === "none" ? "" : `qop="${qop}"`, `nonce="n0nce"`, `opaque="0paque"`, algorithm ? `algorithm=${algorithm}` : ""].filter(Boolean).join(", ");
          res.writeHead(401, { "www-authenticate": `Digest ${challenge}`, "content-type": "text/plain" });
          res.end("who are you?");
          return;
        }
        const { valid, fields } = checkDigest(authorization, "pass", req.method ?? "GET");
        const shown = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, k === "cnonce" || k === "response" ? `(${v.length} characters)` : v]));
        res.writeHead(valid ? 200 : 403, { "content-type": "application/json" });
        res.end(JSON.stringify({ method: req.method, url: req.url, valid, order: Object.keys(fields), fields: shown, body: body.length > 0 ? body.toString("utf8") : null }));
        return;
      }
      const wait = url.pathname === "/slow" ? Math.min(Number(url.searchParams.get("ms")) || 0, 10_000) : 0;
      const answer = JSON.stringify({ method: req.method, url: req.url, headers, body: body.length > 0 ? body.toString("utf8") : null });
      const reply = () => {
        if (res.destroyed) return;
        res.sendDate = false;
        res.writeHead(200, { "content-type": "application/json", "x-echo": "yes", ...(url.pathname === "/set-cookie" ? { "set-cookie": SET_COOKIES } : {}) });
        res.end(answer);
      };
      if (wait > 0) setTimeout(reply, wait).unref();
      else reply();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const talkers = port === ECHO_PORT ? await startTcpTalkers() : [];
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: async () => {
      await Promise.all(
        talkers.map(
          ({ server: talker, sockets }) =>
            new Promise<void>((resolve) => {
              for (const socket of sockets) socket.destroy();
              talker.close(() => resolve());
            }),
        ),
      );
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

async function startTcpTalkers(): Promise<Array<{ server: net.Server; sockets: Set<net.Socket> }>> {
  const talk = (port: number, onConnection: (socket: net.Socket, nth: number) => void) =>
    new Promise<{ server: net.Server; sockets: Set<net.Socket> }>((resolve, reject) => {
      const sockets = new Set<net.Socket>();
      let count = 0;
      const talker = net.createServer((socket) => {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
        socket.on("error", () => undefined);
        onConnection(socket, ++count);
      });
      talker.once("error", reject);
      talker.listen(port, "127.0.0.1", () => resolve({ server: talker, sockets }));
    });
  return Promise.all([
    // After a pause: a case starts collecting once its flow has started, which a tcp in's connection may beat.
    talk(ECHO_TCP_LINES_PORT, (socket) => {
      setTimeout(() => socket.writable && socket.write(LINES_SCRIPT[0]!), TALK_AFTER_MS).unref();
      setTimeout(() => socket.writable && socket.write(LINES_SCRIPT[1]!), TALK_AFTER_MS + 30).unref();
    }),
    talk(ECHO_TCP_CLOSING_PORT, (socket, nth) => {
      if (nth === 1) setTimeout(() => socket.writable && socket.end("one\ntwo"), TALK_AFTER_MS).unref();
    }),
    talk(ECHO_TCP_ECHO_PORT, (socket) => {
      socket.on("data", (data: Buffer) => socket.writable && socket.write(data));
    }),
  ]);
}

/** What a server checks of a Digest answer (the echo server's `/digest`): whether it is right for this password, and its fields. */
export function checkDigest(header: string, password: string, method: string): { valid: boolean; fields: Record<string, string> } {
  const fields: Record<string, string> = {};
  const re = /([a-z0-9_-]+)=(?:"([^"]*)"|([^\s,]+))/gi;
  const body = header.replace(/^Digest\s+/i, "");
  for (let match = re.exec(body); match; match = re.exec(body)) fields[match[1]!] = match[2] ?? match[3]!;
  let ha1 = digestCompute(fields.algorithm, `${fields.username}:${fields.realm}:${password}`);
  if (fields.algorithm && /-sess$/i.test(fields.algorithm)) ha1 = digestCompute(fields.algorithm, `${ha1}:${fields.nonce}:${fields.cnonce}`);
  const ha2 = digestCompute(fields.algorithm, `${method}:${fields.uri}`);
  const expected = fields.qop ? digestCompute(fields.algorithm, `${ha1}:${fields.nonce}:${fields.nc}:${fields.cnonce}:${fields.qop}:${ha2}`) : digestCompute(fields.algorithm, `${ha1}:${fields.nonce}:${ha2}`);
  return { valid: expected === fields.response, fields };
}
