/**
 * Links across instances (SPEC §12, issue 21): two instances as real processes on one PostgreSQL
 * and one Redis; the service flow (link-in → function → link-out "return") runs on one, the caller
 * flow on the other. A link-call (static, and dynamic by name) gets its answer back across the
 * cluster bus, a link-out reaches the link-in over there, and once the service flow stops, the call
 * times out with Node-RED's error. Ports 4100-4149.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp } from "@/test/accounts";
import { Sink, TestCluster, until, type ClusterNode } from "@/test/cluster";

const BASE_PORT = 4100;
const SINK_PORT = 4140;

let cluster: TestCluster;
const sink = new Sink();
let token: string;
const tag = Math.random().toString(36).slice(2, 8);
const id = (name: string) => `${name}-${tag}`;
const sinkUrl = (name: string) => `http://127.0.0.1:${SINK_PORT}/${name}`;
const post = (nodeId: string, path: string) => ({ id: id(nodeId), type: "http-request", config: { method: "POST", url: sinkUrl(path), timeout_ms: 5_000 } });

const service = {
  name: "service",
  nodes: [
    { id: id("svc-in"), type: "link-in", name: `service ${tag}` },
    { id: id("svc-fn"), type: "function", config: { code: 'msg.payload = "served " + msg.payload; return msg;' } },
    { id: id("svc-ret"), type: "link-out", config: { mode: "return" } },
    { id: id("svc-in2"), type: "link-in" },
    post("svc-post", "linked"),
  ],
  connections: [
    { source: id("svc-in"), target: id("svc-fn") },
    { source: id("svc-fn"), target: id("svc-ret") },
    { source: id("svc-in2"), target: id("svc-post") },
  ],
};

const caller = {
  name: "caller",
  nodes: [
    { id: id("inj-static"), type: "inject", config: { payload_type: "string", payload: "x" } },
    { id: id("call-static"), type: "link-call", config: { links: [id("svc-in")], timeout_seconds: 10 } },
    post("post-static", "static"),
    { id: id("inj-dynamic"), type: "inject", config: { payload_type: "string", payload: "x" } },
    { id: id("target"), type: "change", config: { rules: [{ t: "set", p: "target", to: `service ${tag}` }] } },
    { id: id("call-dynamic"), type: "link-call", config: { link_type: "dynamic", timeout_seconds: 10 } },
    post("post-dynamic", "dynamic"),
    { id: id("inj-out"), type: "inject", config: { payload_type: "string", payload: "x" } },
    { id: id("out"), type: "link-out", config: { links: [id("svc-in2")] } },
    { id: id("inj-short"), type: "inject", config: { payload_type: "string", payload: "x" } },
    { id: id("call-short"), type: "link-call", config: { links: [id("svc-in")], timeout_seconds: 1 } },
    { id: id("catch"), type: "catch", config: { scope: [id("call-short")] } },
    { id: id("error-text"), type: "change", config: { rules: [{ t: "set", p: "payload", to: "error.message", to_type: "msg" }] } },
    post("post-caught", "caught"),
  ],
  connections: [
    { source: id("inj-static"), target: id("call-static") },
    { source: id("call-static"), target: id("post-static") },
    { source: id("inj-dynamic"), target: id("target") },
    { source: id("target"), target: id("call-dynamic") },
    { source: id("call-dynamic"), target: id("post-dynamic") },
    { source: id("inj-out"), target: id("out") },
    { source: id("inj-short"), target: id("call-short") },
    { source: id("catch"), target: id("error-text") },
    { source: id("error-text"), target: id("post-caught") },
  ],
};

const flows: Record<string, string> = {};

async function createAndDeploy(via: ClusterNode, flow: { name: string; nodes: unknown[]; connections: unknown[] }) {
  const created = await via.request("POST", "/flows", { token, body: flow });
  expect(created.status, created.text).toBe(201);
  const deployed = await via.request("POST", `/flows/${created.body.flow.id}/deploy`, { token });
  expect(deployed.body.deployment?.state, deployed.text).toBe("running");
  return created.body.flow.id as string;
}

async function holderOf(flowId: string): Promise<string> {
  return until(`${flowId} placed`, async () => (await cluster.node("a").request("GET", `/flows/${flowId}`, { token })).body.flow.runtime?.instance_id as string | undefined);
}

async function inject(nodeId: string, payload: string) {
  const res = await cluster.node("a").request("POST", `/nodes/${id(nodeId)}/inject`, { token, body: { payload } });
  expect(res.status, res.text).toBe(200);
}

/**
 * Injects until `expected` reaches the sink at `path`. A link message is not delivered while its
 * flow is between two instances (a loaded machine can make a lease lapse and the flow move); the
 * caller sees that as a lost message or a timeout, so the test tries again rather than flake.
 */
async function injectUntil(nodeId: string, payload: string, path: string, expected: string) {
  const deadline = Date.now() + 30_000;
  while (!sink.bodies(path).includes(expected)) {
    if (Date.now() > deadline) throw new Error(`${expected} never reached /${path}: got ${JSON.stringify(sink.bodies(path))}`);
    await inject(nodeId, payload);
    const waitUntil = Date.now() + 5_000;
    while (!sink.bodies(path).includes(expected) && Date.now() < waitUntil) await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  cluster = new TestCluster({ basePort: BASE_PORT });
  await sink.start(SINK_PORT);
  await Promise.all([cluster.start("a", 0), cluster.start("b", 1)]);
  token = (await signUp(cluster.node("a").request)).accessToken;
  // A deploy made on an instance places an unheld flow there: one flow on each.
  flows.service = await createAndDeploy(cluster.node("a"), service);
  flows.caller = await createAndDeploy(cluster.node("b"), caller);
}, 120_000);

afterAll(async () => {
  await sink.close();
  await cluster?.dispose();
}, 60_000);

describe("links across instances", () => {
  it("the two flows run on different instances", async () => {
    // Each deploy placed its flow where it was made; the fair share (one each) keeps them apart.
    await until("the flows on different instances", async () => {
      const [serviceHolder, callerHolder] = await Promise.all([holderOf(flows.service!), holderOf(flows.caller!)]);
      return serviceHolder !== callerHolder ? true : undefined;
    }, 20_000);
  });

  it("a static link-call gets its answer back from the other instance", async () => {
    await injectUntil("inj-static", "job-1", "static", "served job-1");
    expect(new Set(sink.bodies("static"))).toEqual(new Set(["served job-1"]));
  });

  it("a dynamic link-call finds the link-in by name on the other instance", async () => {
    await injectUntil("inj-dynamic", "job-2", "dynamic", "served job-2");
    expect(new Set(sink.bodies("dynamic"))).toEqual(new Set(["served job-2"]));
  });

  it("a link-out reaches the link-in on the other instance", async () => {
    await injectUntil("inj-out", "sent", "linked", "sent");
    expect(new Set(sink.bodies("linked"))).toEqual(new Set(["sent"]));
  });

  it("once the service flow is stopped, the call times out with Node-RED's error", async () => {
    const stopped = await cluster.node("b").request("PUT", `/flows/${flows.service}`, { token, body: { enabled: false } });
    expect(stopped.status, stopped.text).toBe(200);
    await until("service stopped", async () => ((await cluster.node("a").request("GET", `/flows/${flows.service}`, { token })).body.flow.runtime === null ? true : undefined));
    await inject("inj-short", "late");
    await until("caught", async () => (sink.bodies("caught").length > 0 ? true : undefined), 15_000);
    expect(sink.bodies("caught")).toEqual(["timeout"]);
  });
});
