import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closingTestFlows, variablesFrom } from "@/test/runtime-harness";
import { createSafeFetch } from "@/server/runtime/safe-fetch";
import { createHttpDispatcher } from "@/server/runtime/http-dispatchers";
import { ConnectionPool } from "@/server/runtime/connections";
import { VariableSet, type VariableValue } from "@/server/runtime/variables";
import type { ConfigNodeSnapshot } from "@/shared/config-nodes";
import type { RuntimeServices } from "@/server/runtime/types";
import { makeTestCertificates, startTestProxy, type TestCertificates, type TestProxy } from "@/test/tls-fixtures";

/**
 * http-request with a tls-config and an http proxy (SPEC §19, Node-RED's `tls` and `proxy`): a
 * local HTTPS server whose certificate a test CA signed (made with openssl, src/test/tls-fixtures.ts),
 * one that asks for a client certificate, and a local HTTP proxy that records what it is asked.
 */

const loadTestFlow = closingTestFlows();

let pem: TestCertificates;
let proxy: TestProxy;
const servers: https.Server[] = [];
async function listen(server: https.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

let httpsPort = 0;
let mtlsPort = 0;
let plainPort = 0;
let proxyPort = 0;
let plain: http.Server;

beforeAll(async () => {
  pem = makeTestCertificates();
  httpsPort = await listen(https.createServer({ cert: pem.serverCert, key: pem.serverKey }, (req, res) => res.end(JSON.stringify({ secure: true, path: req.url }))));
  mtlsPort = await listen(
    https.createServer({ cert: pem.serverCert, key: pem.serverKey, ca: pem.ca, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      res.end(JSON.stringify({ client: (req.socket as TLSSocket).getPeerCertificate().subject?.CN }));
    }),
  );
  plain = http.createServer((req, res) => res.end(JSON.stringify({ plain: true, path: req.url, host: req.headers.host })));
  await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
  plainPort = (plain.address() as AddressInfo).port;
  proxy = await startTestProxy();
  proxyPort = proxy.port;
});

afterAll(async () => {
  for (const s of [...servers.splice(0), plain]) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
  await proxy.close();
});

const seal = (value: string) => `sealed:${Buffer.from(value).toString("base64")}`;
const services = (allowPrivate = true): RuntimeServices => ({
  httpRequest: createSafeFetch({ allowPrivate }),
  httpDispatcher: createHttpDispatcher,
  openCredential: (sealed) => Buffer.from(sealed.slice("sealed:".length), "base64").toString("utf8"),
});

function tlsConfig(id: string, config: Record<string, unknown>, credentials: Record<string, string> = {}, revision = 1): ConfigNodeSnapshot {
  return { id, type: "tls-config", name: "", config, revision, sealed_credentials: Object.fromEntries(Object.entries(credentials).map(([k, v]) => [k, seal(v)])) };
}
function proxyConfig(id: string, config: Record<string, unknown>, credentials: Record<string, string> = {}, revision = 1): ConfigNodeSnapshot {
  return { id, type: "http-proxy", name: "", config, revision, sealed_credentials: Object.fromEntries(Object.entries(credentials).map(([k, v]) => [k, seal(v)])) };
}

function variables(vars: Record<string, VariableValue>) {
  let current = new VariableSet(new Map(Object.entries(vars)), new Map());
  return { current: () => current, replace: (next: Record<string, VariableValue>) => (current = new VariableSet(new Map(Object.entries(next)), new Map())) };
}

async function request(
  config: Record<string, unknown>,
  configNodes: Record<string, ConfigNodeSnapshot>,
  options: { allowPrivate?: boolean; vars?: ReturnType<typeof variables>; connections?: ConnectionPool } = {},
) {
  const flow = await loadTestFlow(
    [
      { id: "req", type: "http-request", config: { return: "obj", timeout_ms: 5000, ...config } },
      { id: "out", type: "sink" },
    ],
    [{ source: "req", target: "out" }],
    services(options.allowPrivate ?? true),
    {},
    { configNodes, ...(options.vars ? variablesFrom(options.vars) : {}), ...(options.connections ? { connections: options.connections } : {}) },
  );
  return flow;
}

async function one(flow: Awaited<ReturnType<typeof request>>, count = 1) {
  flow.send("req", { payload: "" });
  const deadline = Date.now() + 5000;
  while (flow.received.length < count && flow.errors.length < count) {
    if (Date.now() > deadline) throw new Error("no answer");
    await new Promise((r) => setTimeout(r, 10));
  }
  return { msg: flow.received[count - 1], error: flow.errors[count - 1]?.error };
}

describe("http-request with a TLS configuration (tls-config)", () => {
  it("trusts the server only through the tls-config's CA; with the check on and no CA it fails", async () => {
    const url = `https://127.0.0.1:${httpsPort}/hello`;
    const withCa = await request({ url, tls: "tls1" }, { tls1: tlsConfig("tls1", { servername: "localhost" }, { cadata: pem.ca }) });
    expect((await one(withCa)).msg).toMatchObject({ statusCode: 200, payload: { secure: true, path: "/hello" } });

    const noCa = await request({ url, tls: "tls1" }, { tls1: tlsConfig("tls1", { servername: "localhost", verifyservercert: true }) });
    expect((await one(noCa)).error).toMatch(/self[- ]signed|unable to (verify|get)/i);

    const wrongCa = await request({ url, tls: "tls1" }, { tls1: tlsConfig("tls1", { servername: "localhost" }, { cadata: pem.otherCa }) });
    expect((await one(wrongCa)).error).toMatch(/self[- ]signed|unable to (verify|get)/i);

    const plain = await request({ url }, {});
    expect((await one(plain)).error).toMatch(/self[- ]signed|unable to (verify|get)/i);

    const unchecked = await request({ url, tls: "tls1" }, { tls1: tlsConfig("tls1", { verifyservercert: false }) });
    expect((await one(unchecked)).msg).toMatchObject({ statusCode: 200 });
  });

  it("checks the certificate against the server name (SNI) when it differs from the URL's host", async () => {
    const url = `https://127.0.0.1:${httpsPort}/`;
    const noName = await request({ url, tls: "tls1" }, { tls1: tlsConfig("tls1", {}, { cadata: pem.ca }) });
    expect((await one(noName)).error).toMatch(/IP: 127\.0\.0\.1 is not in the cert's list|altnames/i);
  });

  it("presents the client certificate and its passphrase-protected key to a server that asks for one", async () => {
    const url = `https://127.0.0.1:${mtlsPort}/`;
    const flow = await request(
      { url, tls: "mtls" },
      { mtls: tlsConfig("mtls", { servername: "localhost" }, { cadata: pem.ca, certdata: pem.clientCert, keydata: pem.clientKeyEncrypted, passphrase: pem.clientKeyPassphrase }) },
    );
    expect((await one(flow)).msg).toMatchObject({ statusCode: 200, payload: { client: "flowplane-client" } });

    const without = await request({ url, tls: "tls1" }, { tls1: tlsConfig("tls1", { servername: "localhost" }, { cadata: pem.ca }) });
    const { error } = await one(without);
    expect(error).toBeDefined();
    expect(error).not.toContain("client-pass-123");
  });

  it("a URL without a scheme is https:// with a TLS configuration, as in Node-RED", async () => {
    const flow = await request({ url: `127.0.0.1:${httpsPort}/bare`, tls: "tls1" }, { tls1: tlsConfig("tls1", { servername: "localhost" }, { cadata: pem.ca }) });
    expect((await one(flow)).msg).toMatchObject({ statusCode: 200, payload: { path: "/bare" }, responseUrl: `https://127.0.0.1:${httpsPort}/bare` });
  });

  it("a TLS configuration the deployment does not carry is the node's error, and no request goes out", async () => {
    const flow = await request({ url: `https://127.0.0.1:${httpsPort}/`, tls: "gone" }, {});
    expect(flow.state).toBe("running");
    expect(flow.errors[0]).toEqual({ nodeId: "req", error: "configuration node gone (tls-config) is not part of this deployment" });
    flow.send("req", { payload: "" });
    await expect.poll(() => flow.errors.length).toBe(2);
    expect(flow.errors[1]!.error).toMatch(/TLS configuration gone is not available/);
  });
});

describe("http-request through a proxy (http proxy)", () => {
  it("sends plain HTTP to the proxy in absolute form, with Proxy-Authorization from the proxy's credentials", async () => {
    proxy.seen.length = 0;
    proxy.wants = `Basic ${Buffer.from("proxy-user:proxy-pass-42").toString("base64")}`;
    try {
      const flow = await request(
        { url: `http://127.0.0.1:${plainPort}/via?x=1`, proxy: "p1", headers: { "x-own": "1" } },
        { p1: proxyConfig("p1", { url: `http://127.0.0.1:${proxyPort}` }, { username: "proxy-user", password: "proxy-pass-42" }) },
      );
      const { msg } = await one(flow);
      expect(msg).toMatchObject({ statusCode: 200, payload: { plain: true, path: "/via?x=1", host: `127.0.0.1:${plainPort}` }, headers: { "x-via-proxy": "1" } });
      expect(proxy.seen).toEqual([{ method: "GET", url: `http://127.0.0.1:${plainPort}/via?x=1`, authorization: proxy.wants, host: `127.0.0.1:${plainPort}` }]);
    } finally {
      proxy.wants = null;
    }
  });

  it("tunnels HTTPS through CONNECT, with the TLS configuration applied inside the tunnel", async () => {
    proxy.seen.length = 0;
    const flow = await request(
      { url: `https://127.0.0.1:${httpsPort}/tunnel`, proxy: "p1", tls: "tls1" },
      { p1: proxyConfig("p1", { url: `http://127.0.0.1:${proxyPort}` }), tls1: tlsConfig("tls1", { servername: "localhost" }, { cadata: pem.ca }) },
    );
    expect((await one(flow)).msg).toMatchObject({ statusCode: 200, payload: { secure: true, path: "/tunnel" } });
    expect(proxy.seen).toEqual([{ method: "CONNECT", url: `127.0.0.1:${httpsPort}`, authorization: undefined }]);
  });

  it("a refused proxy authentication is the request's error; hosts in noproxy are reached directly", async () => {
    proxy.seen.length = 0;
    proxy.wants = "Basic nobody-has-this";
    try {
      const refused = await request({ url: `https://127.0.0.1:${httpsPort}/`, proxy: "p1", tls: "tls1" }, {
        p1: proxyConfig("p1", { url: `http://127.0.0.1:${proxyPort}` }, { username: "u", password: "wrong-password-1" }),
        tls1: tlsConfig("tls1", { servername: "localhost" }, { cadata: pem.ca }),
      });
      const { error } = await one(refused);
      expect(error).toMatch(/proxy refused the connection.*407/);
      expect(error).not.toContain("wrong-password-1");

      proxy.seen.length = 0;
      for (const noproxy of [["127.0.0.1"], [`127.0.0.1:${plainPort}`], ["*"]]) {
        const direct = await request({ url: `http://127.0.0.1:${plainPort}/direct`, proxy: "p1" }, { p1: proxyConfig("p1", { url: `http://127.0.0.1:${proxyPort}`, noproxy }) });
        expect((await one(direct)).msg).toMatchObject({ statusCode: 200, payload: { path: "/direct" } });
      }
      expect(proxy.seen).toEqual([]);
      // Another port than the one listed goes through the proxy.
      const other = await request({ url: `http://127.0.0.1:${plainPort}/x`, proxy: "p1" }, { p1: proxyConfig("p1", { url: `http://127.0.0.1:${proxyPort}`, noproxy: ["127.0.0.1:1"] }) });
      expect((await one(other)).msg).toMatchObject({ statusCode: 407 });
      expect(proxy.seen).toHaveLength(1);
    } finally {
      proxy.wants = null;
    }
  });

  it("the proxy's own address is checked as any target's: a private proxy is refused unless private targets are allowed", async () => {
    proxy.seen.length = 0;
    const flow = await request({ url: "http://example.com/", proxy: "p1" }, { p1: proxyConfig("p1", { url: `http://127.0.0.1:${proxyPort}` }) }, { allowPrivate: false });
    expect((await one(flow)).error).toMatch(/127\.0\.0\.1 is a private or reserved address/);
    const tunnel = await request({ url: "https://example.com/", proxy: "p1" }, { p1: proxyConfig("p1", { url: `http://localhost:${proxyPort}` }) }, { allowPrivate: false });
    expect((await one(tunnel)).error).toMatch(/localhost resolves to .*private or reserved/);
    expect(proxy.seen).toEqual([]);
    // Without a proxy, a TLS configuration's own agent connects through the same checking lookup.
    const direct = await request({ url: `https://localhost:${httpsPort}/`, tls: "tls1" }, { tls1: tlsConfig("tls1", {}, { cadata: pem.ca }) }, { allowPrivate: false });
    expect((await one(direct)).error).toMatch(/localhost resolves to .*private or reserved/);
  });

  it("a rotated secret in the proxy's password is used by the next request without a redeploy; the old connection closes", async () => {
    proxy.seen.length = 0;
    const vars = variables({ PROXY_PASS: { value: "first-pass-1", secret: true } });
    const pool = new ConnectionPool();
    const flow = await request(
      { url: `http://127.0.0.1:${plainPort}/rotate`, proxy: "p1" },
      { p1: proxyConfig("p1", { url: `http://127.0.0.1:${proxyPort}` }, { username: "u", password: "${PROXY_PASS}" }) },
      { vars, connections: pool },
    );
    expect((await one(flow, 1)).msg).toMatchObject({ statusCode: 200 });
    expect(pool.stats()).toMatchObject({ open: 1, opened: 1 });
    vars.replace({ PROXY_PASS: { value: "second-pass-2", secret: true } });
    expect((await one(flow, 2)).msg).toMatchObject({ statusCode: 200 });
    expect(proxy.seen.map((p) => Buffer.from(p.authorization!.slice("Basic ".length), "base64").toString())).toEqual(["u:first-pass-1", "u:second-pass-2"]);
    await expect.poll(() => pool.stats()).toMatchObject({ open: 1, opened: 2, closed: 1 });
    await flow.close();
    expect(pool.stats()).toMatchObject({ open: 0, closed: 2 });
  });

  it("nodes sharing a configuration share one dispatcher on the instance", async () => {
    const pool = new ConnectionPool();
    const flow = await loadTestFlow(
      [
        { id: "a", type: "http-request", config: { url: `https://127.0.0.1:${httpsPort}/a`, tls: "tls1", return: "obj" } },
        { id: "b", type: "http-request", config: { url: `https://127.0.0.1:${httpsPort}/b`, tls: "tls1", return: "obj" } },
        { id: "out", type: "sink" },
      ],
      [
        { source: "a", target: "out" },
        { source: "b", target: "out" },
      ],
      services(),
      {},
      { configNodes: { tls1: tlsConfig("tls1", { servername: "localhost" }, { cadata: pem.ca }) }, connections: pool },
    );
    flow.send("a", { payload: "" });
    await flow.waitFor(1);
    flow.send("b", { payload: "" });
    await flow.waitFor(2);
    expect(flow.received.map((m) => m.statusCode)).toEqual([200, 200]);
    expect(pool.stats()).toMatchObject({ open: 1, opened: 1 });
  });
});
