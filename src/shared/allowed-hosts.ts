/**
 * A secret's `allowed_hosts` (SPEC §14), isomorphic: the API validates the patterns, the variables
 * page checks them as they are typed, and the runtime matches a request's host (and every
 * redirect's) against them before it connects.
 *
 * A pattern is a host name (`api.example.com`, `localhost`), `*.` followed by a host name of two
 * labels or more (`*.example.com`: any host under example.com, not example.com itself), or an IPv4
 * address (exactly that address). Lower case, ASCII (an internationalised name in its `xn--` form);
 * IPv6 addresses and wildcards elsewhere than the first label are refused. Ports are not part of a
 * pattern: any port of a matching host matches.
 */

export const MAX_ALLOWED_HOSTS = 20;

const LABEL = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
const HOST_NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

function isHostName(text: string): boolean {
  if (text.length > 253 || !HOST_NAME.test(text)) return false;
  // A last label of digits only would be an address, not a name (`1.2.3.4` is checked as IPv4).
  return !/^\d+$/.test(text.slice(text.lastIndexOf(".") + 1));
}

/** Why `pattern` is not an allowed-host pattern, or undefined when it is one. */
export function allowedHostProblem(pattern: string): string | undefined {
  if (pattern === "") return "is empty";
  if (pattern !== pattern.toLowerCase()) return "must be lower case";
  if (pattern.startsWith("*.")) {
    const rest = pattern.slice(2);
    if (IPV4.test(rest)) return "a wildcard cannot stand before an IP address";
    if (!isHostName(rest)) return "must be `*.` followed by a host name such as example.com";
    if (!rest.includes(".")) return "a wildcard needs a host name of two labels or more after it (*.example.com, not *.com)";
    return undefined;
  }
  if (pattern.includes("*")) return "a wildcard may only be the first label (*.example.com)";
  if (IPV4.test(pattern)) return undefined;
  if (pattern.includes(":")) return "must be a host name or an IPv4 address, without a port (IPv6 addresses are not supported)";
  if (!isHostName(pattern)) return "must be a host name (letters, digits, - and . only, ASCII) or an IPv4 address";
  return undefined;
}

/** A URL's host as patterns are compared with it: lower case, without a trailing dot or IPv6 brackets. */
export function normalizeHost(hostname: string): string {
  return hostname.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
}

/** Whether `hostname` (a URL's, port excluded) matches one of `patterns`. */
export function hostAllowed(hostname: string, patterns: readonly string[]): boolean {
  const host = normalizeHost(hostname);
  if (host === "") return false;
  for (const raw of patterns) {
    const pattern = raw.toLowerCase();
    if (pattern.startsWith("*.")) {
      const suffix = pattern.slice(1); // ".example.com"
      if (host.length > suffix.length && host.endsWith(suffix)) return true;
    } else if (host === pattern) return true;
  }
  return false;
}

/** The patterns as a short text for an error message ("api.example.com or *.example.org"). */
export function describeAllowedHosts(patterns: readonly string[]): string {
  if (patterns.length <= 1) return patterns[0] ?? "no host";
  return `${patterns.slice(0, -1).join(", ")} or ${patterns[patterns.length - 1]}`;
}
