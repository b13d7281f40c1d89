/**
 * Buffers in function nodes through the doors a user uses: a flow created and deployed over REST,
 * its inject pressed over REST, what the debug node shows read from the WebSocket. One function
 * makes a Buffer, the next reads it with Node's API and returns one; the debug node shows a Buffer
 * as Node-RED's sidebar does.
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

describe("Buffers in function nodes through REST and the WebSocket", () => {
  it("a Buffer made in one function is a Buffer in the next, and the debug node shows the one it returns", async () => {
    const owner = await signUp(request);
    const ui = connect(hub.url, { authorization: `Bearer ${owner.accessToken}` });
    await ui.next((f) => f.type === "ready");
    const flow = (
      await request("POST", "/flows", {
        token: owner.accessToken,
        body: {
          name: "buffers",
          nodes: [
            { id: "buf-inj-1", type: "inject", config: { payload_type: "string", payload: "AB" } },
            { id: "buf-fn-1", type: "function", config: { code: "msg.payload = Buffer.from(msg.payload); return msg;" } },
            {
              id: "buf-fn-2",
              type: "function",
              config: { code: "msg.topic = [Buffer.isBuffer(msg.payload), msg.payload.readUInt16BE(0)].join(' ');\nmsg.payload = Buffer.concat([msg.payload, Buffer.from([0xff])]);\nreturn msg;" },
            },
            { id: "buf-dbg-1", type: "debug" },
          ],
          connections: [
            { source: "buf-inj-1", target: "buf-fn-1" },
            { source: "buf-fn-1", target: "buf-fn-2" },
            { source: "buf-fn-2", target: "buf-dbg-1" },
          ],
        },
      })
    ).body.flow;
    expect((await request("POST", `/flows/${flow.id}/deploy`, { token: owner.accessToken })).status).toBe(200);
    expect((await request("POST", "/nodes/buf-inj-1/inject", { token: owner.accessToken, body: {} })).status).toBe(200);
    const debug = await ui.next((f) => f.topic === "debug");
    // As Node-RED's sidebar names it: msg.payload : buffer[3], its bytes.
    expect(debug.data).toMatchObject({ node_id: "buf-dbg-1", property: "payload", format: "buffer[3]", msg: { type: "Buffer", data: [65, 66, 255] }, topic: "true 16706" });
    ui.ws.close();
  });
});
