/**
 * The debug node's button in a cluster (SPEC §11): POST /nodes/{id}/active made on the instance
 * that does not run the flow reaches the one that does, as an inject does. Two
 * ClusteredFlowRuntime instances in this process over the test app's database and store.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { clusteredPair } from "@/test/clustered-instances";
import { restClient } from "@/test/app";
import { signUp } from "@/test/accounts";
import { connect, setUpTestHub } from "@/test/ws";

const testApp = setUpTestApp();
const hub = setUpTestHub(testApp);
const pair = clusteredPair(() => testApp.app, { tickMs: 100, leaseTtlMs: 1_000, routeTtlMs: 1_500 });

describe("the debug node's button across instances", () => {
  let owner: Awaited<ReturnType<typeof signUp>>;
  beforeAll(async () => {
    owner = await signUp(restClient(pair.apps.get(pair.a.instanceId)!));
  });

  it("switches the node where the flow runs, asked through the other instance", async () => {
    const viaA = restClient(pair.apps.get(pair.a.instanceId)!);
    const s = `dac${Date.now().toString(36)}`;
    const created = await viaA("POST", "/flows", {
      token: owner.accessToken,
      body: {
        name: `button ${s}`,
        nodes: [
          { id: `${s}-tick`, type: "inject", config: { payload_type: "string", payload: "hi" } },
          { id: `${s}-shown`, type: "debug" },
          { id: `${s}-witness`, type: "debug" },
        ],
        connections: [
          { source: `${s}-tick`, target: `${s}-shown` },
          { source: `${s}-tick`, target: `${s}-witness` },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const flowId = created.body.flow.id as string;
    expect((await viaA("POST", `/flows/${flowId}/deploy`, { token: owner.accessToken })).body.deployment?.state).toBe("running");
    const holder = (await pair.a.placement(flowId))!.instanceId;
    const other = holder === pair.a.instanceId ? pair.b : pair.a;
    const viaOther = restClient(pair.apps.get(other.instanceId)!);
    expect(other.instanceId).not.toBe(holder);

    const ui = connect(hub.url, { authorization: `Bearer ${owner.accessToken}` });
    try {
      await ui.next((f) => f.type === "ready");
      const shownBy = (id: string) => ui.frames.filter((f) => f.topic === "debug" && f.data?.node_id === id).length;
      const off = await viaOther("POST", `/nodes/${s}-shown/active`, { token: owner.accessToken, body: { active: false } });
      expect(off.status, off.text).toBe(200);
      expect((await viaOther("POST", `/nodes/${s}-tick/inject`, { token: owner.accessToken, body: {} })).status).toBe(200);
      await expect.poll(() => shownBy(`${s}-witness`)).toBe(1);
      expect(shownBy(`${s}-shown`)).toBe(0);
      expect((await viaOther("POST", `/nodes/${s}-shown/active`, { token: owner.accessToken, body: { active: true } })).status).toBe(200);
      expect((await viaOther("POST", `/nodes/${s}-tick/inject`, { token: owner.accessToken, body: {} })).status).toBe(200);
      await expect.poll(() => shownBy(`${s}-shown`)).toBe(1);
    } finally {
      ui.ws.close();
    }
  });
});
