import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { backoffDelay, LiveSocket, type ConnectionState } from "./live-socket";

class FakeSocket {
  static all: FakeSocket[] = [];
  readyState = 0;
  onopen: (() => void) | null = null;
  sent: unknown[] = [];
  onmessage: ((e: { data: string }) => void) | null = null;
  onclose: ((e: { code: number; reason: string }) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close() {
    this.readyState = 3;
  }
  // What the server does:
  open() {
    this.readyState = 1;
    this.onopen?.();
  }
  ready() {
    this.readyState = 1;
    this.onmessage?.({ data: JSON.stringify({ type: "ready", user_id: "usr_1", organization_id: "org_1" }) });
  }
  frame(f: unknown) {
    this.onmessage?.({ data: JSON.stringify(f) });
  }
  drop(code = 1006, reason = "") {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
}

const last = () => FakeSocket.all.at(-1)!;

describe("LiveSocket", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    FakeSocket.all = [];
  });
  afterEach(() => vi.useRealTimers());

  const make = () => new LiveSocket({ url: "ws://x/ws", WebSocketImpl: FakeSocket as unknown as typeof WebSocket, random: () => 1, baseDelayMs: 100, maxDelayMs: 1000, pingEveryMs: 1000, pongTimeoutMs: 300 });

  it("re-sends the subscription and presence after every reconnect, with growing delays", () => {
    const s = make();
    const states: ConnectionState["status"][] = [];
    s.onState((st) => states.push(st.status));
    s.subscribe({ flowId: "flw_1" });
    s.setPresence("flw_1");
    s.start();
    last().ready();
    expect(last().sent).toEqual([{ type: "subscribe", flow_id: "flw_1", batch: true }, { type: "presence", flow_id: "flw_1" }]);

    last().drop();
    expect(s.getState().status).toBe("offline");
    vi.advanceTimersByTime(99);
    expect(FakeSocket.all).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(FakeSocket.all).toHaveLength(2);
    // The server is still down: the next wait is longer.
    last().drop();
    vi.advanceTimersByTime(199);
    expect(FakeSocket.all).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(FakeSocket.all).toHaveLength(3);
    last().ready();
    expect(last().sent).toEqual([{ type: "subscribe", flow_id: "flw_1", batch: true }, { type: "presence", flow_id: "flw_1" }]);
    expect(states).toEqual(["connecting", "online", "offline", "connecting", "offline", "connecting", "online"]);
    // Back online: the backoff starts from the beginning again.
    last().drop();
    vi.advanceTimersByTime(100);
    expect(FakeSocket.all).toHaveLength(4);
    s.stop();
  });

  it("stops retrying when the server refuses the session", () => {
    const s = make();
    s.start();
    last().ready();
    last().drop(4401, "session revoked");
    expect(s.getState()).toEqual({ status: "signed_out", reason: "session revoked" });
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.all).toHaveLength(1);
  });

  it("gives up on a connection whose pings go unanswered, and reconnects", () => {
    const s = make();
    s.start();
    last().ready();
    vi.advanceTimersByTime(1000);
    expect(last().sent.at(-1)).toEqual({ type: "ping" });
    last().frame({ type: "pong", ts: "" });
    vi.advanceTimersByTime(1000);
    vi.advanceTimersByTime(300);
    expect(s.getState().status).toBe("offline");
    vi.advanceTimersByTime(100);
    expect(FakeSocket.all).toHaveLength(2);
    s.stop();
  });

  it("hands frames to listeners and sends nothing while offline", () => {
    const s = make();
    const frames: unknown[] = [];
    s.onFrame((f) => frames.push(f));
    s.start();
    s.setPresence("flw_2");
    expect(last().sent).toEqual([]);
    last().ready();
    last().frame({ type: "dropped", count: 3 });
    expect(frames).toEqual([{ type: "ready", user_id: "usr_1", organization_id: "org_1" }, { type: "dropped", count: 3 }]);
    s.stop();
  });

  it("asks for debug batches unless told not to, and hands a batch over as one frame", () => {
    const s = make();
    const frames: unknown[] = [];
    s.onFrame((f) => frames.push(f));
    s.subscribe({ topics: ["debug"] });
    s.start();
    last().ready();
    expect(last().sent).toEqual([{ type: "subscribe", topics: ["debug"], batch: true }]);
    const events = [1, 2].map((n) => ({ type: "event", topic: "debug", flow_id: "flw_1", data: { node_id: "d", name: "d", property: "payload", msg: n, format: "number" }, ts: "t" }));
    last().frame({ type: "debug.batch", events });
    expect(frames.at(-1)).toEqual({ type: "debug.batch", events });
    s.stop();

    const plain = new LiveSocket({ url: "ws://x/ws", WebSocketImpl: FakeSocket as unknown as typeof WebSocket, batchDebug: false });
    plain.subscribe({ flowId: "flw_1" });
    plain.start();
    last().ready();
    expect(last().sent).toEqual([{ type: "subscribe", flow_id: "flw_1" }]);
    plain.stop();
  });
});

describe("LiveSocket with tokens", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    FakeSocket.all = [];
  });
  afterEach(() => vi.useRealTimers());

  it("authenticates each connection with a fresh token and renews it before it expires", async () => {
    let n = 0;
    const s = new LiveSocket({
      url: "ws://x/ws",
      WebSocketImpl: FakeSocket as unknown as typeof WebSocket,
      getToken: async () => ({ token: `t${++n}`, expiresAt: Date.now() + 900_000 }),
      reauthBeforeMs: 60_000,
      pingEveryMs: 10_000_000,
    });
    s.start();
    last().open();
    await vi.advanceTimersByTimeAsync(0);
    expect(last().sent).toEqual([{ type: "auth", token: "t1" }]);
    last().ready();
    const auths = () => last().sent.filter((f) => (f as { type: string }).type === "auth");
    await vi.advanceTimersByTimeAsync(839_000);
    expect(auths()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(auths()).toEqual([{ type: "auth", token: "t1" }, { type: "auth", token: "t2" }]);
    // A new connection after a drop authenticates again.
    last().drop();
    await vi.advanceTimersByTimeAsync(20_000);
    last().open();
    await vi.advanceTimersByTimeAsync(0);
    expect(last().sent).toEqual([{ type: "auth", token: "t3" }]);
    s.stop();
  });
});

describe("backoffDelay", () => {
  it("grows exponentially to the cap, with jitter but never near zero", () => {
    expect([1, 2, 3, 4, 10].map((a) => backoffDelay(a, 500, 15_000, () => 1))).toEqual([500, 1000, 2000, 4000, 15_000]);
    expect(backoffDelay(5, 500, 15_000, () => 0)).toBe(250);
  });
});
