import type { IncomingMessage } from "node:http";

/** Set by the custom server on every request; any value a client sends is replaced. */
export const CLIENT_IP_HEADER = "x-flowplane-client-ip";

/**
 * The client's address for one HTTP request: the socket's peer, or, behind TRUST_PROXY_HOPS
 * trusted proxies, the X-Forwarded-For entry that many hops to the left. A client therefore cannot
 * choose its own rate-limit bucket by sending the header.
 */
export function resolveClientIp(req: IncomingMessage, trustedHops: number): string {
  const peer = req.socket.remoteAddress ?? "unknown";
  if (trustedHops === 0) return normalize(peer);
  const header = req.headers["x-forwarded-for"];
  const chain = (Array.isArray(header) ? header.join(",") : (header ?? ""))
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  chain.push(peer);
  return normalize(chain[Math.max(0, chain.length - 1 - trustedHops)]!);
}

/** A socket's peer address as resolveClientIp writes one (IPv4 on an IPv6 listener without `::ffff:`): an MQTT connection's, say. */
export function peerAddress(socket: { remoteAddress?: string }): string {
  return normalize(socket.remoteAddress ?? "unknown");
}

function normalize(ip: string): string {
  return ip.startsWith("::ffff:") ? ip.slice(7) : ip;
}
