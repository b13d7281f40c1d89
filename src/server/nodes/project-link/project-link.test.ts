/**
 * FlowFuse's project link nodes on the built-in broker's interface (an in-memory fake here; the
 * real broker, several flows and organizations: project-link.integration.test.ts). What is checked
 * against FlowFuse's nr-project-nodes 0.7 source (nodes/project-link.js): the topics, the message
 * encoding, msg.projectLink, the call stack and its answer, the timeout.
 */
import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import { FakeBuiltInMqtt } from "@/test/fake-built-in-mqtt";
import { encodeLinkMessage } from "./link-topics";
import { projectLinkCallConfig, projectLinkInConfig, projectLinkOutConfig, projectLinkOutNode } from "./definition";

const loadTestFlow = closingTestFlows();
const ORG = "org_a";

type N = { id: string; type: string; config?: Record<string, unknown> };

async function flow(broker: FakeBuiltInMqtt | undefined, nodes: N[], connections: Array<{ source: string; target: string }>) {
  const h = await loadTestFlow(nodes, connections, broker ? { builtInMqtt: broker } : {}, {}, { organizationId: ORG });
  // Subscriptions are made as the nodes start; wait until each subscribing node said it is connected.
  const subscribing = nodes.filter((n) => n.type === "project-link-in" || n.type === "project-link-call").length;
  if (broker) await expect.poll(() => broker.subscriptions.length).toBe(subscribing);
  return h;
}

describe("project link out → project link in", () => {
  it("a broadcast reaches project in nodes listening for broadcasts (from all, or from flows), with the whole message and msg.projectLink", async () => {
    const broker = new FakeBuiltInMqtt();
    const h = await flow(
      broker,
      [
        { id: "out", type: "project-link-out", config: { mode: "link", broadcast: true, topic: "plant/a12/measurements" } },
        { id: "all", type: "project-link-in", config: { broadcast: true, project: "all", topic: "plant/a12/measurements" } },
        { id: "fromFlows", type: "project-link-in", config: { broadcast: true, project: "flows", topic: "plant/a12/measurements" } },
        { id: "direct", type: "project-link-in", config: { broadcast: false, topic: "plant/a12/measurements" } },
        { id: "other", type: "project-link-in", config: { broadcast: true, project: "all", topic: "plant/a12/other" } },
        { id: "sink", type: "sink" },
      ],
      ["all", "fromFlows", "direct", "other"].map((source) => ({ source, target: "sink" })),
    );
    expect(broker.subscriptions.map((s) => s.filter).sort()).toEqual(
      [`ff/v1/${ORG}/p/+/out/plant/a12/measurements`, `ff/v1/${ORG}/p/flows/out/plant/a12/measurements`, `ff/v1/${ORG}/p/flows/in/plant/a12/measurements`, `ff/v1/${ORG}/p/+/out/plant/a12/other`].sort(),
    );
    expect(broker.subscriptions.every((s) => (s.options as { qos: number }).qos === 2)).toBe(true);
    await expect.poll(() => h.statuses.filter((s) => s.status?.text === "connected").map((s) => s.nodeId).sort()).toEqual(["all", "direct", "fromFlows", "other", "out"]);

    h.send("out", { _msgid: "m1", payload: { temperature: 61.5 }, record_id: 7, topic: "t" });
    await h.waitFor(2);
    await new Promise((r) => setTimeout(r, 50));
    expect(h.arrivals.map((a) => a.sink)).toEqual(["sink", "sink"]);
    expect(h.received).toHaveLength(2);
    for (const msg of h.received) {
      expect(msg).toEqual({
        _msgid: "m1",
        payload: { temperature: 61.5 },
        record_id: 7,
        topic: "t",
        projectLink: { instanceId: "flows", projectId: "flows", applicationId: "", topic: "plant/a12/measurements" },
      });
    }
    const sent = broker.published[0]!;
    expect(sent.organizationId).toBe(ORG);
    expect(sent.message).toMatchObject({ topic: `ff/v1/${ORG}/p/flows/out/plant/a12/measurements`, qos: 2, retain: false, properties: { contentType: "application/json", userProperties: { _projectID: "flows", _nodeID: "out" } } });
  });

  it("a message sent to the flows instance reaches the project in nodes listening for it, not those listening for broadcasts", async () => {
    const broker = new FakeBuiltInMqtt();
    const h = await flow(
      broker,
      [
        { id: "out", type: "project-link-out", config: { mode: "link", broadcast: false, project: "flows", topic: "orders" } },
        { id: "direct", type: "project-link-in", config: { broadcast: false, topic: "orders" } },
        { id: "bc", type: "project-link-in", config: { broadcast: true, project: "all", topic: "orders" } },
        { id: "sink", type: "sink" },
      ],
      [
        { source: "direct", target: "sink" },
        { source: "bc", target: "sink" },
      ],
    );
    h.send("out", { payload: "o1" });
    await h.waitFor(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(h.received).toHaveLength(1);
    expect(broker.published[0]!.message.topic).toBe(`ff/v1/${ORG}/p/flows/in/orders`);
  });

  it("types survive as FlowFuse encodes them: Buffer, Map, Set, bigint; undefined arrives as null; functions are left out", async () => {
    const broker = new FakeBuiltInMqtt();
    const h = await flow(
      broker,
      [
        { id: "out", type: "project-link-out", config: { broadcast: true, topic: "types" } },
        { id: "in", type: "project-link-in", config: { broadcast: true, project: "all", topic: "types" } },
        { id: "sink", type: "sink" },
      ],
      [{ source: "in", target: "sink" }],
    );
    h.send("out", { payload: { buf: Buffer.from([1, 2, 255]), map: new Map([["a", 1]]), set: new Set([1, 2]), big: 12345678901234567890n, gone: undefined, fn: () => 1, date: new Date("2026-01-02T03:04:05.000Z") } as unknown as string });
    const [msg] = await h.waitFor(1);
    const p = msg!.payload as Record<string, unknown>;
    expect(Buffer.isBuffer(p.buf) && [...(p.buf as Buffer)]).toEqual([1, 2, 255]);
    expect(p.map).toEqual(new Map([["a", 1]]));
    expect(p.set).toEqual(new Set([1, 2]));
    expect(p.big).toBe(12345678901234567890n);
    expect(p.gone).toBeNull();
    expect("fn" in p).toBe(false);
    expect(p.date).toBe("2026-01-02T03:04:05.000Z");
  });

  it("what arrives is data only: a root that is not a plain object, a Buffer from anything but bytes, __proto__ keys", async () => {
    const broker = new FakeBuiltInMqtt();
    const h = await flow(broker, [{ id: "in", type: "project-link-in", config: { broadcast: true, project: "all", topic: "t" } }, { id: "sink", type: "sink" }], [{ source: "in", target: "sink" }]);
    const topic = `ff/v1/${ORG}/p/dev:x/out/t`;
    for (const root of ['{"type":"Map","data":[]}', '{"type":"Buffer","data":[1]}', '"text"', "[1]"]) await broker.deliver(ORG, { topic, payload: Buffer.from(root), qos: 0, retain: false });
    await expect.poll(() => h.errors).toHaveLength(4);
    await broker.deliver(ORG, { topic, payload: Buffer.from('{"_msgid":"p","payload":{"b":{"type":"Buffer","data":{"length":1000000000}},"n":{"type":"bigint","data":"x1"}},"__proto__":{"polluted":true}}'), qos: 0, retain: false });
    const [m] = await h.waitFor(1);
    expect(m!.payload).toEqual({ b: { type: "Buffer", data: { length: 1000000000 } }, n: { type: "bigint", data: "x1" } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((m as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(m!, "__proto__")).toBe(false);
  });

  it("a device's broadcast over MQTT reaches project in (all) and says who sent it; text that is not a JSON object is the node's error", async () => {
    const broker = new FakeBuiltInMqtt();
    const h = await flow(broker, [{ id: "in", type: "project-link-in", config: { broadcast: true, project: "all", topic: "edge/status" } }, { id: "sink", type: "sink" }], [{ source: "in", target: "sink" }]);
    await broker.deliver(ORG, {
      topic: `ff/v1/${ORG}/p/dev:press-7/out/edge/status`,
      payload: encodeLinkMessage({ _msgid: "d1", payload: "online" }),
      qos: 2,
      retain: false,
      properties: { userProperties: { _projectID: "", _deviceId: "press-7", _deviceName: "Press 7", _deviceType: "pi" } },
    });
    const [msg] = await h.waitFor(1);
    expect(msg).toEqual({ _msgid: "d1", payload: "online", projectLink: { instanceId: "", projectId: "", applicationId: "", topic: "edge/status", deviceId: "press-7", deviceName: "Press 7", deviceType: "pi" } });
    await broker.deliver(ORG, { topic: `ff/v1/${ORG}/p/dev:press-7/out/edge/status`, payload: Buffer.from("not json"), qos: 0, retain: false });
    await broker.deliver(ORG, { topic: `ff/v1/${ORG}/p/dev:press-7/out/edge/status`, payload: Buffer.from("[1,2]"), qos: 0, retain: false });
    await expect.poll(() => h.errors.filter((e) => e.nodeId === "in")).toHaveLength(2);
    expect(h.errors[1]!.error).toContain("must be a JSON object");
    expect(h.received).toHaveLength(1);
  });

  it("a publish the broker refuses (too large, over the rate) is the out node's error, which catch nodes get", async () => {
    const broker = new FakeBuiltInMqtt();
    const h = await flow(
      broker,
      [{ id: "out", type: "project-link-out", config: { broadcast: true, topic: "x" } }, { id: "catch", type: "catch", config: {} }, { id: "sink", type: "sink" }],
      [{ source: "catch", target: "sink" }],
    );
    broker.failWith = new Error("the message is larger than the built-in broker's limit (262144 bytes)");
    h.send("out", { payload: "big" });
    const [caught] = await h.waitFor(1);
    expect(caught).toMatchObject({ payload: "big", error: { message: "Error: the message is larger than the built-in broker's limit (262144 bytes)", source: { id: "out" } } });
  });

  it("without the built-in broker the nodes say so (status and error) and a message is an error", async () => {
    const h = await flow(
      undefined,
      [{ id: "in", type: "project-link-in", config: { broadcast: true, project: "all", topic: "x" } }, { id: "out", type: "project-link-out", config: { broadcast: true, topic: "x" } }, { id: "sink", type: "sink" }],
      [{ source: "in", target: "sink" }],
    );
    await expect.poll(() => h.statuses.filter((s) => s.status?.text === "error").map((s) => s.nodeId).sort()).toEqual(["in", "out"]);
    expect(h.errors.map((e) => e.error)).toEqual(expect.arrayContaining([expect.stringContaining("built-in MQTT broker is not available")]));
    const before = h.errors.length;
    h.send("out", { payload: 1 });
    await expect.poll(() => h.errors.length).toBe(before + 1);
  });
});

describe("project link call → project in → project out (return)", () => {
  const called = [
    { id: "in", type: "project-link-in", config: { broadcast: false, topic: "lookup/price" } },
    { id: "double", type: "change", config: { rules: [{ t: "set", p: "payload", pt: "msg", to: "payload * 2", to_type: "jsonata" }] } },
    { id: "ret", type: "project-link-out", config: { mode: "return" } },
  ];

  it("the answer comes back to the calling node, which sends it on without its call stack", async () => {
    const broker = new FakeBuiltInMqtt();
    const h = await flow(
      broker,
      [{ id: "call", type: "project-link-call", config: { project: "flows", topic: "lookup/price", timeout_seconds: 5 } }, ...called, { id: "sink", type: "sink" }],
      [
        { source: "call", target: "sink" },
        { source: "in", target: "double" },
        { source: "double", target: "ret" },
      ],
    );
    h.send("call", { _msgid: "c1", payload: 21 });
    const [answer] = await h.waitFor(1);
    expect(answer).toEqual({ _msgid: "c1", payload: 42, projectLink: { instanceId: "flows", projectId: "flows", applicationId: "", topic: "lookup/price" } });
    const [request, reply] = broker.published;
    expect(request!.message.topic).toBe(`ff/v1/${ORG}/p/flows/in/lookup/price`);
    const sentStack = JSON.parse(request!.message.payload.toString()).projectLink.callStack;
    expect(sentStack).toEqual([{ eventId: expect.stringMatching(/^[0-9a-f]{28}$/), node: "call", project: "flows", instance: "flows", topic: "lookup/price", response: "res", ts: expect.any(Number) }]);
    expect(reply!.message.topic).toBe(`ff/v1/${ORG}/p/flows/res/lookup/price`);
    expect(reply!.message.properties?.correlationData).toEqual(Buffer.from(sentStack[0].eventId));
    expect(h.errors).toEqual([]);
  });

  it("calls nest: each return pops its own call's entry", async () => {
    const broker = new FakeBuiltInMqtt();
    const h = await flow(
      broker,
      [
        { id: "outer", type: "project-link-call", config: { topic: "outer", timeout_seconds: 5 } },
        { id: "inOuter", type: "project-link-in", config: { topic: "outer" } },
        { id: "inner", type: "project-link-call", config: { topic: "inner", timeout_seconds: 5 } },
        { id: "retOuter", type: "project-link-out", config: { mode: "return" } },
        { id: "inInner", type: "project-link-in", config: { topic: "inner" } },
        { id: "mark", type: "change", config: { rules: [{ t: "set", p: "inner", pt: "msg", to: "yes", to_type: "str" }] } },
        { id: "retInner", type: "project-link-out", config: { mode: "return" } },
        { id: "sink", type: "sink" },
      ],
      [
        { source: "outer", target: "sink" },
        { source: "inOuter", target: "inner" },
        { source: "inner", target: "retOuter" },
        { source: "inInner", target: "mark" },
        { source: "mark", target: "retInner" },
      ],
    );
    h.send("outer", { payload: "p" });
    const [answer] = await h.waitFor(1);
    expect(answer).toMatchObject({ payload: "p", inner: "yes", projectLink: { topic: "outer" } });
    expect((answer!.projectLink as Record<string, unknown>).callStack).toBeUndefined();
  });

  it("no answer within the timeout: the error \"timeout\" with the message as it came in, to catch nodes; a late answer is dropped", async () => {
    const broker = new FakeBuiltInMqtt();
    const h = await flow(
      broker,
      [
        { id: "call", type: "project-link-call", config: { topic: "nobody/home", timeout_seconds: 0.1 } },
        { id: "catch", type: "catch", config: {} },
        { id: "sink", type: "sink" },
        { id: "answers", type: "sink" },
      ],
      [
        { source: "catch", target: "sink" },
        { source: "call", target: "answers" },
      ],
    );
    h.send("call", { _msgid: "t1", payload: "ping" });
    const [caught] = await h.waitFor(1);
    expect(caught).toMatchObject({ _msgid: "t1", payload: "ping", error: { message: "timeout", source: { id: "call" } } });
    expect(caught!.projectLink).toBeUndefined();
    const eventId = JSON.parse(broker.published[0]!.message.payload.toString()).projectLink.callStack[0].eventId as string;
    await broker.deliver(ORG, { topic: `ff/v1/${ORG}/p/flows/res/nobody/home`, payload: encodeLinkMessage({ _msgid: "late", payload: "late" }), qos: 2, retain: false, properties: { correlationData: Buffer.from(eventId) } });
    await new Promise((r) => setTimeout(r, 50));
    expect(h.arrivals.filter((a) => a.sink === "answers")).toHaveLength(0);
  });

  it("an http in message's req and res go as FlowFuse's REQ:/RES: marker strings and come back as they were", async () => {
    const broker = new FakeBuiltInMqtt();
    const h = await flow(
      broker,
      [{ id: "call", type: "project-link-call", config: { topic: "web" } }, { id: "in", type: "project-link-in", config: { topic: "web" } }, { id: "seen", type: "sink" }, { id: "ret", type: "project-link-out", config: { mode: "return" } }, { id: "sink", type: "sink" }],
      [
        { source: "call", target: "sink" },
        { source: "in", target: "seen" },
        { source: "in", target: "ret" },
      ],
    );
    const req = { method: "GET", path: "/x", headers: {}, query: {}, params: {}, cookies: {}, body: {} };
    h.send("call", { payload: 1, req, res: { _id: "res_1" } } as never);
    await expect.poll(() => h.arrivals.filter((a) => a.sink === "sink")).toHaveLength(1);
    const seen = h.arrivals.find((a) => a.sink === "seen")!.msg;
    expect(seen.req).toMatch(/^REQ:[0-9a-f]{28}$/);
    expect(seen.res).toMatch(/^RES:[0-9a-f]{28}$/);
    const back = h.arrivals.find((a) => a.sink === "sink")!.msg;
    expect(back.req).toEqual(req);
    expect(back.res).toEqual({ _id: "res_1" });
  });

  it("return mode without a call stack, or with an entry that names no caller, warns (FlowFuse's words) and sends nothing", async () => {
    const broker = new FakeBuiltInMqtt();
    const h = await flow(broker, [{ id: "ret", type: "project-link-out", config: { mode: "return" } }], []);
    h.send("ret", { payload: 1 });
    h.send("ret", { payload: 1, projectLink: { callStack: [{ eventId: "e1" }] } } as never);
    // A forged entry cannot aim the answer at a wildcard or another level of the topic tree.
    h.send("ret", { payload: 1, projectLink: { callStack: [{ eventId: "e1", project: "+", topic: "a" }] } } as never);
    h.send("ret", { payload: 1, projectLink: { callStack: [{ eventId: "e1", project: "flows", topic: "a/#" }] } } as never);
    await expect.poll(() => h.errors.map((e) => e.error)).toEqual(["Project Link Source missing", "Project Link Source not valid", "Project Link Source not valid", "Project Link Source not valid"]);
    expect(broker.published).toHaveLength(0);
  });

  it("an answer with another call's event id, or none, is not this call's; a device's string correlation data is", async () => {
    const broker = new FakeBuiltInMqtt();
    const h = await flow(broker, [{ id: "call", type: "project-link-call", config: { topic: "ask", timeout_seconds: 5 } }, { id: "sink", type: "sink" }], [{ source: "call", target: "sink" }]);
    h.send("call", { _msgid: "q1", payload: "?" });
    await expect.poll(() => broker.published).toHaveLength(1);
    const eventId = JSON.parse(broker.published[0]!.message.payload.toString()).projectLink.callStack[0].eventId as string;
    const res = `ff/v1/${ORG}/p/flows/res/ask`;
    await broker.deliver(ORG, { topic: res, payload: encodeLinkMessage({ _msgid: "x", payload: "other" }), qos: 2, retain: false, properties: { correlationData: Buffer.from("0".repeat(28)) } });
    await broker.deliver(ORG, { topic: res, payload: encodeLinkMessage({ _msgid: "x", payload: "none" }), qos: 2, retain: false });
    await new Promise((r) => setTimeout(r, 50));
    expect(h.received).toHaveLength(0);
    await broker.deliver(ORG, { topic: res, payload: encodeLinkMessage({ _msgid: "q1", payload: "mine" }), qos: 2, retain: false, properties: { correlationData: eventId } });
    const [m] = await h.waitFor(1);
    expect(m!.payload).toBe("mine");
  });

  it("a message that cannot be encoded fails at once, once, and leaves no call waiting", async () => {
    const broker = new FakeBuiltInMqtt();
    const h = await flow(broker, [{ id: "call", type: "project-link-call", config: { topic: "ask", timeout_seconds: 0.2 } }], []);
    const cyclic: Record<string, unknown> = { payload: 1 };
    cyclic.self = cyclic;
    h.send("call", cyclic as never);
    await expect.poll(() => h.errors).toHaveLength(1);
    expect(h.errors[0]!.error).toMatch(/circular/i);
    await new Promise((r) => setTimeout(r, 400));
    expect(h.errors).toHaveLength(1);
    expect(broker.published).toHaveLength(0);
  });

  it("a stopped flow leaves no subscription behind and no call waiting", async () => {
    const broker = new FakeBuiltInMqtt();
    const h = await flow(
      broker,
      [
        { id: "call", type: "project-link-call", config: { topic: "ask", timeout_seconds: 0.3 } },
        { id: "in", type: "project-link-in", config: { broadcast: true, project: "all", topic: "x" } },
      ],
      [],
    );
    h.send("call", { payload: 1 });
    await expect.poll(() => broker.published).toHaveLength(1);
    await h.close();
    expect(broker.subscriptions.filter((s) => s.active)).toEqual([]);
    await new Promise((r) => setTimeout(r, 500));
    expect(h.errors).toEqual([]);
  });
});

describe("project link configuration", () => {
  it("refuses a wildcard or empty topic, and a send or call to `all`", () => {
    expect(projectLinkInConfig.safeParse({ topic: "a/+/b" }).success).toBe(false);
    expect(projectLinkInConfig.safeParse({ topic: "a//b" }).success).toBe(false);
    expect(projectLinkInConfig.safeParse({ topic: "" }).success).toBe(false);
    expect(projectLinkInConfig.safeParse({ topic: "a b/c" }).success).toBe(true);
    expect(projectLinkOutNode.configSchema.safeParse({ mode: "link", broadcast: true, topic: "#" }).success).toBe(false);
    expect(projectLinkOutNode.configSchema.safeParse({ mode: "link", broadcast: false, project: "all", topic: "a" }).success).toBe(false);
    expect(projectLinkOutNode.configSchema.safeParse({ mode: "return" }).success).toBe(true);
    expect(projectLinkOutConfig.safeParse({ project: "a/b" }).success).toBe(false);
    expect(projectLinkCallConfig.safeParse({ project: "all", topic: "a" }).success).toBe(false);
  });
});
