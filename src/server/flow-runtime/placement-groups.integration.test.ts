/**
 * Placement groups (SPEC §20, issue 35): every flow using an MQTT broker configuration with a
 * persistent session (clean session off, a client id) runs on one instance, since two instances
 * would connect with the same client id and take the session from each other. Two
 * ClusteredFlowRuntime instances in this process over the test app's database and store: a flow
 * deployed through the instance that does not run its group is placed with the group, a rebalance
 * moves flows of their own but never splits a group, two groups joined by a deploy end up on one
 * instance, and after the group's instance is cut off (as a kill -9 cuts it) the other takes the
 * whole group.
 */
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { clusteredInstances } from "@/test/clustered-instances";
import { restClient } from "@/test/app";
import { signUp } from "@/test/accounts";
import { cuttable } from "@/test/cuttable-store";
import type { AppServices } from "@/server/app-services";
import { ClusteredFlowRuntime, type ClusterTimings } from "./clustered";

/** Placement every 150 ms; a lease long enough for an event loop the embedded database stalls. */
const TIMINGS: ClusterTimings = { leaseTtlMs: 3_000, renewMs: 200, tickMs: 150, routeTtlMs: 6_000 };

const testApp = setUpTestApp();
const instance = clusteredInstances(() => testApp.app, TIMINGS);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(50);
  }
}

describe("flows sharing an MQTT broker with a persistent session", () => {
  let a: ClusteredFlowRuntime;
  let b: ClusteredFlowRuntime;
  let cutA: () => Promise<void>;
  let token: string;
  let restA: ReturnType<typeof restClient>;
  let restB: ReturnType<typeof restClient>;
  const tag = randomBytes(3).toString("hex");
  const brokers: Record<"p" | "q" | "clean", string> = { p: "", q: "", clean: "" };
  const flows: Record<string, string> = {};

  const holderOf = async (flowId: string) => (await a.placement(flowId))?.instanceId ?? null;

  /** A flow with an mqtt-in on each of `brokerIds` (autoConnect off: no broker is needed), deployed through `rest`. */
  async function deployFlow(rest: ReturnType<typeof restClient>, name: string, brokerIds: string[]): Promise<string> {
    const nodes = brokerIds.map((broker, i) => ({ id: `${name}-${tag}-${i}`, type: "mqtt-in", config: { broker, topic: `wt_mqtt/${tag}/${name}/${i}`, qos: 1 } }));
    const created = await rest("POST", "/flows", { token, body: { name, nodes: nodes.length > 0 ? nodes : [{ id: `${name}-${tag}`, type: "inject", config: {} }], connections: [] } });
    expect(created.status, created.text).toBe(201);
    const flowId = created.body.flow.id as string;
    const deployed = await rest("POST", `/flows/${flowId}/deploy`, { token });
    expect(deployed.status, deployed.text).toBe(200);
    expect(deployed.body.deployment?.state, deployed.text).toBe("running");
    flows[name] = flowId;
    return flowId;
  }

  beforeAll(async () => {
    const cuttableStore = cuttable(testApp.app.store);
    cutA = () => cuttableStore.cut();
    a = instance("a", cuttableStore.store);
    await a.start();
    restA = restClient({ ...testApp.app, flowRuntime: a } as AppServices);
    token = (await signUp(restA)).accessToken;
    const broker = async (name: string, persistent: boolean) => {
      const created = await restA("POST", "/config-nodes", {
        token,
        body: { type: "mqtt-broker", name, config: { broker: "127.0.0.1", port: 1883, autoConnect: false, clientid: `fp-${tag}-${name}`, cleansession: !persistent } },
      });
      expect(created.status, created.text).toBe(201);
      return created.body.config_node.id as string;
    };
    brokers.p = await broker("p", true);
    brokers.q = await broker("q", true);
    brokers.clean = await broker("clean", false);
    // Everything on a, alone: the group of p (g1, g2), q's flow, and flows of their own.
    await deployFlow(restA, "g1", [brokers.p]);
    await deployFlow(restA, "g2", [brokers.p]);
    await deployFlow(restA, "q1", [brokers.q]);
    for (const name of ["s1", "s2", "s3"]) await deployFlow(restA, name, [brokers.clean]);
    await deployFlow(restA, "s4", []);
    for (const [name, flowId] of Object.entries(flows)) expect(await holderOf(flowId), name).toBe(a.instanceId);
    b = instance("b", testApp.app.store);
    await b.start();
    restB = restClient({ ...testApp.app, flowRuntime: b } as AppServices);
  }, 60_000);

  it("rebalances flows of their own onto a new instance and keeps the group on one", async () => {
    await eventually("b given flows", async () => (b.heldFlowIds().length >= 3 ? true : undefined));
    // Watched over several placement ticks of both: the group is never split.
    for (let i = 0; i < 20; i++) {
      const [h1, h2] = await Promise.all([holderOf(flows.g1!), holderOf(flows.g2!)]);
      expect(h1).toBe(a.instanceId);
      expect(h2).toBe(a.instanceId);
      await sleep(50);
    }
    expect(a.heldFlowIds().length + b.heldFlowIds().length).toBe(Object.keys(flows).length);
  });

  it("places a flow deployed through the other instance with its group", async () => {
    const g3 = await deployFlow(restB, "g3", [brokers.p]);
    expect(await holderOf(g3)).toBe(a.instanceId);
    expect(b.heldFlowIds()).not.toContain(g3);
  });

  it("brings two groups joined by a deploy onto one instance", async () => {
    // q's flow on b, p's group on a (the rebalance may have left q1 on either).
    // Moved by hand: disabled and enabled again through b, where nothing of q runs. b runs it
    // unless a's placement tick finds the flow enabled and unheld first (a's tick and b's request
    // race, under load now and then): a flow runs where it is first taken, so try again.
    for (let attempt = 0; attempt < 5 && (await holderOf(flows.q1!)) !== b.instanceId; attempt++) {
      for (const enabled of [false, true]) {
        const flow = await restB("GET", `/flows/${flows.q1!}`, { token });
        const updated = await restB("PUT", `/flows/${flows.q1!}`, { token, body: { revision: flow.body.flow.revision, enabled } });
        expect(updated.status, updated.text).toBe(200);
      }
    }
    expect(await holderOf(flows.q1!)).toBe(b.instanceId);
    const joined = await deployFlow(restB, "m", [brokers.p, brokers.q]);
    const group = [flows.g1!, flows.g2!, flows.g3!, flows.q1!, joined];
    const holder = await eventually("the joined group on one instance", async () => {
      const holders = await Promise.all(group.map(holderOf));
      return holders.every((h) => h !== null && h === holders[0]) ? holders[0] : undefined;
    });
    // The instance running more of them (a: g1, g2, g3 against q1) keeps them.
    expect(holder).toBe(a.instanceId);
  });

  it("moves the whole group when its instance is cut off", async () => {
    const group = [flows.g1!, flows.g2!, flows.g3!, flows.q1!, flows.m!];
    expect(await Promise.all(group.map(holderOf))).toEqual(group.map(() => a.instanceId));
    await cutA();
    await eventually("the group on b", async () => (group.every((flowId) => b.holds(flowId)) ? true : undefined), 15_000);
    // a, cut off, could not prove its leases and stopped them; b took them only after that.
    for (const flowId of group) expect(a.holds(flowId)).toBe(false);
  });
});
