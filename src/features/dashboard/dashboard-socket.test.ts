import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DASHBOARD_PENDING_INPUTS, DashboardSocket, dashboardSocketUrl, type DashboardConnection } from "./dashboard-socket";
import { fixturePageView } from "./fixtures";

class FakeSocket {
  static all: FakeSocket[] = [];
  readyState = 0;
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
  page() {
    this.readyState = 1;
    this.onmessage?.({ data: JSON.stringify({ type: "dashboard.page", socket_id: "s", view: fixturePageView() }) });
  }
  drop(code = 1006) {
    this.readyState = 3;
    this.onclose?.({ code, reason: "" });
  }
}
const last = () => FakeSocket.all.at(-1)!;
const settle = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe("DashboardSocket", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    FakeSocket.all = [];
    vi.stubGlobal("window", { location: { protocol: "https:", host: "app.test" }, addEventListener: () => undefined, removeEventListener: () => undefined });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });
  const make = (share?: string) => new DashboardSocket({ org: "acme", path: "/home", share, WebSocketImpl: FakeSocket as unknown as typeof WebSocket, random: () => 1, baseDelayMs: 100, maxDelayMs: 1000 });

  it("builds the page's socket URL with the share token", () => {
    expect(dashboardSocketUrl({ protocol: "https:", host: "app.test" }, "acme", "/a b", "tok")).toBe("wss://app.test/ws/dashboard/acme?path=%2Fa+b&share=tok");
    expect(dashboardSocketUrl({ protocol: "http:", host: "h" }, "acme", "/home")).toBe("ws://h/ws/dashboard/acme?path=%2Fhome");
  });

  it("is online once the page arrives, reconnects with growing delays, and sends only when open", () => {
    const s = make("tok");
    const states: DashboardConnection["status"][] = [];
    s.onState((st) => states.push(st.status));
    s.start();
    expect(last().url).toBe("wss://app.test/ws/dashboard/acme?path=%2Fhome&share=tok");
    expect(s.send({ type: "ping" })).toBe("dropped");
    last().page();
    expect(s.getState().status).toBe("online");
    expect(s.send({ type: "dashboard.input", widget_id: "w", event: "click", msg: {} })).toBe("sent");
    last().drop();
    expect(s.getState()).toMatchObject({ status: "offline", attempt: 1 });
    vi.advanceTimersByTime(99);
    expect(FakeSocket.all).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(FakeSocket.all).toHaveLength(2);
    last().drop();
    vi.advanceTimersByTime(150);
    expect(FakeSocket.all).toHaveLength(2);
    vi.advanceTimersByTime(50);
    expect(FakeSocket.all).toHaveLength(3);
    last().page();
    expect(states).toEqual(["connecting", "online", "offline", "connecting", "offline", "connecting", "online"]);
    s.stop();
  });

  it("keeps a widget's inputs until the page arrives (open is not enough: the server reads frames from the page on), in order and bounded", () => {
    const s = make();
    s.start();
    const input = (n: number) => ({ type: "dashboard.input" as const, widget_id: "w", event: "send", msg: { payload: n } });
    expect(s.send(input(1))).toBe("queued");
    last().readyState = 1; // open, but the page has not arrived
    expect(s.send(input(2))).toBe("queued");
    expect(s.send({ type: "dashboard.event", event: "$pageview", page_id: "p" })).toBe("dropped");
    // A group folded right after a reload reaches the flow too (Dashboard 1's ui_control hears it).
    const fold = { type: "dashboard.group" as const, page_id: "p", group_id: "g", open: false };
    expect(s.send(fold)).toBe("queued");
    expect(last().sent).toEqual([]);
    last().page();
    expect(last().sent).toEqual([input(1), input(2), fold]);
    expect(s.send(input(3))).toBe("sent");
    // While offline: kept for the next connection; beyond the bound the oldest go.
    last().drop();
    for (let n = 0; n < DASHBOARD_PENDING_INPUTS + 5; n++) expect(s.send(input(100 + n))).toBe("queued");
    vi.advanceTimersByTime(100);
    last().page();
    expect(last().sent).toHaveLength(DASHBOARD_PENDING_INPUTS);
    expect(last().sent[0]).toEqual(input(105));
    // A page change empties the queue: those inputs were the other page's widgets'.
    last().drop();
    s.send(input(7));
    s.setPath("/other");
    last().page();
    expect(last().sent).toEqual([]);
    // A refusal too.
    last().drop();
    s.send(input(8));
    vi.advanceTimersByTime(100);
    last().drop(4401);
    expect(s.send(input(9))).toBe("dropped");
    s.stop();
  });

  it("stops for good when the viewer is refused or the share link revoked, saying why", () => {
    for (const [code, text] of [
      [4401, /signed out/],
      [4404, /no longer exists/],
      [4410, /revoked/],
    ] as const) {
      const s = make();
      s.start();
      last().page();
      const before = FakeSocket.all.length;
      last().drop(code);
      const state = s.getState();
      expect(state.status).toBe("closed");
      expect(state.status === "closed" && state.reason).toMatch(text);
      vi.advanceTimersByTime(60_000);
      expect(FakeSocket.all.length).toBe(before);
    }
  });

  it("uploads a file in chunks, each leaving after the last was answered, with progress; refused, lost or offline it fails saying why", async () => {
    const s = make();
    await expect(s.upload("w", { name: "a", size: 1, type: "" }, new Uint8Array(1))).rejects.toThrow(/not connected/);
    s.start();
    last().page();
    const ws = last();
    const reply = (frame: Record<string, unknown>) => ws.onmessage?.({ data: JSON.stringify(frame) });
    const bytes = new Uint8Array(300_000).map((_, i) => i % 256);
    const progress: number[] = [];
    const done = s.upload("w", { name: "big.bin", size: bytes.length, type: "application/octet-stream" }, bytes, (r) => progress.push(r));
    await settle();
    const chunks = () => ws.sent.filter((f) => (f as { type: string }).type === "dashboard.upload") as Array<{ widget_id: string; upload_id: string; seq: number; data: string; last: boolean; file?: unknown }>;
    expect(chunks()).toHaveLength(1);
    expect(chunks()[0]).toMatchObject({ seq: 0, last: false, file: { name: "big.bin", size: 300_000 } });
    const id = chunks()[0]!.upload_id;
    reply({ type: "dashboard.upload", upload_id: id, received: 147_456, done: false });
    expect(chunks().map((c) => [c.seq, c.last, "file" in c])).toEqual([
      [0, false, true],
      [1, false, false],
    ]);
    reply({ type: "dashboard.upload", upload_id: id, received: 294_912, done: false });
    reply({ type: "dashboard.upload", upload_id: id, received: 300_000, done: true });
    await done;
    expect(progress).toEqual([147_456, 294_912, 300_000]);
    // The chunks put together are the file.
    const joined = Uint8Array.from(chunks().flatMap((c) => [...Uint8Array.from(atob(c.data), (ch) => ch.charCodeAt(0))]));
    expect(joined).toEqual(bytes);

    // Two at once take turns: the second's first chunk leaves once the first is answered done.
    const refused = s.upload("w", { name: "x", size: 3, type: "" }, new Uint8Array(3));
    const lost = s.upload("w2", { name: "y", size: 3, type: "" }, new Uint8Array(3));
    await settle();
    expect(chunks().at(-1)).toMatchObject({ widget_id: "w" });
    const rid = chunks().at(-1)!.upload_id;
    reply({ type: "dashboard.error", code: "PAYLOAD_TOO_LARGE", message: "the file is larger than 1000 bytes", upload_id: rid });
    await expect(refused).rejects.toThrow("the file is larger than 1000 bytes");
    await settle();
    expect(chunks().at(-1)).toMatchObject({ widget_id: "w2", seq: 0 });
    ws.drop();
    await expect(lost).rejects.toThrow(/connection was lost/);
  });

  it("a new page path is a new connection, of the same tab, and not a reconnect", () => {
    const s = make();
    const states: DashboardConnection[] = [];
    s.onState((st) => states.push(st));
    s.start();
    const tab = new URL(last().url).searchParams.get("tab");
    expect(tab).toMatch(/^[0-9a-f]{24}$/);
    last().page();
    s.setPath("/settings");
    expect(last().url).toContain("path=%2Fsettings");
    expect(new URL(last().url).searchParams.get("tab")).toBe(tab);
    expect(FakeSocket.all).toHaveLength(2);
    // The page notices say nothing of it (ConnectionNotice); a drop after it is a reconnect again.
    expect(states.map((st) => st.status === "connecting" && st.switching === true)).toEqual([false, false, true]);
    last().drop();
    expect(s.getState().status).toBe("offline");
    s.stop();
  });
});
