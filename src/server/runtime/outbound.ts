import dns from "node:dns";
import net from "node:net";
import ipaddr from "ipaddr.js";

/** `[::1]` → `::1`: brackets only as a pair. */
const unbracket = (host: string) => host.replace(/^\[(.*)\]$/, "$1");

/**
 * Outbound rules for every client node (SPEC §20): http-request, MQTT brokers, websocket clients,
 * tcp and udp. Private, loopback, link-local and reserved addresses are refused unless the operator
 * sets `OUTBOUND_ALLOW_PRIVATE=true` (`HTTP_REQUEST_ALLOW_PRIVATE` is its alias). A client node
 * connects with `rules.lookup` as its DNS lookup (net.connect / tls.connect / ws / mqtt all accept
 * `lookup`), so the address checked is the address connected to (no DNS-rebinding gap), and checks
 * a literal IP host with `rules.checkHost` before connecting (a literal never goes through lookup).
 * UDP sends resolve with `rules.resolve` and send to the checked address.
 */

/** Address ranges a flow may not reach unless the operator allows private targets. */
const BLOCKED_RANGES = new Set(["unspecified", "broadcast", "multicast", "linkLocal", "loopback", "private", "uniqueLocal", "carrierGradeNat", "reserved", "benchmarking", "amt", "as112", "deprecated", "orchid2", "6to4", "teredo", "rfc6145", "rfc6052", "ipv4Mapped", "discard"]);

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

/**
 * True for addresses a flow may not reach. IPv6 is an allow-list: only global unicast (2000::/3)
 * outside the special ranges passes, so IPv4-compatible (`::a.b.c.d`), site-local (fec0::/10),
 * NAT64 and every other v4-in-v6 form, and ranges ipaddr.js may name in the future, are refused.
 */
export function isBlockedAddress(address: string): boolean {
  // What ipaddr.js cannot read (an IPv6 zone such as `::1%-` that Node and libuv accept) is refused.
  if (!ipaddr.isValid(address)) return true;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6") {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return isBlockedAddress(v6.toIPv4Address().toString());
    if (!v6.match(GLOBAL_UNICAST_V6)) return true;
  }
  return BLOCKED_RANGES.has(parsed.range());
}

export class BlockedAddressError extends Error {
  override name = "BlockedAddressError";
}

export interface OutboundRules {
  readonly allowPrivate: boolean;
  /** A `dns.lookup` that refuses (BlockedAddressError) a name resolving to a blocked address. */
  readonly lookup: typeof dns.lookup;
  /** Throws BlockedAddressError for a literal IP host that is blocked; host names pass (lookup checks them). */
  checkHost(host: string): void;
  /** Resolves a host (literal or name) to one allowed address, for UDP and other connectionless sends. */
  resolve(host: string): Promise<{ address: string; family: 4 | 6 }>;
}

export function createOutboundRules(options: { allowPrivate: boolean }): OutboundRules {
  const allowPrivate = options.allowPrivate;
  const lookup = ((hostname: string, opts: dns.LookupOptions | ((...args: unknown[]) => void), cb?: (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void) => {
    const callback = (typeof opts === "function" ? opts : cb)!;
    const o: dns.LookupOptions = typeof opts === "function" ? {} : opts ?? {};
    dns.lookup(hostname, { ...o, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 4);
      const list = addresses as dns.LookupAddress[];
      if (!allowPrivate) {
        const blocked = list.find((a) => isBlockedAddress(a.address));
        if (blocked) return callback(new BlockedAddressError(`${hostname} resolves to ${blocked.address}, a private or reserved address; connections there are not allowed`), "", 4);
      }
      // An empty name resolves to no address at all: an error, never a throw in a DNS callback.
      if (list.length === 0) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: "ENOTFOUND" }), "", 4);
      if (o.all) callback(null, list);
      else callback(null, list[0]!.address, list[0]!.family);
    });
  }) as typeof dns.lookup;

  function checkHost(host: string) {
    const bare = unbracket(host);
    // Node's net.isIP takes an IPv6 zone (`fe80::1%eth0`, `::1%-`) that libuv quietly drops and
    // ipaddr.js cannot read: a literal with a zone is refused, so the check never misses a literal
    // that net.connect would take as one.
    if (net.isIP(bare) && (bare.includes("%") || !ipaddr.isValid(bare))) {
      throw new BlockedAddressError(`${bare} is not an address a flow may connect to (an IPv6 zone is not allowed)`);
    }
    if (!allowPrivate && ipaddr.isValid(bare) && isBlockedAddress(bare)) {
      throw new BlockedAddressError(`${bare} is a private or reserved address; connections there are not allowed`);
    }
  }

  async function resolve(host: string): Promise<{ address: string; family: 4 | 6 }> {
    const bare = unbracket(host);
    if (net.isIP(bare)) checkHost(bare);
    if (ipaddr.isValid(bare)) {
      checkHost(bare);
      return { address: bare, family: ipaddr.parse(bare).kind() === "ipv6" ? 6 : 4 };
    }
    return new Promise((ok, fail) =>
      lookup(bare, {}, (err, address, family) => (err ? fail(err) : ok({ address: address as string, family: family === 6 ? 6 : 4 }))),
    );
  }

  return { allowPrivate, lookup, checkHost, resolve };
}
