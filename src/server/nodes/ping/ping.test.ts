/**
 * node-red-node-ping's ping node (0.3.4, io/ping/88-ping.js), measured by a TCP answer instead of
 * ICMP (its help says why): the messages it sends in timed and triggered mode, msg.ping for an
 * array payload, the timeout clamp, names that do not resolve, and the outbound rules.
 */
import dns from "node:dns";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import { createOutboundRules, type OutboundRules } from "@/server/runtime/outbound";
import { pingNode } from "./definition";

const loadTestFlow = closingTestFlows();
const allowPrivate = createOutboundRules({ allowPrivate: true });

/** Rules whose DNS knows only `known.test` (127.0.0.1): no test waits on a real resolver. */
const fakeDns: OutboundRules = {
  ...allowPrivate,
  lookup: ((host: string, _opts: unknown, cb: (err: NodeJS.ErrnoException | null, address?: string, family?: number) => void) => {
    if (host === "known.test") cb(null, "127.0.0.1", 4);
    else cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" }));
  }) as unknown as typeof dns.lookup,
};

/** A port that accepts (the "host" answers) and one that refuses, on 127.0.0.1. */
let open: net.Server;
let openPort: number;
let closedPort: number;
beforeAll(async () => {
  open = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => open.listen(0, "127.0.0.1", resolve));
  openPort = (open.address() as AddressInfo).port;
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});
afterAll(() => open.close());

async function pinger(config: Record<string, unknown>, outbound: OutboundRules | undefined = fakeDns, ports?: number[]) {
  return loadTestFlow([{ id: "ping", type: "ping", config }, { id: "sink", type: "sink" }], [{ source: "ping", target: "sink" }], {
    ...(outbound ? { outbound } : {}),
    pingPorts: ports ?? [closedPort, openPort],
  });
}

describe("ping", () => {
  it("triggered: each target of the list answers with its time in ms and its host as the topic, on a copy of the message", async () => {
    const h = await pinger({ mode: "triggered", host: "127.0.0.1, known.test" });
    h.send("ping", { _msgid: "p1", payload: "ignored", keep: "me" });
    const got = await h.waitFor(2);
    expect(got.map((m) => m.topic).sort()).toEqual(["127.0.0.1", "known.test"]);
    for (const m of got) {
      expect(typeof m.payload).toBe("number");
      expect(m.payload as number).toBeGreaterThanOrEqual(0);
      expect(m).toMatchObject({ _msgid: "p1", keep: "me" });
      expect(m.ping).toBeUndefined();
    }
    expect(got[0]).not.toBe(got[1]);
  });

  it("triggered without a target: msg.payload's list, or its array (msg.ping carries the entry, the timeout clamped to 1000..30000)", async () => {
    const h = await pinger({ mode: "triggered" });
    h.send("ping", { payload: "known.test" });
    const [first] = await h.waitFor(1);
    expect(first).toMatchObject({ topic: "known.test", payload: expect.any(Number) });
    expect(first!.ping).toBeUndefined();
    h.send("ping", { payload: ["127.0.0.1", { host: "known.test", name: "web", timeout: 100 }, { host: "nowhere.test", timeout: 99_999 }] as unknown as string });
    const got = (await h.waitFor(4)).slice(1);
    const byHost = Object.fromEntries(got.map((m) => [m.topic as string, m]));
    expect(byHost["127.0.0.1"]).toMatchObject({ payload: expect.any(Number), ping: { host: "127.0.0.1", timeout: 5000 } });
    expect(byHost["known.test"]).toMatchObject({ payload: expect.any(Number), ping: { host: "known.test", name: "web", timeout: 1000 } });
    // A name that does not resolve is not an error: the answer is false, as node-red-node-ping's.
    expect(byHost["nowhere.test"]).toMatchObject({ payload: false, ping: { host: "nowhere.test", timeout: 30000 } });
    expect(h.errors).toEqual([]);
  });

  it("a host that accepts on none of the ports is false: a refused connection is no answer", async () => {
    const h = await pinger({ mode: "triggered", host: "127.0.0.1" }, fakeDns, [closedPort]);
    h.send("ping", { payload: "" });
    const [m] = await h.waitFor(1);
    expect(m).toMatchObject({ topic: "127.0.0.1", payload: false });
  });

  it("a host that does not answer within the timeout is false", async () => {
    // 192.0.2.1 (TEST-NET-1) is never routed: no connection is accepted (a firewall may refuse it at once).
    const h = await pinger({ mode: "triggered" });
    const started = Date.now();
    h.send("ping", { payload: [{ host: "192.0.2.1", timeout: 1000 }] as unknown as string });
    const [m] = await h.waitFor(1, 5000);
    expect(m).toMatchObject({ topic: "192.0.2.1", payload: false });
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it("IPv6 only: an IPv4 address is no answer (false)", async () => {
    const h = await pinger({ mode: "triggered", protocol: "IPv6", host: "127.0.0.1" });
    h.send("ping", { payload: "" });
    const [m] = await h.waitFor(1);
    expect(m).toMatchObject({ topic: "127.0.0.1", payload: false });
  });

  it("timed: the targets every period, from one period after the start, each a new message", async () => {
    const h = await pinger({ mode: "timed", host: "127.0.0.1,known.test", timer: 1 });
    await new Promise((r) => setTimeout(r, 600));
    expect(h.received).toHaveLength(0);
    const got = await h.waitFor(2, 3000);
    expect(got.map((m) => m.topic).sort()).toEqual(["127.0.0.1", "known.test"]);
    expect(new Set(got.map((m) => m._msgid)).size).toBe(2);
    for (const m of got) expect(Object.keys(m).sort()).toEqual(["_msgid", "payload", "topic"]);
  });

  it("the outbound rules: a private address is refused (the node's error, no answer) unless the operator allows it", async () => {
    const h = await pinger({ mode: "triggered", host: "127.0.0.1" }, createOutboundRules({ allowPrivate: false }));
    h.send("ping", { payload: "" });
    await expect.poll(() => h.errors).toHaveLength(1);
    expect(h.errors[0]!.error).toContain("private or reserved address");
    await new Promise((r) => setTimeout(r, 100));
    expect(h.received).toHaveLength(0);
    const refused = { nodeId: "ping", status: { fill: "red", shape: "ring", text: "127.0.0.1 is a private or reserved address; connections there are not allowed" } };
    expect(h.statuses).toEqual([refused]);
    // The next message clears it, as node-red-node-ping does.
    h.send("ping", { payload: "" });
    await expect.poll(() => h.errors).toHaveLength(2);
    expect(h.statuses).toEqual([refused, { nodeId: "ping", status: null }, refused]);
  });

  it("empty targets ([{}], \"[]\", an entry without a host) are unanswered pings, never a crash", async () => {
    // Through the real outbound rules and the real resolver, as on a server.
    const h = await pinger({ mode: "triggered" }, createOutboundRules({ allowPrivate: false }));
    h.send("ping", { payload: [{}, { host: "" }, { name: "x" }, "[]"] as unknown as string });
    const got = await h.waitFor(4);
    expect(got.map((m) => m.payload)).toEqual([false, false, false, false]);
    expect(h.errors).toEqual([]);
  });

  it("an IPv6 zone (which the system would drop) or a name of a private address is refused like the address", async () => {
    const privateName: OutboundRules = {
      ...createOutboundRules({ allowPrivate: false }),
      lookup: ((host: string, _o: unknown, cb: (err: Error | null, address?: string, family?: number) => void) =>
        cb(Object.assign(new Error(`${host} resolves to 10.0.0.5, a private or reserved address; connections there are not allowed`), { name: "BlockedAddressError" }))) as unknown as typeof dns.lookup,
    };
    const zoned = await pinger({ mode: "triggered" }, createOutboundRules({ allowPrivate: false }));
    zoned.send("ping", { payload: ["::1%-", "::ffff:169.254.169.254%x"] as unknown as string });
    await expect.poll(() => zoned.errors).toHaveLength(2);
    for (const e of zoned.errors) expect(e.error).toContain("IPv6 zone");
    const named = await pinger({ mode: "triggered" }, privateName);
    named.send("ping", { payload: "intranet.test" });
    await expect.poll(() => named.errors).toHaveLength(1);
    expect(named.errors[0]!.error).toContain("private or reserved");
    expect(zoned.received).toHaveLength(0);
    expect(named.received).toHaveLength(0);
  });

  it("a message's array entries are copied: msg.ping is the message's own, the sender's payload untouched", async () => {
    const h = await pinger({ mode: "triggered" });
    const entry = { host: "known.test", timeout: 100 };
    h.send("ping", { payload: [entry] as unknown as string });
    const [m] = await h.waitFor(1);
    expect(m!.ping).toEqual({ host: "known.test", timeout: 1000 });
    expect(entry).toEqual({ host: "known.test", timeout: 100 });
  });

  it("a stopped flow's pings end at once: no answer is sent after close", async () => {
    // A name whose lookup never answers holds the ping until its 30 s timeout, or until the flow stops.
    let asked = 0;
    const hanging: OutboundRules = { ...fakeDns, lookup: (() => void asked++) as unknown as typeof dns.lookup };
    const h = await pinger({ mode: "triggered" }, hanging);
    h.send("ping", { payload: [{ host: "hang.test", timeout: 30000 }] as unknown as string });
    await expect.poll(() => asked).toBe(1);
    const started = Date.now();
    await h.close();
    expect(Date.now() - started).toBeLessThan(1000);
    await new Promise((r) => setTimeout(r, 100));
    expect(h.received).toHaveLength(0);
    expect(h.errors).toEqual([]);
  });

  it("more than 64 hosts in a message is the node's error, and nothing is pinged", async () => {
    const h = await pinger({ mode: "triggered" });
    h.send("ping", { payload: Array.from({ length: 65 }, (_, i) => `h${i}.test`).join(",") });
    await expect.poll(() => h.errors).toHaveLength(1);
    expect(h.errors[0]!.error).toContain("at most 64 hosts");
    await new Promise((r) => setTimeout(r, 100));
    expect(h.received).toHaveLength(0);
  });

  it("configuration: the blueprint's node maps; a period under 1 s, a bad target or too many are refused", () => {
    const mapped = pingNode.nodeRed!.fromNodeRed({ protocol: "Automatic", mode: "timed", host: "flowfuse.com", timer: "5", inputs: 0 });
    expect(pingNode.configSchema.parse(mapped)).toEqual({ protocol: "Automatic", mode: "timed", host: "flowfuse.com", timer: 5 });
    expect(pingNode.nodeRed!.toNodeRed(pingNode.configSchema.parse(mapped) as never)).toEqual({ protocol: "Automatic", mode: "timed", host: "flowfuse.com", timer: "5", inputs: 0 });
    expect(pingNode.configSchema.safeParse({ timer: 0.5 }).success).toBe(false);
    expect(pingNode.configSchema.safeParse({ host: "a b" }).success).toBe(false);
    expect(pingNode.configSchema.safeParse({ host: "http://x/" }).success).toBe(false);
    expect(pingNode.configSchema.safeParse({ host: Array.from({ length: 65 }, (_, i) => `h${i}`).join(",") }).success).toBe(false);
    expect(pingNode.nodeRed!.importNotes!({ mode: "timed", timer: "0.5" })).toEqual(["its period of 0.5 s is 1 s here (the shortest)"]);
    // Node-RED's timed ping without a period never pings by itself: a triggered one here, and said so.
    for (const timer of ["0", "", undefined]) {
      expect(pingNode.configSchema.parse(pingNode.nodeRed!.fromNodeRed({ mode: "timed", host: "a.test", timer }))).toMatchObject({ mode: "triggered", host: "a.test" });
    }
    expect(pingNode.nodeRed!.importNotes!({ mode: "timed", timer: "0" })[0]).toContain("never pings by itself");
    expect(pingNode.configSchema.safeParse({ host: "::1%-" }).success).toBe(false);
  });
});
