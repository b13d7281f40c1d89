import { describe, expect, it, vi } from "vitest";
import type { WebSocket } from "ws";
import { ClientOutbox, type OutboxLimits } from "./outbox";
import { WS_CLOSE } from "../../shared/realtime";

/** A socket whose send buffer the test fills and drains by hand. */
function fakeSocket() {
  const sent: string[] = [];
  const ws = {
    OPEN: 1,
    readyState: 1,
    bufferedAmount: 0,
    closed: null as null | { code: number; reason: string },
    terminated: false,
    send(data: string) {
      sent.push(data);
      ws.bufferedAmount += data.length;
    },
    close(code: number, reason: string) {
      ws.closed = { code, reason };
      ws.readyState = 2;
    },
    terminate() {
      ws.terminated = true;
      ws.readyState = 3;
    },
  };
  return { ws, sent, drain: () => (ws.bufferedAmount = 0) };
}

const limits: OutboxLimits = { maxBufferedBytes: 1000, maxBufferedBytesHard: 4000, debugBatchMaxDelayMs: 25, debugBatchMaxEvents: 500, debugBatchMaxBytes: 64 * 1024 };
const event = (topic: string, n: number, pad = 0) => JSON.stringify({ type: "event", topic, flow_id: "flw_1", data: { n, pad: "x".repeat(pad) } });

describe("ClientOutbox: bounded memory for a slow reader", () => {
  it("past the bound drops debug and node.status events (counted), still sends the rest, and reports both once caught up", () => {
    const { ws, sent, drain } = fakeSocket();
    const out = new ClientOutbox(ws as unknown as WebSocket, limits);
    out.event(event("debug", 1, 1200), "debug");
    expect(sent).toHaveLength(1);
    // Now 1,200 bytes wait: over the bound.
    out.event(event("debug", 2), "debug");
    out.event(event("node.status", 3), "node.status");
    out.event(event("node.status", 4), "node.status");
    out.event(event("flow.state", 5), "flow.state");
    expect(sent.map((s) => JSON.parse(s).data?.n)).toEqual([1, 5]);
    drain();
    out.event(event("debug", 6), "debug");
    expect(JSON.parse(sent[2]!)).toEqual({ type: "dropped", count: 1, statuses: 2 });
    expect(JSON.parse(sent[3]!).data.n).toBe(6);
  });

  it("reports debug drops alone as before when no status was dropped", () => {
    const { ws, sent, drain } = fakeSocket();
    const out = new ClientOutbox(ws as unknown as WebSocket, limits);
    out.event(event("debug", 1, 1200), "debug");
    out.event(event("debug", 2), "debug");
    drain();
    out.event(event("debug", 3), "debug");
    expect(JSON.parse(sent[1]!)).toEqual({ type: "dropped", count: 1 });
  });

  it("closes a connection that falls past the hard bound with every kind of frame counted, and cuts it off a second later", () => {
    vi.useFakeTimers();
    try {
      const { ws, sent } = fakeSocket();
      const out = new ClientOutbox(ws as unknown as WebSocket, limits);
      // Frames that are never dropped (control frames, flow states) still count toward the hard bound.
      for (let i = 0; i < 3; i++) out.send({ type: "error", code: "X", message: "y".repeat(1200) });
      out.event(event("flow.state", 1, 1200), "flow.state");
      expect(ws.closed).toEqual({ code: WS_CLOSE.tooSlow, reason: "too slow: the connection fell too far behind" });
      const count = sent.length;
      out.send({ type: "pong", ts: "now" });
      expect(sent).toHaveLength(count);
      vi.advanceTimersByTime(1000);
      expect(ws.terminated).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
