import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryStore } from "../store";
import { createLogger } from "../logger";
import { ClusterBus, RpcTimeout } from "./cluster-bus";
import type { Duplex } from "node:stream";
import { createHmac } from "node:crypto";
import { PEER_MAX_SKEW_MS, PEER_PATH, PeerLink, acceptPeer, advertisedPeerUrl, signPeerUpgrade } from "./peer-link";

const logger = createLogger({ level: "silent" });
const KEY = Buffer.alloc(32, 7);
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type UpgradeHandler = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void;

async function listen(upgrade: UpgradeHandler): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer((_req, res) => {
    res.statusCode = 404;
    res.end();
  });
  const sockets = new Set<Duplex>();
  server.on("upgrade", (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    sockets.add(socket);
    upgrade(req, socket, head);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** An instance: its bus (with a PeerLink) and, unless `serve` is false, an HTTP server answering POST /_cluster/rpc for it. */
async function instance(store: MemoryStore, id: string, options: { key?: Buffer; serve?: boolean; handler?: (bus: () => ClusterBus) => UpgradeHandler } = {}) {
  const key = options.key ?? KEY;
  const ref: { bus?: ClusterBus } = {};
  let url: string | null = null;
  if (options.serve !== false) {
    const bus = () => ref.bus!;
    url = (await listen(options.handler?.(bus) ?? ((req, socket, head) => void acceptPeer(req, socket, head, { key, instanceId: id, handle: (text) => bus().receiveDirect(text), logger })))).url;
  }
  const peers = new PeerLink(store, id, url, key, logger);
  const bus = (ref.bus = new ClusterBus(store, id, logger, () => undefined, undefined, peers));
  cleanups.push(async () => {
    await bus.close();
    peers.close();
  });
  await bus.start();
  await peers.advertise(true);
  return { bus, peers, url };
}

/** Lets the sender read the target's address (PeerLink reads it on first use, without waiting). */
/** Instances a and b on one store, b serving no peer connection; its inject handler records how each call came. */
async function unreachableTarget() {
  const store = new MemoryStore();
  cleanups.push(() => store.close());
  const a = await instance(store, "a");
  const b = await instance(store, "b", { serve: false });
  const seen: string[] = [];
  b.bus.handle("inject", async (_args, via) => {
    seen.push(via);
    return "ok";
  });
  return { store, a, b, seen };
}

async function learn(peers: PeerLink, target: string): Promise<void> {
  peers.urlOf(target);
  for (let i = 0; i < 50 && peers.urlOf(target) === null; i++) await new Promise((resolve) => setTimeout(resolve, 5));
}

function countingPublishes(store: MemoryStore) {
  const published: string[] = [];
  const publish = store.publish.bind(store);
  store.publish = (channel, message) => {
    published.push(channel);
    return publish(channel, message);
  };
  return published;
}

/** Opens GET /_cluster/peer with `headers`: the upgraded socket, or the refusal's status and body. */
function upgrade(url: string, headers: Record<string, string>): Promise<{ socket: Duplex; proof: unknown } | { status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${PEER_PATH}`, { agent: false, headers: { connection: "Upgrade", upgrade: "flowplane-peer/1", ...headers } });
    req.on("upgrade", (res, socket) => {
      cleanups.push(() => void socket.destroy());
      resolve({ socket, proof: res.headers["x-flowplane-peer-proof"] });
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) }));
    });
    req.on("error", reject);
    req.end();
  });
}

const signedUpgrade = (options: { key?: Buffer; to?: string; at?: number } = {}) => ({
  "x-flowplane-peer": signPeerUpgrade(options.key ?? KEY, options.to ?? "b", options.at),
  "x-flowplane-peer-to": options.to ?? "b",
});

/** A request frame: length, HMAC of the body (with `key`), body. */
function frame(body: string, key = KEY): Buffer {
  const bytes = Buffer.from(body);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(32 + bytes.length);
  return Buffer.concat([length, createHmac("sha256", key).update(bytes).digest(), bytes]);
}

/** The next reply frame's JSON on `socket`, or "closed". */
function nextReply(socket: Duplex): Promise<unknown> {
  return new Promise((resolve) => {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32BE(0)) {
        socket.off("data", onData);
        resolve(JSON.parse(buffered.subarray(4, 4 + buffered.readUInt32BE(0)).toString("utf8")));
      }
    };
    socket.on("data", onData);
    socket.once("close", () => resolve("closed"));
  });
}

describe("requests between instances over their own connection (PeerLink)", () => {
  it("go straight to the target, not through the store's pub/sub, and the handler knows they came directly", async () => {
    const store = new MemoryStore();
    cleanups.push(() => store.close());
    const a = await instance(store, "a");
    const b = await instance(store, "b");
    const seen: string[] = [];
    b.bus.handle("inject", async (args, via) => {
      seen.push(via);
      return { echoed: args };
    });
    await learn(a.peers, "b");
    const published = countingPublishes(store);
    expect(await a.bus.request("b", "inject", { n: 1 }, 2_000)).toEqual({ echoed: { n: 1 } });
    expect(await a.bus.request("b", "inject", { n: 2 }, 2_000)).toEqual({ echoed: { n: 2 } });
    expect(seen).toEqual(["direct", "direct"]);
    expect(published).toEqual([]);
  });

  it("carry a handler's error back as the request's rejection", async () => {
    const store = new MemoryStore();
    cleanups.push(() => store.close());
    const a = await instance(store, "a");
    const b = await instance(store, "b");
    b.bus.handle("inject", async () => {
      throw new Error("the flow refused it");
    });
    await learn(a.peers, "b");
    await expect(a.bus.request("b", "inject", {}, 2_000)).rejects.toThrow("the flow refused it");
  });

  it("go over Redis when the target cannot be reached at its address, and it runs once", async () => {
    const { store, a, seen } = await unreachableTarget();
    // b says it is at an address where nothing listens.
    const closed = await listen(() => undefined);
    await new Promise<void>((resolve) => closed.server.close(() => resolve()));
    await store.set("cluster:peer:b", closed.url);
    await learn(a.peers, "b");
    expect(a.peers.urlOf("b")).toBe(closed.url);
    expect(await a.bus.request("b", "inject", {}, 2_000)).toBe("ok");
    expect(seen).toEqual(["bus"]);
    // And for a while without trying to connect first.
    expect(a.peers.urlOf("b")).toBeNull();
  });

  it("go over Redis when another instance answers at the address (it refuses a request for someone else, which never runs)", async () => {
    const store = new MemoryStore();
    cleanups.push(() => store.close());
    const a = await instance(store, "a");
    const b = await instance(store, "b", { serve: false });
    const c = await instance(store, "c");
    const ran: string[] = [];
    b.bus.handle("inject", async () => {
      ran.push("b");
      return "b";
    });
    c.bus.handle("inject", async () => {
      ran.push("c");
      return "c";
    });
    await store.set("cluster:peer:b", c.url!);
    await learn(a.peers, "b");
    expect(await a.bus.request("b", "inject", {}, 2_000)).toBe("b");
    expect(ran).toEqual(["b"]);
  });

  it("run once when the connection drops after the request arrived: the same request over Redis gets the first handling's reply", async () => {
    const store = new MemoryStore();
    cleanups.push(() => store.close());
    const a = await instance(store, "a");
    const ref: { bus?: ClusterBus } = {};
    // b's server takes the request, then its connection breaks before the answer.
    const b = await instance(store, "b", {
      handler: () => (req, socket, head) => {
        acceptPeer(req, socket, head, { key: KEY, instanceId: "b", handle: (text) => ref.bus!.receiveDirect(text), logger });
        socket.on("data", () => setTimeout(() => socket.destroy(), 20));
      },
    });
    ref.bus = b.bus;
    let runs = 0;
    b.bus.handle("inject", async () => {
      runs++;
      await new Promise((resolve) => setTimeout(resolve, 150));
      return `run ${runs}`;
    });
    await learn(a.peers, "b");
    const published = countingPublishes(store);
    expect(await a.bus.request("b", "inject", {}, 3_000)).toBe("run 1");
    expect(runs).toBe(1);
    // The request went again over b's channel, and the reply came back on a's.
    expect(published).toEqual(["cluster:node:b", "cluster:node:a"]);
  });

  it("report a target that went away after the request may have reached it as gone, never as not reached", async () => {
    const store = new MemoryStore();
    cleanups.push(() => store.close());
    const a = await instance(store, "a");
    // b's connection takes the request and drops; then nobody listens on b's channel (b is gone).
    const dropping = await listen((req, socket, head) => {
      acceptPeer(req, socket, head, { key: KEY, instanceId: "b", handle: () => new Promise(() => undefined), logger });
      socket.on("data", () => socket.destroy());
    });
    await store.set("cluster:peer:b", dropping.url);
    await learn(a.peers, "b");
    const err = await a.bus.request("b", "inject", {}, 2_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcTimeout);
    expect(err).toMatchObject({ notListening: false, targetGone: true });
  });

  it("time out as over Redis when the target takes the request and does not answer", async () => {
    const store = new MemoryStore();
    cleanups.push(() => store.close());
    const a = await instance(store, "a");
    const b = await instance(store, "b");
    b.bus.handle("inject", () => new Promise(() => undefined));
    await learn(a.peers, "b");
    const err = await a.bus.request("b", "inject", {}, 300).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcTimeout);
    expect(err).toMatchObject({ notListening: false });
  });
});

describe("GET /_cluster/peer refuses what another instance of the cluster did not sign", () => {
  async function target() {
    const store = new MemoryStore();
    cleanups.push(() => store.close());
    const b = await instance(store, "b");
    let runs = 0;
    b.bus.handle("inject", async () => {
      runs++;
      return "ran";
    });
    return { url: b.url!, runs: () => runs };
  }
  const envelope = JSON.stringify({ k: "req", id: "x-1", from: "a", op: "inject", args: {} });

  it("answers the request frames of a connection signed with the cluster's key, and proves it holds the key too", async () => {
    const b = await target();
    const headers = signedUpgrade();
    const opened = await upgrade(b.url, headers);
    if (!("socket" in opened)) throw new Error(`refused: ${opened.status}`);
    expect(opened.proof).toBe(createHmac("sha256", KEY).update(`proof\n${headers["x-flowplane-peer"]}`).digest("base64url"));
    const reply = nextReply(opened.socket);
    opened.socket.write(frame(envelope));
    expect(await reply).toEqual({ k: "res", id: "x-1", ok: true, value: "ran" });
    // The same request again (a replay): answered from the first handling, not run again.
    const again = nextReply(opened.socket);
    opened.socket.write(frame(envelope));
    expect(await again).toEqual({ k: "res", id: "x-1", ok: true, value: "ran" });
    expect(b.runs()).toBe(1);
  });

  it("401 without a signature, with another key's, or older than the allowed clock skew (a replay); 421 for another instance", async () => {
    const b = await target();
    for (const [headers, status, message] of [
      [{}, 401, /not a signed connection/],
      [signedUpgrade({ key: Buffer.alloc(32, 8) }), 401, /does not match/],
      [signedUpgrade({ at: Date.now() - PEER_MAX_SKEW_MS - 1_000 }), 401, /too old/],
      [signedUpgrade({ to: "c" }), 421, /not the instance/],
    ] as const) {
      const refused = await upgrade(b.url, headers);
      if ("socket" in refused) throw new Error("upgraded");
      expect(refused.status).toBe(status);
      expect(refused.body.error.message).toMatch(message);
    }
    expect(b.runs()).toBe(0);
  });

  it("closes the connection on a request frame not signed with the cluster's key, without running it", async () => {
    const b = await target();
    const opened = await upgrade(b.url, signedUpgrade());
    if (!("socket" in opened)) throw new Error(`refused: ${opened.status}`);
    const reply = nextReply(opened.socket);
    opened.socket.write(frame(envelope, Buffer.alloc(32, 8)));
    expect(await reply).toBe("closed");
    expect(b.runs()).toBe(0);
  });

  it("a sender does not use an address where the answer cannot prove it holds the key: the request goes over Redis", async () => {
    const { store, a, seen } = await unreachableTarget();
    // An impostor accepts any upgrade (without a proof) and would read what is sent.
    const received: Buffer[] = [];
    const impostor = await listen((_req, socket) => {
      socket.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: flowplane-peer/1\r\nConnection: Upgrade\r\n\r\n");
      socket.on("data", (chunk: Buffer) => received.push(chunk));
    });
    await store.set("cluster:peer:b", impostor.url);
    await learn(a.peers, "b");
    expect(await a.bus.request("b", "inject", { secret: "s3cret" }, 2_000)).toBe("ok");
    expect(seen).toEqual(["bus"]);
    expect(Buffer.concat(received).toString("latin1")).not.toContain("s3cret");
  });
});

describe("advertisedPeerUrl", () => {
  it("is CLUSTER_URL when set, none for 'none', else http on HOST and PORT", () => {
    expect(advertisedPeerUrl({ CLUSTER_URL: "https://node-1.internal:8443/", HOST: "0.0.0.0", PORT: 3000 })).toBe("https://node-1.internal:8443");
    expect(advertisedPeerUrl({ CLUSTER_URL: "none", HOST: "0.0.0.0", PORT: 3000 })).toBeNull();
    expect(advertisedPeerUrl({ HOST: "10.1.2.3", PORT: 3000 })).toBe("http://10.1.2.3:3000");
    expect(advertisedPeerUrl({ HOST: "::1", PORT: 3000 })).toBe("http://[::1]:3000");
    expect(advertisedPeerUrl({ HOST: "127.0.0.1", PORT: 0 })).toBeNull();
    expect(advertisedPeerUrl({ HOST: "0.0.0.0", PORT: 3000 })).toMatch(/^http:\/\/\d+\.\d+\.\d+\.\d+:3000$/);
  });
});
