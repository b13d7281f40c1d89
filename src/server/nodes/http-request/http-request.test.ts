import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closingTestFlows, variablesFrom } from "@/test/runtime-harness";
import { createSafeFetch } from "@/server/runtime/safe-fetch";
import { VariableSet, type VariableValue } from "@/server/runtime/variables";
import { httpRequestNode } from "./definition";

const loadTestFlow = closingTestFlows();
const httpRequest = createSafeFetch({ allowPrivate: true });

/** A protected endpoint: 200 with what it saw for the expected credentials, 401 otherwise. */
let expected = { authorization: "Bearer first-token-1234" };
const seen: Array<Record<string, string | undefined>> = [];
let baseUrl = "";
const server = http.createServer((req, res) => {
  seen.push({ url: req.url, authorization: req.headers.authorization, "x-api-key": req.headers["x-api-key"] as string | undefined });
  const ok = req.headers.authorization === expected.authorization;
  res.writeHead(ok ? 200 : 401, { "content-type": "application/json" }).end(JSON.stringify({ ok, path: req.url }));
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function source(vars: Record<string, VariableValue>) {
  let current = new VariableSet(new Map(Object.entries(vars)), new Map());
  return { current: () => current, replace: (next: Record<string, VariableValue>) => (current = new VariableSet(new Map(Object.entries(next)), new Map())) };
}

async function requestFlow(config: Record<string, unknown>, variables: ReturnType<typeof source>) {
  return loadTestFlow(
    [
      { id: "req", type: "http-request", config: { return: "obj", ...config } },
      { id: "out", type: "sink" },
    ],
    [{ source: "req", target: "out" }],
    { httpRequest },
    {},
    variablesFrom(variables),
  );
}

describe("http-request authentication and ${NAME} (SPEC §14)", () => {
  it("sends a secret bearer token from ${API_TOKEN}, and the new one as soon as the secret changes, without a redeploy", async () => {
    const vars = source({ API_URL: { value: baseUrl, secret: false }, API_TOKEN: { value: "first-token-1234", secret: true } });
    const flow = await requestFlow({ url: "${API_URL}/orders", auth_type: "bearer", auth_password: "${API_TOKEN}" }, vars);
    flow.send("req", { payload: "" });
    await flow.waitFor(1);
    expect(flow.received[0]).toMatchObject({ statusCode: 200, payload: { ok: true, path: "/orders" } });

    expected = { authorization: "Bearer second-token-5678" };
    vars.replace({ API_URL: { value: baseUrl, secret: false }, API_TOKEN: { value: "second-token-5678", secret: true } });
    flow.send("req", { payload: "" });
    await flow.waitFor(2);
    expect(flow.received[1]).toMatchObject({ statusCode: 200, payload: { ok: true } });
    expect(seen.at(-1)!.authorization).toBe("Bearer second-token-5678");
  });

  it("sends basic authentication and secret header values; the node's authentication wins over msg.headers", async () => {
    expected = { authorization: `Basic ${Buffer.from("svc:pa55-w0rd").toString("base64")}` };
    const vars = source({ API_URL: { value: baseUrl, secret: false }, PASSWORD: { value: "pa55-w0rd", secret: true }, KEY: { value: "key-9876", secret: true } });
    const flow = await requestFlow({ url: "${API_URL}/b", auth_type: "basic", auth_user: "svc", auth_password: "${PASSWORD}", headers: { "X-Api-Key": "${KEY}" } }, vars);
    flow.send("req", { payload: "", headers: { authorization: "Bearer from-message" } });
    await flow.waitFor(1);
    expect(flow.received[0]).toMatchObject({ statusCode: 200 });
    expect(seen.at(-1)).toMatchObject({ authorization: expected.authorization, "x-api-key": "key-9876" });
  });

  it("does not resolve ${NAME} that arrives in the message (a message cannot ask for a secret)", async () => {
    expected = { authorization: "none" };
    const vars = source({ API_TOKEN: { value: "never-sent-4321", secret: true } });
    const flow = await requestFlow({ url: "" }, vars);
    flow.send("req", { payload: "", url: `${baseUrl}/m?t=\${API_TOKEN}`, headers: { "x-api-key": "${API_TOKEN}" } });
    await flow.waitFor(1);
    expect(decodeURIComponent(seen.at(-1)!.url!)).toBe("/m?t=${API_TOKEN}");
    expect(seen.at(-1)!["x-api-key"]).toBe("${API_TOKEN}");
  });

  it("maps authentication to Node-RED's authType and credentials and back, carrying references only", () => {
    const config = httpRequestNode.configSchema.parse({ url: "${API_URL}/x", auth_type: "bearer", auth_password: "${API_TOKEN}" });
    const exported = httpRequestNode.nodeRed!.toNodeRed(config as never) as Record<string, unknown>;
    expect(exported).toMatchObject({ authType: "bearer", url: "${API_URL}/x", credentials: { user: "", password: "${API_TOKEN}" } });
    const back = httpRequestNode.configSchema.parse(httpRequestNode.nodeRed!.fromNodeRed(exported as never));
    expect(back).toMatchObject({ auth_type: "bearer", auth_password: "${API_TOKEN}", url: "${API_URL}/x" });
    const imported = (p: Record<string, unknown>) => httpRequestNode.configSchema.parse(httpRequestNode.nodeRed!.fromNodeRed(p as never));
    expect(imported({ authType: "digest", credentials: { user: "cam", password: "${CAM_PASSWORD}" } })).toMatchObject({ auth_type: "digest", auth_user: "cam", auth_password: "${CAM_PASSWORD}" });
    // No authType (a flow from before the choice): Node-RED's basic, when there are credentials.
    expect(imported({ authType: "", credentials: { user: "u", password: "p" } })).toMatchObject({ auth_type: "basic", auth_user: "u" });
    expect(imported({ credentials: { user: "", password: "" } })).toMatchObject({ auth_type: "none" });
    expect(imported({ authType: "" })).toMatchObject({ auth_type: "none" });
  });
});

describe("http-request under backpressure", () => {
  it("more requests in flight than the flow's high-water mark all answer: a response waiting for the flow does not keep it busy", async () => {
    // Before: each response waited for the flow to be ready, and the waiting requests were what
    // kept it busy; with a mark of 2, 10 messages gave 2 or 3 answers and the flow stalled.
    const flow = await loadTestFlow(
      [
        { id: "req", type: "http-request", config: { return: "obj", url: `${baseUrl}/n` } },
        { id: "out", type: "sink" },
      ],
      [{ source: "req", target: "out" }],
      { httpRequest },
      {},
      { highWaterMark: 2 },
    );
    expected = { authorization: "" };
    for (let i = 0; i < 10; i++) flow.send("req", { payload: "" });
    await flow.waitFor(10);
    expect(flow.received.map((m) => m.statusCode)).toEqual(Array(10).fill(401));
  });
});

describe("http-request's answer (Node-RED 4.1+)", () => {
  it("lists the redirects it followed in msg.redirectList, each {location}, msg.retry is 0, and a binary answer is a Buffer", async () => {
    const hops = http.createServer((req, res) => {
      if (req.url === "/first") res.writeHead(302, { location: "/second" }).end();
      else if (req.url === "/second") res.writeHead(301, { location: "/done" }).end();
      else res.writeHead(200, { "content-type": "text/plain" }).end(`at ${req.url}`);
    });
    await new Promise<void>((resolve) => hops.listen(0, "127.0.0.1", resolve));
    try {
      const base = `http://127.0.0.1:${(hops.address() as AddressInfo).port}`;
      const flow = await loadTestFlow(
        [
          { id: "req", type: "http-request", config: { return: "txt", url: "" } },
          { id: "out", type: "sink" },
        ],
        [{ source: "req", target: "out" }],
        { httpRequest },
      );
      flow.send("req", { payload: "", url: `${base}/first` });
      await flow.waitFor(1);
      flow.send("req", { payload: "", url: `${base}/done` });
      await flow.waitFor(2);
      expect(flow.received[0]).toMatchObject({ statusCode: 200, payload: "at /done", responseUrl: `${base}/done`, redirectList: [{ location: "/second" }, { location: "/done" }], retry: 0 });
      expect(flow.received[1]).toMatchObject({ statusCode: 200, redirectList: [], retry: 0 });

      // Return "bin": the body as a Buffer (Node-RED's), not an array of numbers.
      const bin = await loadTestFlow(
        [
          { id: "req", type: "http-request", config: { return: "bin", url: "" } },
          { id: "out", type: "sink" },
        ],
        [{ source: "req", target: "out" }],
        { httpRequest },
      );
      bin.send("req", { payload: "", url: `${base}/done` });
      await bin.waitFor(1);
      expect(Buffer.isBuffer(bin.received[0]!.payload)).toBe(true);
      expect(String(bin.received[0]!.payload)).toBe("at /done");
    } finally {
      await new Promise<void>((resolve) => hops.close(() => resolve()));
    }
  });
});

describe("http-request when the request fails (Node-RED's catch branch)", () => {
  it("a request without an answer in time goes to catch as 'no response from server' and on out as ETIMEDOUT, its URL's secret unsaid", async () => {
    const silent = http.createServer(() => undefined); // never answers
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const vars = source({ API_URL: { value: url, secret: false }, KEY: { value: "query-secret-2468", secret: true } });
      const flow = await requestFlow({ url: "${API_URL}/slow?key=${KEY}", timeout_ms: 150 }, vars);
      flow.send("req", { payload: "in", topic: "t" });
      const [m] = await flow.waitFor(1);
      expect(m).toMatchObject({ topic: "t", statusCode: "ETIMEDOUT", payload: `TimeoutError: no complete response within 150 ms : ${url}/slow?key=***` });
      expect(JSON.stringify(m)).not.toContain("query-secret-2468");
      expect(flow.errors).toEqual([expect.objectContaining({ nodeId: "req", error: "no response from server" })]);
      expect(flow.statuses.at(-1)).toMatchObject({ nodeId: "req", status: { fill: "red", text: "no response from server" } });

      const quiet = await requestFlow({ url: `${url}/slow`, timeout_ms: 150, errors_to_catch_only: true }, vars);
      quiet.send("req", { payload: "in" });
      await expect.poll(() => quiet.errors.length, { timeout: 5000 }).toBe(1);
      await new Promise((r) => setTimeout(r, 50));
      expect(quiet.received).toHaveLength(0);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it("a refused connection: status ECONNREFUSED, msg.statusCode ECONNREFUSED, the catch error with its code", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const flow = await requestFlow({ url: `http://127.0.0.1:${port}/x` }, source({}));
    flow.send("req", { payload: "" });
    const [m] = await flow.waitFor(1);
    expect(m).toMatchObject({ statusCode: "ECONNREFUSED", payload: `RequestError: connect ECONNREFUSED 127.0.0.1:${port} : http://127.0.0.1:${port}/x` });
    expect(flow.errors).toEqual([expect.objectContaining({ nodeId: "req", error: `connect ECONNREFUSED 127.0.0.1:${port}` })]);
    expect(flow.statuses.at(-1)).toMatchObject({ nodeId: "req", status: { fill: "red", shape: "ring", text: "ECONNREFUSED" } });
  });

  it("a header value Node refuses at once (a line break) fails that request only: no timer is left to throw later and take the server down", async () => {
    const flow = await requestFlow({ url: `${baseUrl}/h`, timeout_ms: 100 }, source({}));
    flow.send("req", { payload: "", headers: { "X-Injected": "a\r\nSet-Cookie: x=1" } });
    const [m] = await flow.waitFor(1);
    expect(m!.payload).toMatch(/^RequestError: Invalid character in header content \["X-Injected"\] : http/);
    expect(flow.errors).toHaveLength(1);
    // Past the request's deadline: a timer touching the request that never existed would throw here (uncaught).
    await new Promise((r) => setTimeout(r, 250));
    expect(seen.some((s) => s.url === "/h")).toBe(false);
  });

  it("a host that is a secret stays unsaid in what a catch node gets: msg.error's text and its cause's address", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const vars = source({ HOST: { value: "127.0.0.1", secret: true } });
    const flow = await loadTestFlow(
      [
        { id: "req", type: "http-request", config: { url: `http://\${HOST}:${port}/x` } },
        { id: "c", type: "catch", config: {} },
        { id: "out", type: "sink" },
        { id: "caught", type: "sink" },
      ],
      [
        { source: "req", target: "out" },
        { source: "c", target: "caught" },
      ],
      { httpRequest },
      {},
      variablesFrom(vars),
    );
    flow.send("req", { payload: "" });
    await flow.waitFor(2);
    const caught = flow.arrivals.find((a) => a.sink === "caught")!.msg;
    expect(caught.error).toMatchObject({ message: `RequestError: connect ECONNREFUSED ***:${port}`, code: "ECONNREFUSED", cause: { code: "ECONNREFUSED", syscall: "connect", port } });
    expect((caught.error as { cause: object }).cause).not.toHaveProperty("address");
    expect(JSON.stringify(flow.arrivals)).not.toContain("127.0.0.1");
  });

  it("another scheme (ftp://) is Node-RED's warning: nothing sent, nothing caught", async () => {
    const flow = await requestFlow({ url: "" }, source({}));
    flow.send("req", { payload: "", url: "ftp://files.example.com/a.txt" });
    await expect.poll(() => flow.errors.length, { timeout: 5000 }).toBe(1);
    expect(flow.errors[0]!.error).toBe("non-http transport requested");
    await new Promise((r) => setTimeout(r, 50));
    expect(flow.received).toHaveLength(0);
  });

  it("a response of any status is no failure: a 401 goes out with its statusCode and nothing reaches catch", async () => {
    expected = { authorization: "something-else" };
    const flow = await requestFlow({ url: `${baseUrl}/denied`, errors_to_catch_only: true }, source({}));
    flow.send("req", { payload: "" });
    const [m] = await flow.waitFor(1);
    expect(m).toMatchObject({ statusCode: 401, payload: { ok: false } });
    expect(flow.errors).toEqual([]);
  });

  it("maps senderr both ways; persist (keep-alive) is always on here and exports so", () => {
    const on = httpRequestNode.configSchema.parse(httpRequestNode.nodeRed!.fromNodeRed({ method: "GET", url: "x", senderr: true, persist: false }));
    expect(on.errors_to_catch_only).toBe(true);
    expect(httpRequestNode.nodeRed!.toNodeRed(on)).toMatchObject({ senderr: true, persist: true });
    const off = httpRequestNode.configSchema.parse(httpRequestNode.nodeRed!.fromNodeRed({ method: "GET", url: "x" }));
    expect(off.errors_to_catch_only).toBe(false);
    expect(httpRequestNode.nodeRed!.toNodeRed(off)).toMatchObject({ senderr: false });
  });
});

describe("http-request's cookies (Node-RED's jar)", () => {
  it("stay with the host they were given or set for: a redirect to another host gets none of them, and no cookie outlives its request", async () => {
    const seen: Array<{ host: string | undefined; cookie: string | undefined }> = [];
    // Listening on every address: reached as 127.0.0.1 first, then as localhost (another host).
    const hops = http.createServer((req, res) => {
      seen.push({ host: req.headers.host, cookie: req.headers.cookie });
      if (req.url === "/first") res.writeHead(302, { location: "/second", "set-cookie": ["hop=1; Path=/"] }).end();
      else if (req.url === "/second") res.writeHead(302, { location: `http://localhost:${(hops.address() as AddressInfo).port}/elsewhere` }).end();
      else res.writeHead(200, { "content-type": "text/plain", "set-cookie": "last=1" }).end("done");
    });
    await new Promise<void>((resolve) => hops.listen(0, resolve));
    try {
      const port = (hops.address() as AddressInfo).port;
      const flow = await loadTestFlow(
        [
          { id: "req", type: "http-request", config: { return: "txt", url: "" } },
          { id: "out", type: "sink" },
        ],
        [{ source: "req", target: "out" }],
        { httpRequest },
      );
      flow.send("req", { url: `http://127.0.0.1:${port}/first`, cookies: { sid: "secret" } });
      await flow.waitFor(1);
      expect(seen.map((s) => s.cookie)).toEqual(["sid=secret", "sid=secret; hop=1", undefined]);
      expect(flow.received[0]).toMatchObject({ payload: "done", responseCookies: { last: { value: "1" } }, redirectList: [{ location: "/second", cookies: { hop: { value: "1", Path: "/" } } }, { location: `http://localhost:${port}/elsewhere` }] });
      // The next message's request starts with an empty jar.
      flow.send("req", { url: `http://127.0.0.1:${port}/elsewhere` });
      await flow.waitFor(2);
      expect(seen.at(-1)!.cookie).toBeUndefined();
    } finally {
      hops.closeAllConnections();
      await new Promise<void>((resolve) => hops.close(() => resolve()));
    }
  });
});

describe("http-request's digest authentication", () => {
  it("answers a challenge from the node's origin, never one from another host a redirect reached", async () => {
    const seen: Array<{ host: string | undefined; authorization: string | undefined }> = [];
    const server = http.createServer((req, res) => {
      seen.push({ host: req.headers.host, authorization: req.headers.authorization });
      if (req.url === "/away") res.writeHead(302, { location: `http://localhost:${(server.address() as AddressInfo).port}/cam` }).end();
      else if (!req.headers.authorization) res.writeHead(401, { "www-authenticate": 'Digest realm="cam", qop="auth", nonce="n1"' }).end();
      else res.writeHead(200).end("snapshot");
    });
    await new Promise<void>((resolve) => server.listen(0, resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const flow = await loadTestFlow(
        [
          { id: "req", type: "http-request", config: { return: "txt", url: "", auth_type: "digest", auth_user: "u", auth_password: "p" } },
          { id: "out", type: "sink" },
        ],
        [{ source: "req", target: "out" }],
        { httpRequest },
      );
      flow.send("req", { url: `http://127.0.0.1:${port}/cam` });
      await flow.waitFor(1);
      expect(flow.received[0]).toMatchObject({ statusCode: 200, payload: "snapshot" });
      expect(seen.map((s) => s.authorization?.split(" ")[0])).toEqual([undefined, "Digest"]);
      // Redirected to localhost (another host): its challenge is the answer, not answered.
      seen.length = 0;
      flow.send("req", { url: `http://127.0.0.1:${port}/away` });
      await flow.waitFor(2);
      expect(flow.received[1]).toMatchObject({ statusCode: 401 });
      expect(seen.map((s) => s.authorization)).toEqual([undefined, undefined]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
