/**
 * The outbound rules every client node connects through (tcp, udp, ping, http request, MQTT,
 * websocket clients): literals Node would connect to but ipaddr.js cannot read, and names that
 * resolve to nothing, are refused or fail; they never slip past the check or throw in a callback.
 */
import dns from "node:dns";
import { describe, expect, it } from "vitest";
import { BlockedAddressError, createOutboundRules, isBlockedAddress } from "./outbound";

const rules = createOutboundRules({ allowPrivate: false });
const lookup = (host: string) =>
  new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((resolve) => rules.lookup(host, {}, (err, address) => resolve({ err, address })));

describe("outbound rules", () => {
  it("an IPv6 literal with a zone (which libuv drops) is refused, whatever it points at", () => {
    for (const host of ["::1%-", "::1%a-b", "[::1%-]", "::ffff:169.254.169.254%-", "::ffff:10.0.0.5%x.y", "fe80::1%eth0", "2001:db8::1%0"]) {
      expect(() => rules.checkHost(host), host).toThrow(BlockedAddressError);
    }
    // Also where private addresses are allowed: a zone is never a flow's to choose.
    expect(() => createOutboundRules({ allowPrivate: true }).checkHost("::1%-")).toThrow(BlockedAddressError);
    expect(isBlockedAddress("::1%-")).toBe(true);
  });

  it("private literals are refused, public ones pass, bracketed or not", () => {
    for (const host of ["127.0.0.1", "[::1]", "::ffff:127.0.0.1", "10.1.2.3", "169.254.169.254"]) expect(() => rules.checkHost(host), host).toThrow(BlockedAddressError);
    for (const host of ["93.184.216.34", "[2606:2800:220:1:248:1893:25c8:1946]", "example.com"]) expect(() => rules.checkHost(host), host).not.toThrow();
  });

  it("a name that resolves to no address is an error of the lookup, not a throw", async () => {
    const original = dns.lookup;
    // What Node's dns.lookup answers for an empty name: no error and no address.
    (dns as { lookup: unknown }).lookup = (_h: string, _o: unknown, cb: (err: null, list: dns.LookupAddress[]) => void) => process.nextTick(() => cb(null, []));
    try {
      const { err } = await lookup("");
      expect(err?.code).toBe("ENOTFOUND");
    } finally {
      (dns as { lookup: unknown }).lookup = original;
    }
  });

  it("resolve refuses a zoned literal before any lookup", async () => {
    await expect(rules.resolve("::1%-")).rejects.toThrow(BlockedAddressError);
    await expect(rules.resolve("[::1]")).rejects.toThrow(BlockedAddressError);
  });
});
