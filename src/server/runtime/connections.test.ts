import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ConnectionPool } from "./connections";
import { FlowEngine, type FlowSpec } from "./engine";
import type { ConfigNodeSnapshot } from "../../shared/config-nodes";
import type { NodeFactory, NodeStatus } from "./types";

/**
 * One shared connection per instance (SPEC §19), with a fake connection kind: a "broker"
 * configuration node whose connections are counted, and a "client" node that holds one while its
 * flow runs, as MQTT nodes will.
 */

interface FakeConnection {
  id: number;
  host: string;
  organizationId: string;
  closed: boolean;
}

class FakeBrokers {
  opened: FakeConnection[] = [];
  failNext = 0;
  open(host: string, organizationId: string): Promise<FakeConnection> {
    return new Promise((resolve, reject) => {
      setTimeout(() => {
        if (this.failNext > 0) {
          this.failNext--;
          reject(new Error(`connection refused by ${host}`));
          return;
        }
        const c = { id: this.opened.length + 1, host, organizationId, closed: false };
        this.opened.push(c);
        resolve(c);
      }, 5);
    });
  }
  get open_(): FakeConnection[] {
    return this.opened.filter((c) => !c.closed);
  }
}

const brokerSchema = z.object({ host: z.string().default("broker.local") });

function setUp() {
  const brokers = new FakeBrokers();
  const errors: Array<{ flowId: string; nodeId: string; error: string }> = [];
  const statuses: Array<{ flowId: string; nodeId: string; status: NodeStatus | null }> = [];
  /** Which connection each running client node holds. */
  const held = new Map<string, FakeConnection>();
  const client: NodeFactory = async (ctx) => {
    const broker = ctx.configNode<{ host: string }>(String(ctx.node.config.broker ?? ""), "fake-broker");
    if (!broker) return {};
    try {
      const lease = await broker.connect("fake", {
        open: () => brokers.open(broker.config.host, ctx.organizationId),
        close: (c) => {
          c.closed = true;
        },
      });
      held.set(`${ctx.flowId}/${ctx.node.id}`, lease.connection);
      ctx.status({ fill: "green", shape: "dot", text: "connected" });
    } catch (err) {
      // As a connection node does: the failure is the node's status and error, the flow runs on.
      ctx.log.error(err);
    }
    return {};
  };
  const pool = new ConnectionPool();
  const engine = new FlowEngine({
    types: new Map([["fake-client", { behaviour: client, outputs: () => 0 }]]),
    connections: pool,
    configSchemaOf: (type) => (type === "fake-broker" ? brokerSchema : undefined),
    callbacks: {
      onFlowState: () => undefined,
      onNodeStatus: (e) => statuses.push({ flowId: e.flowId, nodeId: e.nodeId, status: e.status }),
      onDebug: () => undefined,
      onNodeError: (e) => errors.push({ flowId: e.flowId, nodeId: e.nodeId, error: e.error }),
    },
    closeTimeoutMs: 500,
  });
  return { brokers, errors, statuses, held, pool, engine };
}

function broker(id: string, revision: number, host = "broker.local"): ConfigNodeSnapshot {
  return { id, type: "fake-broker", name: "", config: { host }, revision, sealed_credentials: {} };
}

function flow(flowId: string, organizationId: string, configNodes: Record<string, ConfigNodeSnapshot>, brokerId = "b1"): FlowSpec {
  return {
    flowId,
    organizationId,
    organizationSlug: organizationId,
    revision: 1,
    nodes: [{ id: `${flowId}-client`, type: "fake-client", name: "", config: { broker: brokerId } }],
    connections: [],
    configNodes,
  };
}

const engines: FlowEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});

function started() {
  const s = setUp();
  engines.push(s.engine);
  return s;
}

describe("ConnectionPool", () => {
  it("opens once for concurrent users, counts them, and closes with the last release", async () => {
    const pool = new ConnectionPool();
    let opened = 0;
    let closed = 0;
    const kind = { open: async () => ({ n: ++opened }), close: () => void closed++ };
    const key = { organizationId: "o1", configNodeId: "c1", revision: 1, kind: "k" };
    const [a, b] = await Promise.all([pool.acquire(key, kind), pool.acquire(key, kind)]);
    expect(a.connection).toBe(b.connection);
    expect(opened).toBe(1);
    expect(pool.users(key)).toBe(2);
    await a.release();
    await a.release(); // a second release of the same lease counts once
    expect(closed).toBe(0);
    await b.release();
    expect(closed).toBe(1);
    expect(pool.size()).toBe(0);
  });

  it("hands an open failure to every waiting user and opens again on the next acquire", async () => {
    const pool = new ConnectionPool();
    let attempts = 0;
    const kind = {
      open: async () => {
        attempts++;
        if (attempts === 1) throw new Error("refused");
        return "ok";
      },
    };
    const key = { organizationId: "o1", configNodeId: "c1", revision: 1, kind: "k" };
    const results = await Promise.allSettled([pool.acquire(key, kind), pool.acquire(key, kind)]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(pool.users(key)).toBe(0);
    const lease = await pool.acquire(key, kind);
    expect(lease.connection).toBe("ok");
    expect(attempts).toBe(2);
  });

  it("keys by organization, revision, kind and variant: equal ids of two organizations never share", async () => {
    const pool = new ConnectionPool();
    let n = 0;
    const kind = { open: async () => ++n };
    const base = { organizationId: "o1", configNodeId: "c1", revision: 1, kind: "k" };
    const leases = await Promise.all([
      pool.acquire(base, kind),
      pool.acquire({ ...base, organizationId: "o2" }, kind),
      pool.acquire({ ...base, revision: 2 }, kind),
      pool.acquire({ ...base, kind: "other" }, kind),
      pool.acquire({ ...base, variant: "v2" }, kind),
    ]);
    expect(new Set(leases.map((l) => l.connection)).size).toBe(5);
  });
});

describe("one connection per instance for the flows using a configuration node's revision (SPEC §19)", () => {
  it("two flows using the same revision share one connection; it closes when the last stops", async () => {
    const { engine, brokers, held } = started();
    await engine.deploy(flow("f1", "org1", { b1: broker("b1", 1) }));
    await engine.deploy(flow("f2", "org1", { b1: broker("b1", 1) }));
    expect(brokers.opened).toHaveLength(1);
    expect(held.get("f1/f1-client")).toBe(held.get("f2/f2-client"));
    await engine.stop("f1");
    expect(brokers.open_).toHaveLength(1);
    await engine.stop("f2");
    expect(brokers.open_).toHaveLength(0);
    expect(engine.connections.size()).toBe(0);
  });

  it("a redeploy to a new revision opens a new connection; the old one closes when its last user goes", async () => {
    const { engine, brokers, held } = started();
    await engine.deploy(flow("f1", "org1", { b1: broker("b1", 1) }));
    await engine.deploy(flow("f2", "org1", { b1: broker("b1", 1) }));
    const first = brokers.opened[0]!;
    // POST /config-nodes/{id}/deploy redeploys its users one by one: f1 first.
    await engine.deploy(flow("f1", "org1", { b1: broker("b1", 2, "broker-2.local") }));
    expect(brokers.opened).toHaveLength(2);
    expect(held.get("f1/f1-client")!.host).toBe("broker-2.local");
    expect(first.closed).toBe(false); // f2 still runs revision 1
    await engine.deploy(flow("f2", "org1", { b1: broker("b1", 2, "broker-2.local") }));
    expect(first.closed).toBe(true);
    expect(brokers.opened).toHaveLength(2);
    expect(held.get("f2/f2-client")).toBe(held.get("f1/f1-client"));
  });

  it("an open failure is reported to every user and retried on the next deploy", async () => {
    const { engine, brokers, errors, held } = started();
    brokers.failNext = 1;
    await Promise.all([engine.deploy(flow("f1", "org1", { b1: broker("b1", 1) })), engine.deploy(flow("f2", "org1", { b1: broker("b1", 1) }))]);
    expect(errors.filter((e) => e.error.includes("connection refused by broker.local")).map((e) => e.flowId).sort()).toEqual(["f1", "f2"]);
    expect(engine.state("f1")).toBe("running");
    expect(held.size).toBe(0);
    await engine.deploy(flow("f1", "org1", { b1: broker("b1", 1) }));
    expect(held.get("f1/f1-client")).toBeDefined();
    expect(brokers.open_).toHaveLength(1);
  });

  it("never shares across organizations, even for equal configuration node ids and revisions", async () => {
    const { engine, brokers, held } = started();
    await engine.deploy(flow("f1", "org1", { b1: broker("b1", 1) }));
    await engine.deploy(flow("f2", "org2", { b1: broker("b1", 1) }));
    expect(brokers.opened).toHaveLength(2);
    expect(held.get("f1/f1-client")!.organizationId).toBe("org1");
    expect(held.get("f2/f2-client")!.organizationId).toBe("org2");
    await engine.stop("f2");
    expect(held.get("f1/f1-client")!.closed).toBe(false);
  });

  it("a reference the deployment does not carry, or to another type, is the node's error and the flow runs", async () => {
    const { engine, errors, brokers } = started();
    expect(await engine.deploy(flow("f1", "org1", {}, "nope"))).toBe("running");
    expect(await engine.deploy(flow("f2", "org1", { b1: { ...broker("b1", 1), type: "tls-config" } }))).toBe("running");
    expect(errors.map((e) => e.error)).toEqual([
      "configuration node nope (fake-broker) is not part of this deployment",
      "configuration node b1 is of type tls-config, which this server does not have",
    ]);
    expect(brokers.opened).toHaveLength(0);
  });
});
