/**
 * The function node through the doors a user uses: a flow created and deployed over REST, its inject
 * pressed over REST, what the debug node shows read from the WebSocket.
 */
import { createHash, createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { setUpTestHub, connect } from "@/test/ws";
import { signUp } from "@/test/accounts";

const testApp = setUpTestApp();
const hub = setUpTestHub(testApp);
const request = testApp.request;

type Graph = { nodes: Array<Record<string, unknown>>; connections: Array<{ source: string; target: string }> };

/** Creates and deploys `graph`, presses inject `injectId`, and answers the first debug event. */
async function injectAndDebug(name: string, graph: Graph, injectId: string) {
  const owner = await signUp(request);
  const ui = connect(hub.url, { authorization: `Bearer ${owner.accessToken}` });
  try {
    await ui.next((f) => f.type === "ready");
    const created = await request("POST", "/flows", { token: owner.accessToken, body: { name, ...graph } });
    expect(created.status, created.text).toBe(201);
    expect((await request("POST", `/flows/${created.body.flow.id}/deploy`, { token: owner.accessToken })).status).toBe(200);
    expect((await request("POST", `/nodes/${injectId}/inject`, { token: owner.accessToken, body: {} })).status).toBe(200);
    return (await ui.next((f) => f.topic === "debug")).data as Record<string, unknown>;
  } finally {
    ui.ws.close();
  }
}

/** A flow of inject → function(`code`) → debug: deploys it, presses the inject, answers the debug event. */
function functionAndDebug(prefix: string, inject: Record<string, unknown>, code: string) {
  return injectAndDebug(
    prefix,
    {
      nodes: [
        { id: `${prefix}-inj-1`, type: "inject", config: inject },
        { id: `${prefix}-fn-1`, type: "function", config: { code } },
        { id: `${prefix}-dbg-1`, type: "debug" },
      ],
      connections: [
        { source: `${prefix}-inj-1`, target: `${prefix}-fn-1` },
        { source: `${prefix}-fn-1`, target: `${prefix}-dbg-1` },
      ],
    },
    `${prefix}-inj-1`,
  );
}

describe("function nodes through REST and the WebSocket", () => {
  // FlowFuse's multi-user dashboard blueprint: one branch sets the user in a function, another
  // reads it with JSONata; a function that names the flow context runs in the flow's turn.
  it("a JSONata branch reads the flow context the function set for the same message", async () => {
    const debug = await injectAndDebug(
      "turns",
      {
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
      "turn-inj-1",
    );
    expect(debug).toMatchObject({ node_id: "turn-dbg-1", msg: "hello ann" });
  });

  it("a Buffer made in one function is a Buffer in the next, and the debug node names the one it returns as Node-RED's sidebar does", async () => {
    const debug = await injectAndDebug(
      "buffers",
      {
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
      "buf-inj-1",
    );
    expect(debug).toMatchObject({ node_id: "buf-dbg-1", property: "payload", format: "buffer[3]", msg: { type: "Buffer", data: [65, 66, 255] }, topic: "true 16706" });
  });

  it("sorts file names naturally with an Intl.Collator's compare, as V8 does in Node-RED", async () => {
    const names = Array.from({ length: 40 }, (_, i) => `${i % 3 ? "Report" : "report"} ${(i * 7) % 40}.txt`);
    const code = `msg.payload = ${JSON.stringify(names)}.sort(new Intl.Collator("en", { numeric: true, sensitivity: "base" }).compare); return msg;`;
    const debug = await functionAndDebug("sort", { payload_type: "timestamp" }, code);
    expect(debug).toMatchObject({ node_id: "sort-dbg-1", msg: names.slice().sort(new Intl.Collator("en", { numeric: true, sensitivity: "base" }).compare) });
  });

  // A pattern of published flows: a function that logs or reports an object with Node's util.
  it("writes a message with Node's util.format and util.inspect, as Node-RED's function node does", async () => {
    const code = "msg.payload = util.format('%s read %d: %o', msg.topic, 21.5, { ok: true }) + ' | ' + util.inspect({ list: [1, 2], nested: { deep: { deeper: {} } } });\nreturn msg;";
    const debug = await functionAndDebug("util", { payload_type: "timestamp", topic: "sensor" }, code);
    expect(debug).toMatchObject({ node_id: "util-dbg-1", msg: "sensor read 21.5: { ok: true } | { list: [ 1, 2 ], nested: { deep: { deeper: {} } } }" });
  });

  it("reads and rewrites a URL's query with URL and URLSearchParams, as Node-RED's function node does", async () => {
    const code = "const u = new URL(msg.payload);\nu.searchParams.set('page', Number(u.searchParams.get('page')) + 1);\nu.searchParams.delete('token');\nmsg.payload = [u.hostname, u.searchParams.get('q'), u.href];\nreturn msg;";
    const debug = await functionAndDebug("url", { payload_type: "string", payload: "https://api.example.com/search?q=caf%C3%A9+au+lait&page=2&token=secret" }, code);
    expect(debug).toMatchObject({ node_id: "url-dbg-1", msg: ["api.example.com", "café au lait", "https://api.example.com/search?q=caf%C3%A9+au+lait&page=3"] });
  });

  // A pattern of published flows: a webhook's signature made with crypto from the function's Setup → Modules.
  it("signs with Node's crypto from the node's Setup → Modules, as Node-RED's function node does", async () => {
    const code = "msg.payload = [crypto.createHmac('sha256', 'shared-secret').update(msg.payload).digest('hex'), crypto.createHash('md5').update(msg.payload).digest('base64')];\nreturn msg;";
    const debug = await injectAndDebug(
      "libs",
      {
        nodes: [
          { id: "libs-inj-1", type: "inject", config: { payload_type: "string", payload: '{"order":42}' } },
          { id: "libs-fn-1", type: "function", config: { code, libs: [{ var: "crypto", module: "crypto" }] } },
          { id: "libs-dbg-1", type: "debug" },
        ],
        connections: [
          { source: "libs-inj-1", target: "libs-fn-1" },
          { source: "libs-fn-1", target: "libs-dbg-1" },
        ],
      },
      "libs-inj-1",
    );
    expect(debug).toMatchObject({
      node_id: "libs-dbg-1",
      msg: [createHmac("sha256", "shared-secret").update('{"order":42}').digest("hex"), createHash("md5").update('{"order":42}').digest("base64")],
    });
  });

  // Published flows load moment (dates in a dashboard's text, a schedule's next run) and lodash.
  it("formats a date with moment-timezone and groups with lodash from the node's Setup → Modules, as Node-RED's function node does", async () => {
    const code = [
      "const at = moment.tz(msg.payload.at, 'Europe/Berlin');",
      "msg.payload = [at.format('dddd D MMMM, HH:mm z'), at.clone().locale('de').format('dddd'), _.sortBy(_.keys(_.groupBy(msg.payload.rooms, 'floor')))];",
      "return msg;",
    ].join("\n");
    const debug = await injectAndDebug(
      "pkgs",
      {
        nodes: [
          { id: "pkgs-inj-1", type: "inject", config: { payload_type: "json", payload: '{"at":"2026-07-01T06:30:00Z","rooms":[{"floor":2},{"floor":1},{"floor":2}]}' } },
          {
            id: "pkgs-fn-1",
            type: "function",
            config: { code, libs: [{ var: "moment", module: "moment-timezone" }, { var: "_", module: "lodash" }] },
          },
          { id: "pkgs-dbg-1", type: "debug" },
        ],
        connections: [
          { source: "pkgs-inj-1", target: "pkgs-fn-1" },
          { source: "pkgs-fn-1", target: "pkgs-dbg-1" },
        ],
      },
      "pkgs-inj-1",
    );
    expect(debug).toMatchObject({ node_id: "pkgs-dbg-1", msg: ["Wednesday 1 July, 08:30 CEST", "Mittwoch", ["1", "2"]] });
  });

  it("refuses a module the sandbox does not load, or a variable the code already has, with a 400 that names the field, and saves nothing", async () => {
    const owner = await signUp(request);
    const flowWith = (libs: unknown) => ({ name: "bad libs", nodes: [{ id: "bl-fn-1", type: "function", config: { code: "return msg;", libs } }], connections: [] });
    for (const [libs, path, message] of [
      [[{ var: "fs", module: "fs" }], "nodes[0].config.libs[0].module", "must be one of crypto, node:crypto, util, node:util, lodash, moment, moment-timezone"],
      [[{ var: "RED", module: "crypto" }], "nodes[0].config.libs[0].var", "is a name the code already has"],
    ] as const) {
      const res = await request("POST", "/flows", { token: owner.accessToken, body: flowWith(libs) });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
      expect(res.body.error.details).toEqual([{ path, message: expect.stringContaining(message) }]);
    }
    const list = await request("GET", "/flows", { token: owner.accessToken });
    expect(list.body.flows).toEqual([]);
  });
});
