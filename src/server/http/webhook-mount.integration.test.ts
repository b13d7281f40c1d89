/**
 * The webhooks as the custom server mounts them (http/direct-mount.ts, serveWebhooks): Node's
 * request and response, no fetch objects, on a real port. What a flow sees of the request is what
 * Express gives Node-RED's http in (headers in the order they came, a repeated Content-Type as its
 * first value); what the mount answers is what the fetch mount answered (status, security headers,
 * a flow's odd header dropped, never a 500), and a body it does not read closes the connection.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { restClient } from "@/test/app";
import { listenWithRequestListener, type ListeningServer } from "@/test/listening-server";

const testApp = setUpTestApp();
let server: ListeningServer | undefined;
let port = 0;
let slug = "";

beforeAll(async () => {
  const app = testApp.app;
  const rest = restClient(app);
  const user = await signUp(rest);
  ({ slug } = await app.db.prisma.organization.findUniqueOrThrow({ where: { id: user.organizationId } }));
  const created = await rest("POST", "/flows", {
    token: user.accessToken,
    body: {
      name: "mount",
      nodes: [
        { id: "echo-in", type: "http-in", config: { method: "post", path: "/echo" } },
        { id: "echo-fn", type: "function", config: { code: "msg.payload = { headers: msg.req.headers, query: msg.req.query, body: msg.payload }; return msg;" } },
        { id: "echo-out", type: "http-response", config: {} },
        { id: "odd-in", type: "http-in", config: { method: "get", path: "/odd" } },
        { id: "odd-fn", type: "function", config: { code: "msg.headers = { 'x-odd': 'a\\u0001b', 'x-fine': 'ok' }; msg.payload = 'hi'; return msg;" } },
        { id: "odd-out", type: "http-response", config: { status_code: 202 } },
      ],
      connections: [
        { source: "echo-in", target: "echo-fn" },
        { source: "echo-fn", target: "echo-out" },
        { source: "odd-in", target: "odd-fn" },
        { source: "odd-fn", target: "odd-out" },
      ],
    },
  });
  expect(created.status, created.text).toBe(201);
  const deployed = await rest("POST", `/flows/${created.body.flow.id}/deploy`, { token: user.accessToken });
  expect(deployed.body.deployment?.state, deployed.text).toBe("running");
  server = await listenWithRequestListener(app);
  port = server.port;
});

afterAll(() => server?.close());

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection after its answer (the request asked to keep it). */
  closed: boolean;
}

/**
 * Sends a request as written (header lines in this order, repeated ones included) on a kept-alive
 * connection and reads one answer; `closed`: whether the server then ended the connection.
 */
function raw(head: string, body = ""): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let data = "";
    let answer: Omit<RawAnswer, "closed"> | undefined;
    const parse = () => {
      const end = data.indexOf("\r\n\r\n");
      if (end === -1) return;
      const [statusLine, ...lines] = data.slice(0, end).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers["content-length"] ?? 0);
      if (data.length - end - 4 < length) return;
      answer = { status: Number(statusLine!.split(" ")[1]), headers, body: data.slice(end + 4, end + 4 + length) };
      // A kept-alive connection stays open: give the server a moment to close it, or not.
      setTimeout(() => {
        socket.destroy();
        resolve({ ...answer!, closed: false });
      }, 200);
    };
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      data += chunk;
      if (!answer) parse();
    });
    socket.on("end", () => {
      if (answer) resolve({ ...answer, closed: true });
      else reject(new Error(`no answer: ${data}`));
    });
    socket.on("error", reject);
    socket.write(`${head.trim().split("\n").map((l) => l.trim()).join("\r\n")}\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n${body}`);
  });
}

describe("webhooks on the custom server's mount", () => {
  it("hands the flow the request's headers in the order they came, a repeated Content-Type as its first, and the query and parsed body", async () => {
    const body = JSON.stringify({ n: 1 });
    const answer = await raw(
      `POST /hooks/${slug}/echo?a=1&b=x%20y#c=2 HTTP/1.1
       X-Zeta: last-alphabetically
       Content-Type: application/json
       X-Alpha: first-alphabetically
       Content-Type: text/plain
       Authorization: Bearer secret
       Proxy-Authorization: Basic c2VjcmV0
       X-Api-Key: service_secret
       Cookie: s=1
       X-Flowplane-Client-Ip: 6.6.6.6
       Content-Length: ${body.length}`,
      body,
    );
    expect(answer.status, answer.body).toBe(200);
    const echoed = JSON.parse(answer.body) as { headers: Record<string, string>; query: Record<string, string>; body: unknown };
    expect(echoed.body).toEqual({ n: 1 });
    expect(echoed.query).toEqual({ a: "1", b: "x y" });
    // Credentials and our client-IP header never reach the flow; a fragment is not part of the query.
    expect(Object.keys(echoed.headers)).toEqual(["x-zeta", "content-type", "x-alpha", "content-length", "host", "connection"]);
    expect(echoed.headers["content-type"]).toBe("application/json");
    expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(answer.headers["x-content-type-options"]).toBe("nosniff");
    expect(answer.headers["cache-control"]).toBe("no-store");
    expect(answer.closed).toBe(false);
  });

  it("drops a flow's header that Node cannot send (a control character) instead of failing with 500", async () => {
    const answer = await raw(`GET /hooks/${slug}/odd HTTP/1.1`);
    expect(answer.status, answer.body).toBe(202);
    expect(answer.body).toBe("hi");
    expect(answer.headers["x-fine"]).toBe("ok");
    expect(answer.headers["x-odd"]).toBeUndefined();
  });

  it("answers 404 before reading the body of a path no flow serves, and closes the connection", async () => {
    const body = "x".repeat(1000);
    const answer = await raw(
      `POST /hooks/${slug}/nobody-here HTTP/1.1
       Content-Type: text/plain
       Content-Length: ${body.length}`,
      body.slice(0, 10),
    );
    expect(answer.status).toBe(404);
    expect((JSON.parse(answer.body) as { error: { code: string } }).error.code).toBe("NOT_FOUND");
    expect(answer.closed).toBe(true);
  });

  it("refuses a body declared over the limit unread (413), and closes the connection", async () => {
    const answer = await raw(
      `POST /hooks/${slug}/echo HTTP/1.1
       Content-Type: application/json
       Content-Length: ${2 * 1024 * 1024}`,
      "{",
    );
    expect(answer.status).toBe(413);
    expect((JSON.parse(answer.body) as { error: { code: string } }).error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(answer.closed).toBe(true);
  });

  it("refuses invalid JSON with 400 in the error envelope", async () => {
    const answer = await raw(
      `POST /hooks/${slug}/echo HTTP/1.1
       Content-Type: application/json
       Content-Length: 5`,
      "{nope",
    );
    expect(answer.status).toBe(400);
    expect((JSON.parse(answer.body) as { error: { code: string } }).error.code).toBe("INVALID_JSON");
  });
});
