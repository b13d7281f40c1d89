import { describe, expect, it } from "vitest";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { closingTestFlows } from "@/test/runtime-harness";
import { createSafeFetch } from "@/server/runtime/safe-fetch";
import { topicMatches } from "./device-in/behaviour";

const flow = closingTestFlows();

describe("inject", () => {
  it("sends its configured payload and topic, or the overrides", async () => {
    const h = await flow([{ id: "i", type: "inject", config: { payload_type: "json", payload: '{"a":1}', topic: "t" } }, { id: "s", type: "sink" }], [{ source: "i", target: "s" }]);
    h.engine.inject("flw_test", "i", {});
    h.engine.inject("flw_test", "i", { payload: "x", topic: "y" });
    const [a, b] = await h.waitFor(2);
    expect(a).toMatchObject({ payload: { a: 1 }, topic: "t" });
    expect(b).toMatchObject({ payload: "x", topic: "y" });
    expect(a!._msgid).not.toBe(b!._msgid);
  });

  it("fires once at start and repeats", async () => {
    const h = await flow([{ id: "i", type: "inject", config: { payload_type: "number", payload: "7", once: true, once_delay_seconds: 0, repeat_seconds: 0.1 } }, { id: "s", type: "sink" }], [{ source: "i", target: "s" }]);
    const got = await h.waitFor(3, 2000);
    expect(got.every((m) => m.payload === 7)).toBe(true);
  });

  it("sends a timestamp by default", async () => {
    const h = await flow([{ id: "i", type: "inject" }, { id: "s", type: "sink" }], [{ source: "i", target: "s" }]);
    h.engine.inject("flw_test", "i", {});
    const [m] = await h.waitFor(1);
    expect(Math.abs((m!.payload as number) - Date.now())).toBeLessThan(5000);
  });
});

describe("change", () => {
  it("sets, changes, deletes and moves properties", async () => {
    const h = await flow(
      [
        {
          id: "c",
          type: "change",
          config: {
            rules: [
              { t: "set", p: "topic", to: "alert" },
              { t: "set", p: "payload.count", to: "3", to_type: "num" },
              { t: "change", p: "payload.text", from: "bad", to: "good" },
              { t: "delete", p: "payload.secret" },
              { t: "move", p: "payload.level", to: "level" },
              { t: "set", p: "copy", to: "payload.text", to_type: "msg" },
            ],
          },
        },
        { id: "s", type: "sink" },
      ],
      [{ source: "c", target: "s" }],
    );
    h.send("c", { payload: { text: "bad bad day", secret: "x", level: 5 } });
    const [m] = await h.waitFor(1);
    expect(m).toMatchObject({ topic: "alert", level: 5, copy: "good good day", payload: { count: 3, text: "good good day" } });
    expect((m!.payload as Record<string, unknown>).secret).toBeUndefined();
    expect((m!.payload as Record<string, unknown>).level).toBeUndefined();
  });
});

describe("switch", () => {
  const rules = [
    { t: "eq", v: "error" },
    { t: "gte", v: "50", v_type: "num" },
    { t: "regex", v: "^warn", case_insensitive: true },
    { t: "else" },
  ];
  async function routed(checkAll: boolean, payload: unknown) {
    const h = await flow(
      [{ id: "w", type: "switch", config: { rules, check_all: checkAll } }, { id: "s0", type: "sink" }, { id: "s1", type: "sink" }, { id: "s2", type: "sink" }, { id: "s3", type: "sink" }],
      [0, 1, 2, 3].map((p) => ({ source: "w", source_port: p, target: `s${p}` })),
    );
    h.send("w", { payload });
    await new Promise((r) => setTimeout(r, 50));
    return h.arrivals.map((a) => a.sink);
  }

  it("routes to every matching output, or the first with check_all off, and else when nothing matched", async () => {
    expect(await routed(true, "error")).toEqual(["s0"]);
    expect(await routed(true, 70)).toEqual(["s1"]);
    expect(await routed(true, "WARNING")).toEqual(["s2"]);
    expect(await routed(true, "fine")).toEqual(["s3"]);
    const h = await flow(
      [{ id: "w", type: "switch", config: { rules: [{ t: "gt", v: "1", v_type: "num" }, { t: "gt", v: "2", v_type: "num" }], check_all: true } }, { id: "a", type: "sink" }, { id: "b", type: "sink" }],
      [{ source: "w", source_port: 0, target: "a" }, { source: "w", source_port: 1, target: "b" }],
    );
    h.send("w", { payload: 5 });
    await h.waitFor(2);
    const first = await flow(
      [{ id: "w", type: "switch", config: { rules: [{ t: "gt", v: "1", v_type: "num" }, { t: "gt", v: "2", v_type: "num" }], check_all: false } }, { id: "a", type: "sink" }, { id: "b", type: "sink" }],
      [{ source: "w", source_port: 0, target: "a" }, { source: "w", source_port: 1, target: "b" }],
    );
    first.send("w", { payload: 5 });
    await first.waitFor(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(first.received).toHaveLength(1);
  });

  it("checks types, emptiness and ranges", async () => {
    const h = await flow(
      [
        { id: "w", type: "switch", config: { rules: [{ t: "istype", v: "array" }, { t: "empty" }, { t: "btwn", v: "1", v_type: "num", v2: "3", v2_type: "num" }] } },
        { id: "a", type: "sink" },
      ],
      [0, 1, 2].map((p) => ({ source: "w", source_port: p, target: "a" })),
    );
    h.send("w", { payload: [] });
    h.send("w", { payload: 2 });
    h.send("w", { payload: 9 });
    await h.waitFor(3);
    await new Promise((r) => setTimeout(r, 30));
    expect(h.received.map((m) => m.payload)).toEqual([[], [], 2]);
  });
});

describe("template and json", () => {
  it("renders mustache from the message and parses JSON output", async () => {
    const h = await flow(
      [{ id: "t", type: "template", config: { template: '{"greeting":"Hello {{payload.name}}","topic":"{{topic}}"}', output: "json" } }, { id: "s", type: "sink" }],
      [{ source: "t", target: "s" }],
    );
    h.send("t", { payload: { name: "Ada <3" }, topic: "x" });
    const [m] = await h.waitFor(1);
    expect(m!.payload).toEqual({ greeting: "Hello Ada &lt;3", topic: "x" });
  });

  it("converts between strings and objects both ways", async () => {
    const h = await flow([{ id: "j", type: "json" }, { id: "s", type: "sink" }], [{ source: "j", target: "s" }]);
    h.send("j", { payload: '{"a":[1,2]}' });
    h.send("j", { payload: { b: true } });
    h.send("j", { payload: "{not json" });
    const [a, b] = await h.waitFor(2);
    expect(a!.payload).toEqual({ a: [1, 2] });
    expect(b!.payload).toBe('{"b":true}');
    await expect.poll(() => h.errors.length).toBe(1);
    expect(h.errors[0]!.nodeId).toBe("j");
  });
});

describe("debug", () => {
  it("streams the chosen property, the whole message, and counts in its status", async () => {
    const h = await flow(
      [
        { id: "d1", type: "debug", config: { property: "payload.v", to_status: true } },
        { id: "d2", type: "debug", config: { property: "msg" } },
        { id: "d3", type: "debug", config: { active: false } },
      ],
      [],
    );
    h.send("d1", { payload: { v: "x".repeat(1500) } });
    h.send("d1", { payload: { v: 2 } });
    h.send("d2", { payload: 1, topic: "t" });
    h.send("d3", { payload: 1 });
    await expect.poll(() => h.debug.length).toBe(3);
    expect((h.debug[0]!.msg as string).length).toBe(1001);
    expect(h.debug[1]).toMatchObject({ nodeId: "d1", msg: 2, format: "number" });
    expect(h.debug[2]!.msg).toMatchObject({ payload: 1, topic: "t" });
    // The topic travels beside the shown value, as the debug sidebar shows it.
    expect(h.debug[2]!.topic).toBe("t");
    expect(h.debug[1]!.topic).toBeUndefined();
    expect(h.statuses.filter((s) => s.nodeId === "d1").at(-1)!.status).toEqual({ fill: "grey", shape: "dot", text: "2" });
  });
});

describe("function", () => {
  it("returns messages per output, sends with node.send, sets status", async () => {
    const h = await flow(
      [
        { id: "f", type: "function", config: { outputs: 2, code: "node.status({fill:'green',shape:'dot',text:'ok'}); node.send({payload:'early'}); if (msg.payload > 5) return [msg, null]; return [null, {payload: msg.payload * 10}];" } },
        { id: "a", type: "sink" },
        { id: "b", type: "sink" },
      ],
      [{ source: "f", source_port: 0, target: "a" }, { source: "f", source_port: 1, target: "b" }],
    );
    h.send("f", { payload: 9 });
    h.send("f", { payload: 2 });
    await h.waitFor(4);
    expect(h.received.map((m) => m.payload).sort()).toEqual([20, 9, "early", "early"].sort());
    expect(h.statuses.find((s) => s.nodeId === "f")!.status).toEqual({ fill: "green", shape: "dot", text: "ok" });
  });

  it("stops a runaway loop with an error and keeps the flow running", async () => {
    const h = await flow(
      [{ id: "f", type: "function", config: { timeout_ms: 50, code: "if (msg.payload === 'loop') { while (true) {} } return msg;" } }, { id: "s", type: "sink" }],
      [{ source: "f", target: "s" }],
    );
    h.send("f", { payload: "loop" });
    h.send("f", { payload: "fine" });
    await h.waitFor(1);
    expect(h.received[0]!.payload).toBe("fine");
    expect(h.errors.some((e) => e.nodeId === "f" && e.error === "Error: Script execution timed out after 50ms")).toBe(true);
  });

  it("cannot reach the host", async () => {
    const h = await flow(
      [{ id: "f", type: "function", config: { code: "msg.payload = [typeof process, typeof require, typeof fetch, typeof globalThis.Deno]; return msg;" } }, { id: "s", type: "sink" }],
      [{ source: "f", target: "s" }],
    );
    h.send("f", { payload: 0 });
    const [m] = await h.waitFor(1);
    expect(m!.payload).toEqual(["undefined", "undefined", "undefined", "undefined"]);
  });
});

describe("fan-out and failures", () => {
  it("gives each branch its own copy", async () => {
    const h = await flow(
      [
        { id: "c1", type: "change", config: { rules: [{ t: "set", p: "payload.branch", to: "one" }] } },
        { id: "c2", type: "change", config: { rules: [{ t: "set", p: "payload.branch", to: "two" }] } },
        { id: "src", type: "json" },
        { id: "s", type: "sink" },
      ],
      [
        { source: "src", target: "c1" },
        { source: "src", target: "c2" },
        { source: "c1", target: "s" },
        { source: "c2", target: "s" },
      ],
    );
    h.send("src", { payload: '{"v":1}' });
    await h.waitFor(2);
    expect(h.received.map((m) => (m.payload as { branch: string }).branch).sort()).toEqual(["one", "two"]);
  });

  it("routes a failed message to catch nodes whose scope covers the node", async () => {
    const h = await flow(
      [
        { id: "bad", type: "json" },
        { id: "fine", type: "json" },
        { id: "all", type: "catch" },
        { id: "only-fine", type: "catch", config: { scope: ["fine"] } },
        { id: "s", type: "sink" },
        { id: "s2", type: "sink" },
      ],
      [{ source: "all", target: "s" }, { source: "only-fine", target: "s2" }],
    );
    h.send("bad", { payload: "{not json", topic: "t" });
    const [m] = await h.waitFor(1);
    expect(m).toMatchObject({ payload: "{not json", topic: "t", error: { source: { id: "bad", type: "json" } } });
    // Node-RED's message, JSON.parse's own (no prefix); Node 22+ adds the line and column.
    expect((m!.error as { message: string }).message).toMatch(/^Expected property name or '}' in JSON at position 1/);
    await new Promise((r) => setTimeout(r, 50));
    expect(h.arrivals.map((a) => a.sink)).toEqual(["s"]);
  });

  it("a node that throws is reported and the others go on", async () => {
    const h = await flow(
      [{ id: "bad", type: "template", config: { template: "{{a}}", output: "json" } }, { id: "ok", type: "json" }, { id: "s", type: "sink" }],
      [{ source: "bad", target: "s" }, { source: "ok", target: "s" }],
    );
    h.send("bad", { a: "not json" });
    h.send("ok", { payload: "[1]" });
    await h.waitFor(1);
    expect(h.errors.map((e) => e.nodeId)).toEqual(["bad"]);
    expect(h.statuses.find((s) => s.nodeId === "bad")!.status!.fill).toBe("red");
  });

  it("redeploys cleanly: the old version's timers stop", async () => {
    const h = await flow([{ id: "i", type: "inject", config: { repeat_seconds: 0.1 } }, { id: "s", type: "sink" }], [{ source: "i", target: "s" }]);
    await h.waitFor(1, 2000);
    await h.engine.stop("flw_test");
    const count = h.received.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(h.received.length).toBe(count);
  });
});

describe("redeploy while messages flow", () => {
  it("swaps versions cleanly: no errors, no message of an old version after the swap", async () => {
    const graph = (version: string) => ({
      nodes: [
        { id: "i", type: "inject", name: "", config: { payload_type: "string", payload: "x", topic: "", repeat_seconds: 0.1, cron: null, once: true, once_delay_seconds: 0 } },
        { id: "t", type: "template", name: "", config: { template: version, syntax: "mustache", field: "payload", output: "str" } },
        { id: "s", type: "sink", name: "", config: {} },
      ],
      connections: [
        { source: "i", target: "t", source_port: 0 },
        { source: "t", target: "s", source_port: 0 },
      ],
    });
    const h = await flow(graph("v0").nodes, graph("v0").connections);
    const spec = { flowId: "flw_test", organizationId: "org_test", organizationSlug: "acme", revision: 1 };
    for (let v = 1; v <= 5; v++) {
      await h.waitFor(h.received.length + 1, 2000);
      await h.engine.deploy({ ...spec, revision: v + 1, ...graph(`v${v}`) });
    }
    const mark = h.received.length;
    await h.waitFor(mark + 3, 2000);
    expect(h.received.slice(mark).every((m) => m.payload === "v5")).toBe(true);
    expect(h.errors).toEqual([]);
    const versions = h.received.map((m) => Number(String(m.payload).slice(1)));
    expect([...versions].sort((a, b) => a - b)).toEqual(versions);
  });
});

describe("http-in and http-response", () => {
  it("answers a webhook through the flow", async () => {
    const h = await flow(
      [
        { id: "in", type: "http-in", config: { method: "post", path: "/orders" } },
        { id: "t", type: "template", config: { template: "Got {{payload.item}}" } },
        { id: "out", type: "http-response", config: { status_code: 201, headers: { "x-flow": "yes" } } },
      ],
      [{ source: "in", target: "t" }, { source: "t", target: "out" }],
    );
    const res = await h.webhooks.handle("acme", { method: "POST", path: "/orders", query: {}, headers: {}, body: { item: "tea" } });
    expect(res).toEqual({ status: 201, headers: { "x-flow": "yes" }, body: "Got tea" });
    expect(h.webhooks.handle("acme", { method: "GET", path: "/orders", query: {}, headers: {}, body: undefined })).toBeNull();
    expect(h.webhooks.handle("other-org", { method: "POST", path: "/orders", query: {}, headers: {}, body: {} })).toBeNull();
    await h.engine.stop("flw_test");
    expect(h.webhooks.handle("acme", { method: "POST", path: "/orders", query: {}, headers: {}, body: {} })).toBeNull();
  });
});

describe("http-request", () => {
  async function localServer() {
    let hits = 0;
    const server = http.createServer((req, res) => {
      hits++;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ path: req.url, method: req.method }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      get hits() {
        return hits;
      },
      close: () => new Promise<void>((r) => server.close(() => r())),
    };
  }

  it("refuses loopback, private and link-local targets by default (SSRF)", async () => {
    const server = await localServer();
    const urls = [`${server.url}/x`, "http://10.0.0.1/", "http://169.254.169.254/latest/meta-data", "http://[::1]/", "http://localhost:9/"];
    const h = await flow([{ id: "r", type: "http-request", config: { return: "obj", errors_to_catch_only: true } }, { id: "s", type: "sink" }], [{ source: "r", target: "s" }], {
      httpRequest: createSafeFetch({ allowPrivate: false }),
    });
    for (const url of urls) h.send("r", { url });
    await expect.poll(() => h.errors.length, { timeout: 5000 }).toBe(5);
    expect(h.errors.every((e) => /private or reserved|not allowed/.test(e.error))).toBe(true);
    expect(h.received).toHaveLength(0);
    expect(server.hits).toBe(0);
    // By default a failed request also goes on, as Node-RED's: the refusal as its payload, no response.
    const on = await flow([{ id: "r", type: "http-request", config: { return: "obj" } }, { id: "s", type: "sink" }], [{ source: "r", target: "s" }], {
      httpRequest: createSafeFetch({ allowPrivate: false }),
    });
    for (const url of urls) on.send("r", { url });
    const out = await on.waitFor(5, 5000);
    expect(out.every((m) => typeof m.payload === "string" && /^RequestError: .*(private or reserved|not allowed).* : http/.test(m.payload) && typeof m.statusCode !== "number")).toBe(true);
    expect(on.errors).toHaveLength(5);
    expect(server.hits).toBe(0);
    await server.close();
  });

  it("calls the URL when the operator allows private targets", async () => {
    const server = await localServer();
    const h = await flow([{ id: "r", type: "http-request", config: { return: "obj", method: "POST", url: `${server.url}/items/{{payload.id}}` } }, { id: "s", type: "sink" }], [{ source: "r", target: "s" }], {
      httpRequest: createSafeFetch({ allowPrivate: true }),
    });
    h.send("r", { payload: { id: "a b" } });
    const [m] = await h.waitFor(1);
    expect(m).toMatchObject({ statusCode: 200, payload: { path: "/items/a%20b", method: "POST" } });
    await server.close();
  });
});

describe("device topics", () => {
  it("match like MQTT filters", () => {
    expect(topicMatches("#", "a/b")).toBe(true);
    expect(topicMatches("sensors/+", "sensors/temp")).toBe(true);
    expect(topicMatches("sensors/+", "sensors/temp/x")).toBe(false);
    expect(topicMatches("sensors/#", "sensors/temp/x")).toBe(true);
    expect(topicMatches("a/b", "a/c")).toBe(false);
  });
});
