import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryStore } from "../store";
import { createLogger } from "../logger";
import { ClusterBus, RpcTimeout } from "./cluster-bus";
import { PEER_MAX_BODY_BYTES, PEER_MAX_SKEW_MS, PEER_PATH, PeerLink, advertisedPeerUrl, servePeerRequest, signPeerRequest } from "./peer-link";

const logger = createLogger({ level: "silent" });
const KEY = Buffer.alloc(32, 7);
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listen(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** An instance: its bus (with a PeerLink) and, unless `serve` is false, an HTTP server answering POST /_cluster/rpc for it. */
async function instance(store: MemoryStore, id: string, options: { key?: Buffer; serve?: boolean; handler?: http.RequestListener } = {}) {
  const key = options.key ?? KEY;
  const ref: { bus?: ClusterBus } = {};
  let url: string | null = null;
  if (options.serve !== false) {
    url = (await listen(options.handler ?? ((req, res) => void servePeerRequest(req, res, { key, instanceId: id, handle: (text) => ref.bus!.receiveDirect(text) })))).url;
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

function post(url: string, body: string, headers: Record<string, string>, method = "POST") {
  return fetch(`${url}${PEER_PATH}`, { method, headers, body: method === "GET" ? undefined : body });
}

describe("requests between instances over HTTP (PeerLink)", () => {
  it("go straight to the target, not through the store's pub/sub, and the handler knows they came over HTTP", async () => {
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
    expect(seen).toEqual(["http", "http"]);
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
    const store = new MemoryStore();
    cleanups.push(() => store.close());
    const a = await instance(store, "a");
    const b = await instance(store, "b", { serve: false });
    const seen: string[] = [];
    b.bus.handle("inject", async (_args, via) => {
      seen.push(via);
      return "ok";
    });
    // b says it is at an address where nothing listens.
    const closed = await listen(() => undefined);
    await new Promise<void>((resolve) => closed.server.close(() => resolve()));
    await store.set("cluster:peer:b", closed.url);
    await learn(a.peers, "b");
    expect(a.peers.urlOf("b")).toBe(closed.url);
    expect(await a.bus.request("b", "inject", {}, 2_000)).toBe("ok");
    expect(seen).toEqual(["bus"]);
    // And for a while without trying HTTP first.
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
      handler: (req, res) => {
        void servePeerRequest(req, res, { key: KEY, instanceId: "b", handle: (text) => ref.bus!.receiveDirect(text) });
        req.on("end", () => setTimeout(() => req.socket.destroy(), 20));
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
    // Something at b's address takes the request and drops the connection; nobody listens on b's channel.
    const dropping = await listen((req) => req.on("data", () => req.socket.destroy()));
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

describe("POST /_cluster/rpc refuses what another instance of the cluster did not sign", () => {
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
  const signed = (body: string, options: { key?: Buffer; to?: string; at?: number } = {}) => ({
    "content-type": "application/json",
    "x-flowplane-peer": signPeerRequest(options.key ?? KEY, options.to ?? "b", Buffer.from(body), options.at),
    "x-flowplane-peer-to": options.to ?? "b",
  });

  it("answers a request signed with the cluster's key", async () => {
    const b = await target();
    const res = await post(b.url, envelope, signed(envelope));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ k: "res", id: "x-1", ok: true, value: "ran" });
    expect(b.runs()).toBe(1);
  });

  it("401 without a signature, with another key's, or with a body that is not the one signed", async () => {
    const b = await target();
    const attempts: Array<[string, Record<string, string>]> = [
      [envelope, { "content-type": "application/json" }],
      [envelope, signed(envelope, { key: Buffer.alloc(32, 8) })],
      // Another body of the same length under the signature of the first.
      [envelope.replace('"from":"a"', '"from":"z"'), signed(envelope)],
      // Another length: the signed head does not match either.
      [envelope.replace('"args":{}', '"args":[1]'), signed(envelope)],
    ];
    for (const [body, headers] of attempts) {
      const res = await post(b.url, body, headers);
      expect(res.status).toBe(401);
      expect((await res.json()).error.code).toBe("UNAUTHENTICATED");
    }
    expect(b.runs()).toBe(0);
  });

  it("401 for a signed request older than the allowed clock skew (a replay)", async () => {
    const b = await target();
    const res = await post(b.url, envelope, signed(envelope, { at: Date.now() - PEER_MAX_SKEW_MS - 1_000 }));
    expect(res.status).toBe(401);
    expect((await res.json()).error.message).toMatch(/too old/);
    expect(b.runs()).toBe(0);
  });

  it("runs a request delivered twice once", async () => {
    const b = await target();
    const first = await post(b.url, envelope, signed(envelope));
    const again = await post(b.url, envelope, signed(envelope));
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(await again.json()).toEqual({ k: "res", id: "x-1", ok: true, value: "ran" });
    expect(b.runs()).toBe(1);
  });

  it("421 for a request signed for another instance, 413 for a body over the bound, 405 for another method", async () => {
    const b = await target();
    const other = await post(b.url, envelope, signed(envelope, { to: "c" }));
    expect(other.status).toBe(421);
    expect((await other.json()).error.code).toBe("MISDIRECTED");
    // Refused on the signed length alone, before a byte of the body is read.
    const huge = await new Promise<number>((resolve, reject) => {
      const length = PEER_MAX_BODY_BYTES + 1;
      const req = http.request(`${b.url}${PEER_PATH}`, {
        method: "POST",
        headers: { "content-length": length, "x-flowplane-peer": signPeerRequest(KEY, "b", Buffer.alloc(length)), "x-flowplane-peer-to": "b" },
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on("error", reject);
      req.write("{");
    });
    expect(huge).toBe(413);
    const get = await post(b.url, "", {}, "GET");
    expect(get.status).toBe(405);
    expect(b.runs()).toBe(0);
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
