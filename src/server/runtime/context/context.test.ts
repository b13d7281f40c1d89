/**
 * The durability rule of SPEC §13 in the engine alone (a fake backend stands for PostgreSQL): a
 * message sent after a context write is delivered only once the write is stored; writes of many
 * messages go in one batch; a failing store holds the messages and retries. And the function
 * node's view of the same scopes: flow.increment, host writes reaching the sandbox, the
 * organization's budget, global.increment through the host.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FlowEngine, type FlowSpec } from "@/server/runtime/engine";
import type { Message, NodeFactory } from "@/server/runtime/types";
import { createNodeRegistry } from "@/server/nodes/registry";
import { SandboxPool } from "@/server/runtime/sandbox/sandbox-pool";
import { ContextJournal, type ContextWrite, type StoredWrite } from "./context-journal";
import { ContextScope, type OrgUsage } from "./context-scope";

/** An in-memory stand-in for context_entries: versions from one counter, additions added. */
class FakeBackend {
  rows = new Map<string, { json: string | null; version: number }>();
  batches: ContextWrite[][] = [];
  private version = 0;
  /** While set, commits wait for it (a slow database). */
  gate: Promise<void> | undefined;
  failNext = 0;
  async commit(writes: ContextWrite[]): Promise<StoredWrite[]> {
    if (this.gate) await this.gate;
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error("database unavailable");
    }
    this.batches.push(writes);
    return writes.map((w) => {
      const id = `${w.organizationId}/${w.scope}/${w.key}`;
      let json = w.json;
      if (w.increment !== undefined) {
        const before = this.rows.get(id)?.json;
        const n = before ? (JSON.parse(before) as unknown) : 0;
        json = JSON.stringify((typeof n === "number" ? n : 0) + w.increment);
      }
      const row = { json, version: ++this.version };
      this.rows.set(id, row);
      return { organizationId: w.organizationId, scope: w.scope, key: w.key, json, version: row.version };
    });
  }
  value(scope: string, key: string): unknown {
    const json = this.rows.get(`org_test/${scope}/${key}`)?.json;
    return json ? JSON.parse(json) : undefined;
  }
}

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

async function load(nodes: Array<{ id: string; type: string; config?: Record<string, unknown> }>, connections: Array<[string, string]>, options: { limit?: number } = {}) {
  const backend = new FakeBackend();
  const journal = new ContextJournal({ backend });
  const usage: OrgUsage = { bytes: 0, limit: options.limit ?? 1_000_000 };
  const global = new ContextScope("org_test", "global", usage, journal);
  let flowScope: ContextScope | undefined;
  const received: Message[] = [];
  const errors: string[] = [];
  const registry = createNodeRegistry();
  const own: Record<string, NodeFactory> = {
    sink: () => ({
      input(msg, _send, done) {
        received.push(msg);
        done();
      },
    }),
    // Writes msg.payload to flow context, then sends the message on.
    writer: (ctx) => ({
      input(msg, send, done) {
        ctx.context.flow.set("k", msg.payload);
        send(msg);
        done();
      },
    }),
    // Sets flow.fromHost on the host (as a change node would), then passes the message on.
    hostset: (ctx) => ({
      input(msg, send, done) {
        ctx.context.flow.set("fromHost", msg.payload);
        send(msg);
        done();
      },
    }),
  };
  const pool = new SandboxPool({ size: 1 });
  const engine = new FlowEngine({
    types: registry.runtimeTypes(Object.fromEntries(Object.entries(own).map(([type, behaviour]) => [type, { behaviour, outputs: () => 1 }]))),
    services: { sandboxes: pool },
    callbacks: { onFlowState: () => undefined, onNodeStatus: () => undefined, onDebug: () => undefined, onNodeError: (e) => errors.push(e.error) },
    contextStores: (spec) => {
      flowScope = new ContextScope(spec.organizationId, spec.flowId, usage, journal);
      return { flow: flowScope, global, close: () => journal.flushed() };
    },
    durability: journal,
    closeTimeoutMs: 500,
  });
  const spec: FlowSpec = {
    flowId: "flw_ctx",
    organizationId: "org_test",
    organizationSlug: "acme",
    revision: 1,
    nodes: nodes.map((n) => ({ id: n.id, type: n.type, name: "", config: n.type in own ? {} : (registry.get(n.type)!.configSchema.parse(n.config ?? {}) as Record<string, unknown>) })),
    connections: connections.map(([source, target]) => ({ source, target, source_port: 0 })),
  };
  expect(await engine.deploy(spec)).toBe("running");
  open.push(async () => {
    await engine.close();
    await pool.close();
  });
  const waitFor = async (n: number) => {
    const deadline = Date.now() + 5000;
    while (received.length < n) {
      if (Date.now() > deadline) throw new Error(`expected ${n} messages, got ${received.length}; errors: ${JSON.stringify(errors)}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    return received;
  };
  return { engine, backend, journal, received, errors, waitFor, send: (node: string, payload: unknown) => engine.receive("flw_ctx", node, { _msgid: Math.random().toString(36).slice(2), payload }), flow: () => flowScope!, global, usage };
}

const tick = () => new Promise((r) => setTimeout(r, 30));

describe("the durability rule", () => {
  it("holds what a handler sent until its writes are stored, and stores the writes of many messages in one batch", async () => {
    const h = await load([{ id: "w", type: "writer" }, { id: "s", type: "sink" }], [["w", "s"]]);
    let open!: () => void;
    h.backend.gate = new Promise((resolve) => (open = resolve));
    for (const p of [1, 2, 3]) h.send("w", p);
    await tick();
    expect(h.received).toEqual([]);
    open();
    const got = await h.waitFor(3);
    expect(got.map((m) => m.payload)).toEqual([1, 2, 3]);
    // One row for the key, its last value, in one batch.
    expect(h.backend.batches).toHaveLength(1);
    expect(h.backend.batches[0]!.map((w) => [w.key, w.json])).toEqual([["k", "3"]]);
    expect(h.backend.value("flw_ctx", "k")).toBe(3);
  });

  it("keeps holding while the store fails, and delivers in order once a retry stores the writes", async () => {
    const h = await load([{ id: "w", type: "writer" }, { id: "s", type: "sink" }], [["w", "s"]]);
    h.backend.failNext = 2;
    h.send("w", "a");
    h.send("w", "b");
    await tick();
    expect(h.received).toEqual([]);
    const got = await h.waitFor(2);
    expect(got.map((m) => m.payload)).toEqual(["a", "b"]);
    expect(h.backend.value("flw_ctx", "k")).toBe("b");
  });

  it("another flow's writes hold nothing; a global write holds every flow of the organization", async () => {
    const h = await load([{ id: "w", type: "writer" }, { id: "s", type: "sink" }], [["w", "s"]]);
    const other: FlowSpec = { flowId: "flw_other", organizationId: "org_test", organizationSlug: "acme", revision: 1, nodes: [{ id: "s2", type: "sink", name: "", config: {} }], connections: [] };
    expect(await h.engine.deploy(other)).toBe("running");
    let open!: () => void;
    h.backend.gate = new Promise((resolve) => (open = resolve));
    h.send("w", "held");
    h.engine.receive("flw_other", "s2", { _msgid: "free", payload: "not held" });
    await tick();
    expect(h.received.map((m) => m.payload)).toEqual(["not held"]);
    // A write of the organization's global context: the other flow's messages may depend on it.
    h.global.set("g", 1);
    h.engine.receive("flw_other", "s2", { _msgid: "after-global", payload: "after global" });
    await tick();
    expect(h.received.map((m) => m.payload)).toEqual(["not held"]);
    open();
    await h.waitFor(3);
    expect(h.received.map((m) => m.payload).sort()).toEqual(["after global", "held", "not held"]);
  });

  it("a message whose handler wrote nothing is not held when nothing is waiting to be stored", async () => {
    const h = await load([{ id: "s", type: "sink" }], []);
    h.send("s", "plain");
    await h.waitFor(1);
    expect(h.backend.batches).toEqual([]);
  });
});

describe("context in function code, over the durable scopes", () => {
  it("flow.increment counts, its write is stored before the message goes on, and a host write reaches the sandbox", async () => {
    const h = await load(
      [
        { id: "f", type: "function", config: { code: "msg.payload = [flow.increment('n'), flow.increment('n', 10), flow.get('fromHost') ?? null]; return msg;" } },
        { id: "h", type: "hostset" },
        { id: "s", type: "sink" },
      ],
      [["f", "s"], ["h", "f"]],
    );
    h.send("f", null);
    expect((await h.waitFor(1))[0]!.payload).toEqual([1, 11, null]);
    expect(h.backend.value("flw_ctx", "n")).toBe(11);
    h.send("h", "set on the host");
    expect((await h.waitFor(2))[1]!.payload).toEqual([12, 22, "set on the host"]);
    expect(h.flow().get("n")).toBe(22);
    // The sandbox's own writes win over an older host write of the same key.
    h.flow().set("n", 100);
    h.send("f", null);
    expect((await h.waitFor(3))[2]!.payload).toEqual([101, 111, "set on the host"]);
  });

  it("increment refuses a non-number amount; a non-number value counts as 0", async () => {
    const h = await load(
      [
        { id: "f", type: "function", config: { code: "flow.set('s', 'text'); let e; try { flow.increment('s', 'x'); } catch (err) { e = err.message; } msg.payload = [e, flow.increment('s', 2.5)]; return msg;" } },
        { id: "s", type: "sink" },
      ],
      [["f", "s"]],
    );
    h.send("f", null);
    expect((await h.waitFor(1))[0]!.payload).toEqual(["increment: the amount must be a finite number", 2.5]);
  });

  it("global.get/set/keys/increment go through the host's scope (stored before the reply); context.global is the same object", async () => {
    const h = await load(
      [
        { id: "f", type: "function", config: { code: "global.set('cfg', { a: 1 }); context.global.set('b', true); msg.payload = [global.get('cfg'), global.keys().sort(), global.increment('hits'), global.increment('hits', 4), context.global === global]; return msg;" } },
        { id: "s", type: "sink" },
      ],
      [["f", "s"]],
    );
    h.send("f", null);
    expect((await h.waitFor(1))[0]!.payload).toEqual([{ a: 1 }, ["b", "cfg"], 1, 5, true]);
    expect(h.backend.value("global", "hits")).toBe(5);
    expect(h.backend.value("global", "cfg")).toEqual({ a: 1 });
    expect(h.global.get("b")).toBe(true);
  });

  it("past the organization's budget, flow.set and global.set throw 'context is full' and nothing is written", async () => {
    const h = await load(
      [
        {
          id: "f",
          type: "function",
          config: { code: "const out = []; for (const c of [flow, global]) { try { c.set('big', 'x'.repeat(300)); out.push('ok'); } catch (e) { out.push(e.message); } } flow.set('small', 1); msg.payload = out; return msg;" },
        },
        { id: "s", type: "sink" },
      ],
      [["f", "s"]],
      { limit: 200 },
    );
    h.send("f", null);
    expect((await h.waitFor(1))[0]!.payload).toEqual(["context is full", "context is full"]);
    expect(h.flow().keys()).toEqual(["small"]);
    expect(h.global.keys()).toEqual([]);
    expect(() => h.flow().set("big", "x".repeat(300))).toThrow("context is full");
  });
});
