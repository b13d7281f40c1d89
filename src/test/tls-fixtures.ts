import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";

/**
 * Test-only TLS material and an HTTP proxy, for the tls-config and http proxy configuration nodes
 * (SPEC §19). Certificates are made fresh by openssl for each test file (nothing committed): a CA
 * and an unrelated one, a server certificate for `localhost` (DNS name only, so a request to
 * 127.0.0.1 must name it as its server name), and a client certificate with a passphrase-protected key.
 */
export interface TestCertificates {
  ca: string;
  otherCa: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKeyEncrypted: string;
  clientKeyPassphrase: string;
}

export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(path.join(tmpdir(), "flowplane-tls-"));
  const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  try {
    for (const ca of ["ca", "other-ca"]) {
      openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", `${ca}.key`, "-out", `${ca}.pem`, "-days", "2", "-subj", `/CN=Flowplane test ${ca}`);
    }
    writeFileSync(path.join(dir, "server.ext"), "subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n");
    writeFileSync(path.join(dir, "client.ext"), "extendedKeyUsage=clientAuth\n");
    for (const [name, subject] of [
      ["server", "/CN=localhost"],
      ["client", "/CN=flowplane-client"],
    ] as const) {
      openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject);
      openssl("x509", "-req", "-in", `${name}.csr`, "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", `${name}.pem`, "-days", "2", "-extfile", `${name}.ext`);
    }
    const passphrase = "client-pass-123";
    openssl("pkey", "-in", "client.key", "-aes256", "-passout", `pass:${passphrase}`, "-out", "client-encrypted.key");
    const read = (f: string) => readFileSync(path.join(dir, f), "utf8");
    return {
      ca: read("ca.pem"),
      otherCa: read("other-ca.pem"),
      serverCert: read("server.pem"),
      serverKey: read("server.key"),
      clientCert: read("client.pem"),
      clientKeyEncrypted: read("client-encrypted.key"),
      clientKeyPassphrase: passphrase,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface TestProxy {
  port: number;
  /** What it was asked: absolute-form requests and CONNECTs, with their Proxy-Authorization. */
  seen: Array<{ method: string; url: string; authorization?: string; host?: string }>;
  /** The Proxy-Authorization it wants (null: none); anything else gets 407. */
  wants: string | null;
  close(): Promise<void>;
}

/** A forwarding HTTP proxy on 127.0.0.1 (absolute form and CONNECT), for this test's own servers only. */
export async function startTestProxy(): Promise<TestProxy> {
  const proxy: TestProxy = { port: 0, seen: [], wants: null, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const authorization = req.headers["proxy-authorization"];
    proxy.seen.push({ method: req.method!, url: req.url!, authorization, host: req.headers.host });
    if (proxy.wants !== null && authorization !== proxy.wants) {
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="test"' }).end();
      return;
    }
    const target = new URL(req.url!);
    const { "proxy-authorization": _dropped, ...headers } = req.headers;
    const upstream = http.request({ host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers }, (up) => {
      res.writeHead(up.statusCode!, { ...up.headers, "x-via-proxy": "1" });
      up.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  const tunnels = new Set<net.Socket>();
  server.on("connect", (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    tunnels.add(socket);
    socket.on("close", () => tunnels.delete(socket));
    const authorization = req.headers["proxy-authorization"];
    proxy.seen.push({ method: "CONNECT", url: req.url!, authorization });
    if (proxy.wants !== null && authorization !== proxy.wants) {
      socket.end("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n");
      return;
    }
    const [host, port] = req.url!.split(":");
    const upstream = net.connect(Number(port), host, () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
    socket.on("close", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.port = (server.address() as AddressInfo).port;
  proxy.close = async () => {
    server.closeAllConnections();
    for (const socket of tunnels) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return proxy;
}
