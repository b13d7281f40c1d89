import { describe, expect, it, vi } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import { WebhookRegistry } from "@/server/runtime/webhooks";
import { SOCKET_ROUTE_METHOD, type SocketEvent } from "@/server/runtime/socket-hooks";
import { frameMessage, outgoingData, statusOf, type EndpointEvent } from "./endpoint";
import { EDGE_SWEEP_MS, ListenerConnection } from "./listener";
import type { NodeContext } from "@/server/runtime/types";

/**
 * The websocket nodes' message rules, after Node-RED's 22-websocket_spec.js: what a frame becomes
 * (payload or whole message), what websocket-out sends (nothing without a payload, objects as
 * JSON, Buffers as binary, the whole message without `_session`), the status texts, and a node
 * without a listener or client reported as Node-RED's missing configuration.
 */

const loadTestFlow = closingTestFlows();
const ctx = { newMessageId: () => "m1" } as unknown as NodeContext;

describe("frames and messages", () => {
  it("a frame is the payload, or with wholemsg the parsed message (not JSON or not an object: the payload)", () => {
    expect(frameMessage(ctx, "hello", false, "s1")).toEqual({ _msgid: "m1", payload: "hello", _session: { type: "websocket", id: "s1" } });
    expect(frameMessage(ctx, '{"text":"hi","_msgid":"keep"}', true, "s1")).toEqual({ _msgid: "keep", text: "hi", _session: { type: "websocket", id: "s1" } });
    expect(frameMessage(ctx, "123", true, "s1")).toMatchObject({ payload: 123 });
    expect(frameMessage(ctx, "not json", true, "s1")).toMatchObject({ payload: "not json" });
    expect(frameMessage(ctx, Buffer.from([1]), false, "s1").payload).toEqual(Buffer.from([1]));
  });

  it("sends the payload as text (objects as JSON), Buffers as they are, nothing without a payload or for an empty string", () => {
    expect(outgoingData({ _msgid: "m", payload: "hello" }, false)).toBe("hello");
    expect(outgoingData({ _msgid: "m", payload: { a: 1 } }, false)).toBe('{"a":1}');
    expect(outgoingData({ _msgid: "m", payload: 5 }, false)).toBe("5");
    expect(outgoingData({ _msgid: "m", payload: Buffer.from("b") }, false)).toEqual(Buffer.from("b"));
    expect(outgoingData({ _msgid: "m", topic: "hello" }, false)).toBeUndefined();
    expect(outgoingData({ _msgid: "m", payload: "" }, false)).toBeUndefined();
    expect(JSON.parse(outgoingData({ _msgid: "m", text: "hello", _session: { type: "websocket", id: "x" } }, true) as string)).toEqual({ _msgid: "m", text: "hello" });
  });

  it("shows Node-RED's status texts", () => {
    expect(statusOf({ kind: "opened", count: 2, id: "s" })).toEqual({ fill: "green", shape: "dot", text: "connected 2" });
    expect(statusOf({ kind: "opened", count: "", id: "s" })).toEqual({ fill: "green", shape: "dot", text: "connected" });
    expect(statusOf({ kind: "closed", count: 1, id: "s" })).toEqual({ fill: "green", shape: "dot", text: "connected 1" });
    expect(statusOf({ kind: "closed", count: 0, id: "s" })).toEqual({ fill: "red", shape: "ring", text: "disconnected" });
    expect(statusOf({ kind: "error", id: "s", error: "x" })).toEqual({ fill: "red", shape: "ring", text: "error" });
  });
});

describe("a websocket node without a listener or client", () => {
  it.each(["websocket-in", "websocket-out"])("%s reports the missing configuration", async (type) => {
    const flow = await loadTestFlow([{ id: "n1", type }], []);
    expect(flow.errors).toEqual([{ nodeId: "n1", error: expect.stringContaining("missing server configuration") }]);
  });
});

describe("a listener's sessions (listener.ts)", () => {
  function listenerWith(edgesAlive: (ids: string[]) => Promise<Set<string>>) {
    const registry = new WebhookRegistry();
    const listener = new ListenerConnection({ slug: "acme", organizationId: "org_1", flowId: "flw_1", listenerId: "l1", path: "/ws", wholemsg: false, registry, hooks: { publish: () => undefined, edgesAlive } }).open();
    const events: EndpointEvent[] = [];
    const frames: string[] = [];
    listener.attach({ event: (e) => events.push(e), receive: (f) => frames.push(String(f.data)), busy: () => false, waiting: () => 0 });
    const send = (event: SocketEvent) => registry.handle("acme", { method: SOCKET_ROUTE_METHOD, path: "/ws", query: {}, headers: {}, body: event });
    return { listener, events, frames, send };
  }

  it("takes a frame sent again (same seq) once", async () => {
    const l = listenerWith(async (ids) => new Set(ids));
    await l.send({ event: "open", session: "s1", edge: "i1", seq: 1 });
    await l.send({ event: "message", session: "s1", edge: "i1", seq: 2, data: "a", binary: false });
    await l.send({ event: "message", session: "s1", edge: "i1", seq: 2, data: "a", binary: false });
    await l.send({ event: "message", session: "s1", edge: "i1", seq: 3, data: "b", binary: false });
    expect(l.frames).toEqual(["a", "b"]);
    l.listener.close();
  });

  it("forgets the clients of an edge found dead twice in a row, and only those", async () => {
    vi.useFakeTimers();
    try {
      let alive = new Set(["i1", "i2"]);
      const l = listenerWith(async (ids) => new Set(ids.filter((id) => alive.has(id))));
      await l.send({ event: "open", session: "s1", edge: "i1", seq: 1 });
      await l.send({ event: "open", session: "s2", edge: "i2", seq: 1 });
      expect(l.events.at(-1)).toMatchObject({ kind: "opened", count: 2 });
      alive = new Set(["i1"]);
      await vi.advanceTimersByTimeAsync(EDGE_SWEEP_MS);
      expect(l.events.at(-1)).toMatchObject({ kind: "opened", count: 2 });
      await vi.advanceTimersByTimeAsync(EDGE_SWEEP_MS);
      expect(l.events.at(-1)).toEqual({ kind: "closed", count: 1, id: "s2" });
      await vi.advanceTimersByTimeAsync(EDGE_SWEEP_MS * 3);
      expect(l.events.filter((e) => e.kind === "closed")).toHaveLength(1);
      l.listener.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
