import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { CLIENT_IP_HEADER } from "./client-ip";
import { isLoopback, metricsRefusal } from "./metrics-endpoint";

function request(peer: string, client: string, authorization?: string): IncomingMessage {
  return {
    socket: { remoteAddress: peer },
    headers: { [CLIENT_IP_HEADER]: client, ...(authorization ? { authorization } : {}) },
  } as unknown as IncomingMessage;
}

const TOKEN = "0123456789abcdef-token";

describe("metricsRefusal", () => {
  it("without a token: loopback only, the socket's peer included", () => {
    expect(metricsRefusal(request("127.0.0.1", "127.0.0.1"), undefined)).toBeNull();
    expect(metricsRefusal(request("::1", "::1"), undefined)).toBeNull();
    expect(metricsRefusal(request("::ffff:127.0.0.1", "127.0.0.1"), undefined)).toBeNull();
    // Behind a proxy on this host: the resolved client is remote.
    expect(metricsRefusal(request("127.0.0.1", "203.0.113.9"), undefined)?.status).toBe(404);
    // A forged X-Forwarded-For sent straight to the instance: the peer is remote.
    expect(metricsRefusal(request("203.0.113.9", "127.0.0.1"), undefined)?.status).toBe(404);
  });

  it("with a token: the bearer token, from anywhere, loopback included", () => {
    expect(metricsRefusal(request("203.0.113.9", "203.0.113.9", `Bearer ${TOKEN}`), TOKEN)).toBeNull();
    expect(metricsRefusal(request("127.0.0.1", "127.0.0.1", `bearer ${TOKEN}`), TOKEN)).toBeNull();
    for (const header of [undefined, `Bearer ${TOKEN}0`, `Bearer ${TOKEN.slice(1)}`, TOKEN, `Basic ${TOKEN}`, "Bearer "]) {
      const refusal = metricsRefusal(request("127.0.0.1", "127.0.0.1", header), TOKEN);
      expect(refusal?.status, String(header)).toBe(401);
      expect(refusal?.headers?.["WWW-Authenticate"]).toMatch(/^Bearer/);
    }
  });

  it("knows loopback addresses", () => {
    for (const ip of ["127.0.0.1", "127.1.2.3", "::1"]) expect(isLoopback(ip), ip).toBe(true);
    for (const ip of ["10.0.0.1", "::", "0.0.0.0", "128.0.0.1", "unknown", "127.0.0.1.example", "::ffff:10.0.0.1"]) expect(isLoopback(ip), ip).toBe(false);
  });
});
