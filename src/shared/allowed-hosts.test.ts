import { describe, expect, it } from "vitest";
import { allowedHostProblem, describeAllowedHosts, hostAllowed } from "./allowed-hosts";
import { SecretHostError, VariableSet, variableResolver } from "../server/runtime/variables";

describe("allowed-host patterns (SPEC §14)", () => {
  it("accepts host names, *. + a name of two labels or more, and IPv4 addresses", () => {
    for (const ok of ["api.example.com", "localhost", "xn--bcher-kva.example", "a-b.c1.example.io", "*.example.com", "*.a.b.example.com", "10.0.0.1", "255.255.255.255"]) {
      expect(allowedHostProblem(ok), ok).toBeUndefined();
    }
  });

  it("refuses the rest, each with a reason", () => {
    for (const bad of ["", "*", "*.", "*.com", "*.10.0.0.1", "api.*.example.com", "a*.example.com", "API.example.com", "https://api.example.com", "api.example.com:443", "api.example.com/x", "::1", "[::1]", "bad_host.example", "-a.example", "a-.example", "a..example", "1.2.3.4.5", "256.1.1.1", "example.123", "bücher.example", `${"a".repeat(64)}.example`]) {
      expect(allowedHostProblem(bad), bad).toEqual(expect.any(String));
    }
  });
});

describe("hostAllowed", () => {
  const patterns = ["api.example.com", "*.example.org", "10.0.0.1"];
  it("matches exactly, or any subdomain for a wildcard (not the domain itself), case-insensitively", () => {
    expect(hostAllowed("api.example.com", patterns)).toBe(true);
    expect(hostAllowed("API.Example.COM", patterns)).toBe(true);
    expect(hostAllowed("api.example.com.", patterns)).toBe(true);
    expect(hostAllowed("a.example.org", patterns)).toBe(true);
    expect(hostAllowed("a.b.example.org", patterns)).toBe(true);
    expect(hostAllowed("10.0.0.1", patterns)).toBe(true);
  });
  it("matches nothing else", () => {
    for (const host of ["example.com", "www.example.com", "api.example.com.attacker.invalid", "apiexample.com", "example.org", "xexample.org", "a.example.org.evil", "10.0.0.2", "pk-secret.attacker.invalid", "", "[::1]"]) {
      expect(hostAllowed(host, patterns), host).toBe(false);
    }
    expect(hostAllowed("api.example.com", [])).toBe(false);
  });
  it("ignores the port: a URL's hostname has none", () => {
    expect(hostAllowed(new URL("https://api.example.com:8443/x").hostname, patterns)).toBe(true);
    expect(hostAllowed(new URL("http://user:pw@evil.invalid@api.example.com/").hostname, patterns)).toBe(true);
    expect(hostAllowed(new URL("http://api.example.com@evil.invalid/").hostname, patterns)).toBe(false);
  });
  it("describes the patterns for an error message", () => {
    expect(describeAllowedHosts(["a.example"])).toBe("a.example");
    expect(describeAllowedHosts(patterns)).toBe("api.example.com, *.example.org or 10.0.0.1");
  });
});

describe("a secret with allowed hosts in the resolver", () => {
  const set = new VariableSet(
    new Map([
      ["PAYKEY", { value: "pay-value", secret: true, allowedHosts: ["api.example.com"] }],
      ["OPEN", { value: "open-value", secret: true }],
    ]),
    new Map(),
  );
  const env = variableResolver({ current: () => set }, { organizationId: "org", flowId: "flw" }, { id: "n1", name: "" });

  it("resolves for a caller that checks hosts, and tells it which hosts", () => {
    const restricted = new Map<string, readonly string[]>();
    expect(env.substitute("${PAYKEY}/${OPEN}", { credential: true, restricted })).toBe("pay-value/open-value");
    expect([...restricted]).toEqual([["PAYKEY", ["api.example.com"]]]);
  });

  it("is an error, without the value, for a credential that checks no host (a configuration node's)", () => {
    expect(() => env.substitute("${PAYKEY}", { credential: true })).toThrow(SecretHostError);
    try {
      env.substitute("x ${PAYKEY}", { credential: true });
    } catch (err) {
      expect((err as Error).message).toBe("secret PAYKEY may only be sent to api.example.com: it is not available here");
      expect((err as Error).message).not.toContain("pay-value");
    }
    expect(env.substitute("${OPEN}", { credential: true })).toBe("open-value");
  });

  it("reads as empty where secrets never resolve", () => {
    expect(env.substitute("[${PAYKEY}]")).toBe("[]");
    expect(env.get("PAYKEY")).toBeUndefined();
  });
});
