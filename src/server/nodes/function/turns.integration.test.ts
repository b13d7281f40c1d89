/**
 * A function node that names the flow context runs in the flow's turn (NodeRoles.inTurn), through
 * the doors a user uses: the flow created and deployed over REST, its inject pressed over REST, what
 * the debug nodes show read from the WebSocket. FlowFuse's multi-user dashboard blueprint: one
 * branch sets the user in a function, another reads it with JSONata.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, restClient } from "@/test/app";
import { signUp } from "@/test/accounts";
import { connect, startHub } from "@/test/ws";
import type { AppServices } from "@/server/app-services";

let app: AppServices;
let request: ReturnType<typeof restClient>;
let hub: Awaited<ReturnType<typeof startHub>>;

beforeAll(async () => {
  app = await createTestApp();
  request = restClient(app);
  hub = await startHub(app);
});
afterAll(async () => {
  await hub.close();
  await app.close();
});

describe("function turns through REST and the WebSocket", () => {
  it("a JSONata branch reads the flow context the function set for the same message", async () => {
    const owner = await signUp(request);
    const ui = connect(hub.url, { authorization: `Bearer ${owner.accessToken}` });
    await ui.next((f) => f.type === "ready");
    const flow = (
      await request("POST", "/flows", {
        token: owner.accessToken,
        body: {
          name: "turns",
          nodes: [
            { id: "turn-inj-1", type: "inject", config: { payload_type: "string", payload: "ann" } },
            { id: "turn-fn-1", type: "function", config: { code: "flow.set('user', msg.payload); return null;" } },
            { id: "turn-chg-1", type: "change", config: { rules: [{ t: "set", p: "payload", to: "'hello ' & $flowContext('user')", to_type: "jsonata" }] } },
            { id: "turn-dbg-1", type: "debug" },
          ],
          connections: [
            { source: "turn-inj-1", target: "turn-fn-1" },
            { source: "turn-inj-1", target: "turn-chg-1" },
            { source: "turn-chg-1", target: "turn-dbg-1" },
          ],
        },
      })
    ).body.flow;
    expect((await request("POST", `/flows/${flow.id}/deploy`, { token: owner.accessToken })).status).toBe(200);
    expect((await request("POST", "/nodes/turn-inj-1/inject", { token: owner.accessToken, body: {} })).status).toBe(200);
    const debug = await ui.next((f) => f.topic === "debug");
    expect(debug.data).toMatchObject({ node_id: "turn-dbg-1", msg: "hello ann" });
    ui.ws.close();
  });
});
