/**
 * SPEC §23 on real processes against the machine's PostgreSQL and Redis: a websocket-listener's
 * socket may land on the instance that does not run its flow. Its frames reach the flow once (a
 * counter in the flow numbers them), `_session` replies come back to it through that instance, a
 * broadcast reaches the clients of both instances, and a path no flow serves is 404 on both. And an http-in route with parameters
 * answers through the instance that does not run it. Two flows on two instances using one listener
 * both get every frame (Node-RED: every websocket-in on a listener does), and the clients of an
 * instance killed with SIGKILL stop counting in the listeners' status ("connected N") of the others.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp } from "@/test/accounts";
import { TestCluster, until, type ClusterNode } from "@/test/cluster";
import { rawSocket, upgradeStatus } from "@/test/ws";

/** A flow answering each frame of the listener `listener` with `<tag>:<frame>` to the client that sent it. */
function taggedEcho(tag: string, listener: string) {
  return {
    name: `echo ${tag}`,
    nodes: [
      { id: `${tag}_in`, type: "websocket-in", position: { x: 0, y: 0 }, config: { server: listener } },
      { id: `${tag}_fn`, type: "function", position: { x: 100, y: 0 }, config: { code: `msg.payload = "${tag}:" + msg.payload; return msg;` } },
      { id: `${tag}_out`, type: "websocket-out", position: { x: 200, y: 0 }, config: { server: listener } },
    ],
    connections: [
      { source: `${tag}_in`, target: `${tag}_fn` },
      { source: `${tag}_fn`, target: `${tag}_out` },
    ],
  };
}

const BASE_PORT = 4250;

let cluster: TestCluster;
let token: string;
let slug: string;

const node = (name: string) => cluster.node(name);
const socketUrl = (via: ClusterNode, path: string) => `ws://127.0.0.1:${via.port}/ws/hooks/${slug}${path}`;

/** Where a flow runs and since when (a flow started again has a new `since`); null while it runs nowhere. */
async function placement(flowId: string): Promise<{ instance_id: string; since: string } | null | undefined> {
  return (await cluster.live()[0]!.request("GET", `/flows/${flowId}`, { token })).body.flow?.runtime;
}

async function holder(flowId: string): Promise<ClusterNode> {
  const instanceId = await until("placed", async () => (await placement(flowId))?.instance_id);
  return cluster.byInstance(instanceId);
}

beforeAll(async () => {
  cluster = new TestCluster({ basePort: BASE_PORT });
  await Promise.all([cluster.start("a", 0), cluster.start("b", 1)]);
  const user = await signUp(node("a").request);
  token = user.accessToken;
  slug = (await node("a").request("GET", "/organizations", { token })).body.organizations[0].slug;
}, 90_000);

afterAll(async () => {
  await cluster?.dispose();
}, 60_000);

describe("websocket listeners across instances", () => {
  it("serve a socket on the instance without the flow: each frame reaches the flow once, replies and broadcasts reach the client", async () => {
    try {
      const listener = await node("a").request("POST", "/config-nodes", { token, body: { type: "websocket-listener", name: "count", config: { path: "/count" } } });
      expect(listener.status, listener.text).toBe(201);
      const id = listener.body.config_node.id as string;
      const created = await node("a").request("POST", "/flows", {
        token,
        body: {
          name: "numbered echo",
          nodes: [
            { id: "cs_in", type: "websocket-in", position: { x: 0, y: 0 }, config: { server: id } },
            { id: "cs_fn", type: "function", position: { x: 100, y: 0 }, config: { code: 'const n = (context.get("n") || 0) + 1; context.set("n", n); msg.payload = msg.payload + ":" + n; return msg;' } },
            { id: "cs_out", type: "websocket-out", position: { x: 200, y: 0 }, config: { server: id } },
            { id: "cs_inj", type: "inject", position: { x: 0, y: 100 }, config: { payload: "all", payload_type: "string" } },
            { id: "cs_bc", type: "websocket-out", position: { x: 200, y: 100 }, config: { server: id } },
          ],
          connections: [
            { source: "cs_in", target: "cs_fn" },
            { source: "cs_fn", target: "cs_out" },
            { source: "cs_inj", target: "cs_bc" },
          ],
        },
      });
      expect(created.status, created.text).toBe(201);
      const flowId = created.body.flow.id as string;
      expect((await node("b").request("POST", `/flows/${flowId}/deploy`, { token })).body.deployment.state).toBe("running");
      const runs = await holder(flowId);
      const other = cluster.live().find((n) => n.name !== runs.name)!;

      for (const via of [runs, other]) expect(await upgradeStatus(socketUrl(via, "/nothing"))).toBe(404);

      const far = rawSocket(socketUrl(other, "/count"));
      const near = rawSocket(socketUrl(runs, "/count"));
      await Promise.all([far.opened, near.opened]);
      for (const text of ["a", "b", "c"]) far.ws.send(text);
      expect(await far.received(3)).toEqual(["a:1", "b:2", "c:3"]);
      near.ws.send("d");
      expect(await near.received(1)).toEqual(["d:4"]);
      // The reply to `near` went to it alone.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(far.frames).toEqual(["a:1", "b:2", "c:3"]);

      expect((await other.request("POST", "/nodes/cs_inj/inject", { token, body: {} })).status).toBe(200);
      expect(await far.received(4)).toEqual(["a:1", "b:2", "c:3", "all"]);
      expect(await near.received(2)).toEqual(["d:4", "all"]);

      // The flow stops: both clients are closed, and the path is 404 on both instances.
      expect((await other.request("DELETE", `/flows/${flowId}`, { token })).status).toBe(204);
      expect((await far.closed).code).toBe(1001);
      expect((await near.closed).code).toBe(1001);
      for (const via of [runs, other]) expect(await upgradeStatus(socketUrl(via, "/count"))).toBe(404);
    } catch (err) {
      console.error(cluster.logs());
      throw err;
    }
  }, 120_000);
});

describe("webhook routes with parameters across instances", () => {
  it("reach the flow from the instance without it, with msg.req.params", async () => {
    let flowId: string | undefined;
    try {
      const created = await node("a").request("POST", "/flows", {
        token,
        body: {
          name: "params",
          nodes: [
            { id: "cp_in", type: "http-in", position: { x: 0, y: 0 }, config: { method: "get", path: "/greet/:name" } },
            { id: "cp_fn", type: "function", position: { x: 100, y: 0 }, config: { code: "msg.payload = { hello: msg.req.params.name }; return msg;" } },
            { id: "cp_out", type: "http-response", position: { x: 200, y: 0 }, config: {} },
          ],
          connections: [
            { source: "cp_in", target: "cp_fn" },
            { source: "cp_fn", target: "cp_out" },
          ],
        },
      });
      expect(created.status, created.text).toBe(201);
      flowId = created.body.flow.id as string;
      expect((await node("a").request("POST", `/flows/${flowId}/deploy`, { token })).body.deployment.state).toBe("running");
      const runs = await holder(flowId);
      const other = cluster.live().find((n) => n.name !== runs.name)!;
      for (const via of [runs, other]) {
        const res = await via.request("GET", `/hooks/${slug}/greet/Ada`);
        expect(res.status, `${via.name}: ${res.text}`).toBe(200);
        expect(res.body).toEqual({ hello: "Ada" });
        expect((await via.request("GET", `/hooks/${slug}/greet/Ada/more`)).status).toBe(404);
      }
    } catch (err) {
      console.error(cluster.logs());
      throw err;
    } finally {
      // The tests below place one flow on each instance (fair share): this one goes.
      if (flowId) await node("a").request("DELETE", `/flows/${flowId}`, { token });
    }
  }, 60_000);
});

describe("one websocket listener, flows on two instances", () => {
  let listenerId: string;
  const flows: Record<"one" | "two", string> = { one: "", two: "" };
  const wsInStatus = async (flowId: string, tag: string) => {
    const res = await cluster.live()[0]!.request("GET", `/flows/${flowId}/nodes`, { token });
    return (res.body.nodes as Array<{ id: string; status: { text?: string } | null }> | undefined)?.find((n) => n.id === `${tag}_in`)?.status?.text;
  };

  it("every flow on the listener gets every frame, from a socket on either instance", async () => {
    try {
      const listener = await node("a").request("POST", "/config-nodes", { token, body: { type: "websocket-listener", name: "fan", config: { path: "/fan" } } });
      expect(listener.status, listener.text).toBe(201);
      listenerId = listener.body.config_node.id as string;
      // A deploy made on an instance places an unheld flow there; the fair share (one each) keeps them apart.
      for (const [tag, via] of [["one", "a"], ["two", "b"]] as const) {
        const created = await node(via).request("POST", "/flows", { token, body: taggedEcho(tag, listenerId) });
        expect(created.status, created.text).toBe(201);
        flows[tag] = created.body.flow.id as string;
        expect((await node(via).request("POST", `/flows/${flows[tag]}/deploy`, { token })).body.deployment.state).toBe("running");
      }
      await until("the two flows on different instances", async () => ((await holder(flows.one)).name !== (await holder(flows.two)).name ? true : undefined), 30_000);
      // The lease names a flow's new holder before the flow has started there, and a hand-over to
      // balance the cluster can follow the deploys: until both flows run, a frame reaches only one.
      let probes = 0;
      await until(
        "both flows serving the listener",
        async () => {
          const probe = rawSocket(socketUrl(node("a"), "/fan"));
          await probe.opened;
          const text = `probe ${++probes}`;
          probe.ws.send(text);
          await probe.received(2, 1_000).catch(() => undefined);
          probe.ws.close();
          await probe.closed;
          const got = new Set(probe.frames.map(String));
          return got.has(`one:${text}`) && got.has(`two:${text}`) ? true : undefined;
        },
        30_000,
      );

      for (const via of [node("a"), node("b")]) {
        const client = rawSocket(socketUrl(via, "/fan"));
        await client.opened;
        client.ws.send(`via ${via.name}`);
        const got = await client.received(2);
        expect(new Set(got), `through ${via.name}`).toEqual(new Set([`one:via ${via.name}`, `two:via ${via.name}`]));
        // Once each: nothing more arrives.
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(client.frames).toHaveLength(2);
        client.ws.close();
        await client.closed;
      }
    } catch (err) {
      console.error(cluster.logs());
      throw err;
    }
  }, 120_000);

  it("a client of an instance killed with SIGKILL stops counting on the listener of the flow elsewhere", async () => {
    try {
      const runsOne = await holder(flows.one);
      const edge = cluster.live().find((n) => n.name !== runsOne.name)!;
      await until("no client counted", async () => ((await wsInStatus(flows.one, "one")) !== "connected 1" ? true : undefined), 15_000);
      const client = rawSocket(socketUrl(edge, "/fan"));
      await client.opened;
      await until("the client counted by flow one's listener", async () => ((await wsInStatus(flows.one, "one")) === "connected 1" ? true : undefined), 15_000);

      const placedBefore = await placement(flows.one);

      // The edge dies without closing the socket: no close event ever reaches the listener.
      cluster.signal(edge.name, "SIGKILL");
      let seen: string | undefined;
      await until(
        "the dead edge's client forgotten",
        async () => {
          seen = await wsInStatus(flows.one, "one");
          return seen === "disconnected" ? true : undefined;
        },
        20_000,
      ).catch(async (err: unknown) => {
        // What tells a listener that never forgot the client from one that started again (no status until an event, as Node-RED's).
        const now = await placement(flows.one).catch(String);
        throw new Error(`${String(err)}; last status ${JSON.stringify(seen)}; flow one placed ${JSON.stringify(placedBefore)} before the kill, ${JSON.stringify(now)} after; flow two ${JSON.stringify(await placement(flows.two).catch(String))}`);
      });
      client.ws.terminate();
    } catch (err) {
      console.error(cluster.logs());
      throw err;
    }
  }, 120_000);
});
