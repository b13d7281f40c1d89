/**
 * Dashboards across instances (SPEC §21), two instances as real processes on one PostgreSQL and
 * one Redis (ports 4600-4609): a viewer on the instance that does not run the flow clicks a
 * ui-button; the input reaches the instance running the flow (store pub/sub), and the ui-text's
 * update comes back to the viewer; a viewer on the other instance gets the broadcast. After the
 * instance running the flow is killed (-9), the flow fails over and the chart keeps its points.
 */
import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp } from "@/test/accounts";
import { TestCluster, until, sleep, type ClusterNode } from "@/test/cluster";
import { connect } from "@/test/ws";
import { deriveKey } from "@/server/auth/crypto";
import { DASHBOARD_SOCKET_PATH } from "@/shared/dashboard";

const BASE_PORT = 4600;
let cluster: TestCluster;
let owner: Awaited<ReturnType<typeof signUp>>;
let slug: string;
let flowId: string;
let cookie: string;
const tag = Math.random().toString(36).slice(2, 8);
const id = (name: string) => `${name}-${tag}`;

const socketUrl = (node: ClusterNode) => `ws://127.0.0.1:${node.port}${DASHBOARD_SOCKET_PATH}/${slug}?path=/plant`;

async function holderOf(flow: string): Promise<string> {
  return until(`${flow} placed`, async () => {
    for (const n of cluster.live()) {
      const res = await n.request("GET", `/flows/${flow}`, { token: owner.accessToken }).catch(() => null);
      const instance = res?.body?.flow?.runtime?.instance_id as string | undefined;
      if (instance) return instance;
    }
    return undefined;
  }, 30_000);
}

beforeAll(async () => {
  cluster = new TestCluster({ basePort: BASE_PORT });
  await Promise.all([cluster.start("a", 0), cluster.start("b", 1)]);
  const b = cluster.node("b");
  owner = await signUp(b.request);
  const token = owner.accessToken;
  slug = (await b.request("GET", "/auth/profile", { token })).body.organization.slug;
  const post = async (body: Record<string, unknown>) => {
    const res = await b.request("POST", "/config-nodes", { token, body });
    expect(res.status, res.text).toBe(201);
    return res.body.config_node.id as string;
  };
  const base = await post({ type: "ui-base", name: "Plant", config: {} });
  const page = await post({ type: "ui-page", name: "Plant", config: { ui: base, path: "/plant" } });
  const group = await post({ type: "ui-group", name: "Line", config: { page } });
  const created = await b.request("POST", "/flows", {
    token,
    body: {
      name: "line",
      nodes: [
        { id: id("btn"), type: "ui-button", config: { group, payload: "go", payloadType: "str" } },
        { id: id("fn"), type: "function", config: { code: "delete msg._client; msg.payload = 'answered ' + msg.payload; return msg;" } },
        { id: id("txt"), type: "ui-text", config: { group } },
        { id: id("chart"), type: "ui-chart", config: { group, removeOlderPoints: 100 } },
        { id: id("inj"), type: "inject", config: { props: [{ p: "payload", v: "1", v_type: "num" }, { p: "topic", v: "line", v_type: "str" }] } },
        // A viewer's own answer (msg._client kept): that viewer's tab only.
        { id: id("mine"), type: "ui-button", config: { group, payload: "yours", payloadType: "str" } },
        { id: id("own"), type: "ui-text", config: { group } },
      ],
      connections: [
        { source: id("mine"), target: id("own") },
        { source: id("btn"), target: id("fn") },
        { source: id("fn"), target: id("txt") },
        { source: id("inj"), target: id("chart") },
      ],
    },
  });
  expect(created.status, created.text).toBe(201);
  flowId = created.body.flow.id;
  // A deploy made on an instance places the flow there.
  expect((await b.request("POST", `/flows/${flowId}/deploy`, { token })).body.deployment?.state).toBe("running");
  const secret = deriveKey("cluster-test-jwt-secret-at-least-32-chars", "next-auth-v1").toString("base64url");
  cookie = `next-auth.session-token=${await encode({ token: { sub: owner.userId, sid: owner.sessionId }, secret })}`;
}, 120_000);

afterAll(async () => {
  await cluster?.dispose();
}, 60_000);

describe("dashboards on two instances", () => {
  it("a viewer on the other instance drives the flow and sees its answer; every instance's viewers get broadcasts", async () => {
    const holder = cluster.byInstance(await holderOf(flowId));
    const other = cluster.live().find((n) => n.name !== holder.name)!;
    const viewer = connect(socketUrl(other), { cookie });
    const local = connect(socketUrl(holder), { cookie });
    await viewer.next((f) => f.type === "dashboard.page", 10_000);
    await local.next((f) => f.type === "dashboard.page", 10_000);
    viewer.send({ type: "dashboard.input", widget_id: id("btn"), event: "click", msg: {} });
    expect((await viewer.next((f) => f.type === "dashboard.update" && f.widget_id === id("txt"), 10_000)).msg.payload).toBe("answered go");
    expect((await local.next((f) => f.type === "dashboard.update" && f.widget_id === id("txt"), 10_000)).msg.payload).toBe("answered go");
    viewer.ws.close();
    local.ws.close();
  }, 60_000);

  it("a viewer's own answer follows their tab to a page opened on the other instance, with who they are (msg._client.user), and nobody else's", async () => {
    const holder = cluster.byInstance(await holderOf(flowId));
    const other = cluster.live().find((n) => n.name !== holder.name)!;
    const tab = "0123456789abcdef" + tag.padEnd(8, "0").replace(/[^0-9a-f]/g, "0");
    const first = connect(`${socketUrl(other)}&tab=${tab}`, { cookie });
    await first.next((f) => f.type === "dashboard.page", 10_000);
    first.send({ type: "dashboard.input", widget_id: id("mine"), event: "click", msg: {} });
    const answer = await first.next((f) => f.type === "dashboard.update" && f.widget_id === id("own"), 10_000);
    expect(answer.msg.payload).toBe("yours");
    expect(answer.msg._client.user).toMatchObject({ userId: owner.userId, email: owner.email, name: "Ada Lovelace" });
    first.ws.close();
    const stateOn = async (node: ClusterNode, t: string) => {
      const s = connect(`${socketUrl(node)}&tab=${t}`, { cookie });
      const view = (await s.next((f) => f.type === "dashboard.page", 10_000)).view;
      s.ws.close();
      return view.groups[0].widgets.find((w: { id: string }) => w.id === id("own")).state;
    };
    // The same tab's next page, opened on the instance that did not hold its socket: the store has it.
    await until("the tab's own state on the other instance", async () => ((await stateOn(holder, tab))?.msg?.payload === "yours" ? true : undefined), 10_000);
    // Another tab of the same viewer: not theirs.
    expect(await stateOn(holder, "fedcba9876543210fedcba98")).toBeNull();
  }, 60_000);

  it("a chart keeps its points through a failover (kill -9 of the instance running the flow)", async () => {
    const holder = cluster.byInstance(await holderOf(flowId));
    const survivor = cluster.live().find((n) => n.name !== holder.name)!;
    const viewer = connect(socketUrl(survivor), { cookie });
    await viewer.next((f) => f.type === "dashboard.page", 10_000);
    for (const v of [5, 6, 7]) {
      expect((await survivor.request("POST", `/nodes/${id("inj")}/inject`, { token: owner.accessToken, body: { payload: v } })).status).toBe(200);
      await viewer.next((f) => f.type === "dashboard.update" && f.widget_id === id("chart") && f.msg.payload === v, 10_000);
    }
    // Past the write-behind delay, then the holder dies without a chance to flush.
    await sleep(600);
    cluster.signal(holder.name, "SIGKILL");
    await holder.exited;
    await until("the flow running on the survivor", async () => ((await holderOf(flowId)) === survivor.instanceId ? true : undefined), 30_000);
    const again = connect(socketUrl(survivor), { cookie });
    const view = (await again.next((f) => f.type === "dashboard.page", 10_000)).view;
    const chart = view.groups[0].widgets.find((w: { id: string }) => w.id === id("chart"));
    expect(chart.state.points.map((p: { y: number }) => p.y)).toEqual([5, 6, 7]);
    // The chart node on the survivor read them back: a new point joins them.
    await until("an inject accepted on the survivor", async () => ((await survivor.request("POST", `/nodes/${id("inj")}/inject`, { token: owner.accessToken, body: { payload: 8 } })).status === 200 ? true : undefined), 20_000);
    const next = await again.next((f) => f.type === "dashboard.update" && f.widget_id === id("chart") && f.msg.payload === 8, 10_000);
    expect(next.state.points.map((p: { y: number }) => p.y)).toEqual([5, 6, 7, 8]);
    viewer.ws.close();
    again.ws.close();
  }, 90_000);
});
