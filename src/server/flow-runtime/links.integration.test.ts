/**
 * Links between flows through the doors a user uses: flows created or imported over REST, deployed,
 * injected over REST, and what arrives seen as debug events on the WebSocket. A link-call reaches a
 * link-in of another flow and gets its answer; import renames ids that are taken and the links
 * follow, export writes them back; a stopped flow's link-in makes the call time out; another
 * organization's link-in is never reached, even with its id.
 */
import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import { connect, setUpTestHub, type TestSocket } from "@/test/ws";

const testApp = setUpTestApp();
const request = testApp.request;
const hub = setUpTestHub(testApp);

type Owner = Awaited<ReturnType<typeof signUp>>;

let seq = 0;
const uid = (name: string) => `${name}-${Date.now().toString(36)}-${++seq}`;
/** Fresh ids, one per name, in order. */
const uids = <const N extends readonly string[]>(...names: N) => names.map(uid) as { [K in keyof N]: string };

async function deploy(owner: Owner, flowId: string) {
  const deployed = await request("POST", `/flows/${flowId}/deploy`, { token: owner.accessToken });
  expect(deployed.body.deployment?.state, deployed.text).toBe("running");
}

async function create(owner: Owner, name: string, nodes: unknown[], connections: unknown[]): Promise<string> {
  const created = await request("POST", "/flows", { token: owner.accessToken, body: { name, nodes, connections } });
  expect(created.status, created.text).toBe(201);
  await deploy(owner, created.body.flow.id);
  return created.body.flow.id as string;
}

async function debugSocket(owner: Owner): Promise<TestSocket> {
  const socket = connect(hub.url, { authorization: `Bearer ${owner.accessToken}` });
  await socket.next((f) => f.type === "ready");
  socket.send({ type: "subscribe", topics: ["debug"] });
  await socket.next((f) => f.type === "subscribed");
  return socket;
}

const debugOf = (socket: TestSocket, nodeId: string) => socket.frames.filter((f) => f.type === "event" && f.topic === "debug" && f.data.node_id === nodeId).map((f) => f.data);

async function inject(owner: Owner, nodeId: string, payload: unknown) {
  const res = await request("POST", `/nodes/${nodeId}/inject`, { token: owner.accessToken, body: { payload } });
  expect(res.status, res.text).toBe(200);
}

/** A caller flow (inject → link-call → debug, catch → debug) and a service flow (link-in → change → link-out return). */
async function callerAndService(owner: Owner, options: { timeoutSeconds?: number; target?: string } = {}) {
  const ids = { inject: uid("inj"), call: uid("call"), answer: uid("answer"), catch: uid("catch"), caught: uid("caught"), in: uid("svc-in"), work: uid("work"), ret: uid("ret") };
  const service = await create(
    owner,
    "service",
    [
      { id: ids.in, type: "link-in", name: "service" },
      { id: ids.work, type: "change", config: { rules: [{ t: "set", p: "served", to: "yes" }] } },
      { id: ids.ret, type: "link-out", config: { mode: "return" } },
    ],
    [
      { source: ids.in, target: ids.work },
      { source: ids.work, target: ids.ret },
    ],
  );
  const caller = await create(
    owner,
    "caller",
    [
      { id: ids.inject, type: "inject" },
      { id: ids.call, type: "link-call", config: { links: [options.target ?? ids.in], timeout_seconds: options.timeoutSeconds ?? 30 } },
      { id: ids.answer, type: "debug", config: { property: "msg" } },
      { id: ids.catch, type: "catch" },
      { id: ids.caught, type: "debug", config: { property: "error" } },
    ],
    [
      { source: ids.inject, target: ids.call },
      { source: ids.call, target: ids.answer },
      { source: ids.catch, target: ids.caught },
    ],
  );
  return { ids, service, caller };
}

describe("links between flows", () => {
  it("a link-call in one flow calls a link-in in another and sends on its answer", async () => {
    const owner = await signUp(request);
    const socket = await debugSocket(owner);
    const { ids, caller } = await callerAndService(owner);
    await inject(owner, ids.inject, "job");
    await expect.poll(() => debugOf(socket, ids.answer), { timeout: 5000 }).toHaveLength(1);
    const [answer] = debugOf(socket, ids.answer);
    expect(answer.msg).toMatchObject({ payload: "job", served: "yes" });
    expect(answer.msg).not.toHaveProperty("_linkSource");
    // The answer is the caller flow's (it leaves the link-call node there).
    expect(socket.frames.find((f) => f.topic === "debug" && f.data.node_id === ids.answer)?.flow_id).toBe(caller);
    socket.ws.close();
  });

  it("a dynamic link-call finds a link-in of another flow by name; two of that name are an error", async () => {
    const owner = await signUp(request);
    const socket = await debugSocket(owner);
    const name = uid("service name");
    const [svcIn, work, ret, injectId, target, call, answer, catchId, caught] = uids("svc-in", "work", "ret", "inj", "target", "call", "answer", "catch", "caught");
    await create(
      owner,
      "service",
      [
        { id: svcIn, type: "link-in", name },
        { id: work, type: "change", config: { rules: [{ t: "set", p: "served", to: "by name" }] } },
        { id: ret, type: "link-out", config: { mode: "return" } },
      ],
      [
        { source: svcIn, target: work },
        { source: work, target: ret },
      ],
    );
    await create(
      owner,
      "caller",
      [
        { id: injectId, type: "inject" },
        { id: target, type: "change", config: { rules: [{ t: "set", p: "target", to: name }] } },
        { id: call, type: "link-call", config: { link_type: "dynamic" } },
        { id: answer, type: "debug", config: { property: "msg" } },
        { id: catchId, type: "catch" },
        { id: caught, type: "debug", config: { property: "error" } },
      ],
      [
        { source: injectId, target },
        { source: target, target: call },
        { source: call, target: answer },
        { source: catchId, target: caught },
      ],
    );
    await inject(owner, injectId, "by name");
    await expect.poll(() => debugOf(socket, answer), { timeout: 5000 }).toHaveLength(1);
    expect(debugOf(socket, answer)[0].msg).toMatchObject({ payload: "by name", served: "by name", target: name });

    await create(owner, "second service", [{ id: uid("svc-in-2"), type: "link-in", name }], []);
    // The names of the running link-in nodes are read again at most a second later.
    await new Promise((r) => setTimeout(r, 1100));
    await inject(owner, injectId, "ambiguous");
    await expect.poll(() => debugOf(socket, caught), { timeout: 5000 }).toHaveLength(1);
    expect(debugOf(socket, caught)[0].msg).toMatchObject({ message: `Error: Multiple link-in nodes named '${name}' found`, source: { id: call, type: "link call" } });
    socket.ws.close();
  });

  it("a link-in whose flow is stopped is not reached: the call times out with Node-RED's error", async () => {
    const owner = await signUp(request);
    const socket = await debugSocket(owner);
    const { ids, service } = await callerAndService(owner, { timeoutSeconds: 0.3 });
    const stopped = await request("PUT", `/flows/${service}`, { token: owner.accessToken, body: { enabled: false } });
    expect(stopped.status, stopped.text).toBe(200);
    await expect.poll(async () => (await request("GET", `/flows/${service}`, { token: owner.accessToken })).body.flow.state).toBe("stopped");
    await inject(owner, ids.inject, "job");
    await expect.poll(() => debugOf(socket, ids.caught), { timeout: 5000 }).toHaveLength(1);
    expect(debugOf(socket, ids.caught)[0].msg).toMatchObject({ message: "timeout", source: { id: ids.call, type: "link call" } });
    expect(debugOf(socket, ids.answer)).toEqual([]);
    socket.ws.close();
  });

  it("never reaches another organization's link-in, even given its id", async () => {
    const victim = await signUp(request);
    const attacker = await signUp(request);
    const victimSocket = await debugSocket(victim);
    const attackerSocket = await debugSocket(attacker);
    const theirs = await callerAndService(victim);
    // The attacker's link-call and link-out name the victim's link-in by id.
    const mine = await callerAndService(attacker, { target: theirs.ids.in });
    const out = uid("out");
    const outInject = uid("out-inj");
    await create(attacker, "sender", [{ id: outInject, type: "inject" }, { id: out, type: "link-out", config: { links: [theirs.ids.in] } }], [{ source: outInject, target: out }]);
    await inject(attacker, mine.ids.inject, "forged");
    await inject(attacker, outInject, "forged");
    await expect.poll(() => debugOf(attackerSocket, mine.ids.caught), { timeout: 5000 }).toHaveLength(1);
    expect(debugOf(attackerSocket, mine.ids.caught)[0].msg).toMatchObject({ message: `Error: target link-in node '${theirs.ids.in}' not found` });
    await new Promise((r) => setTimeout(r, 200));
    expect(victimSocket.frames.filter((f) => f.topic === "debug")).toEqual([]);
    victimSocket.ws.close();
    attackerSocket.ws.close();
  });

  it("import gives taken ids fresh ones and the links follow; export writes them back", async () => {
    const owner = await signUp(request);
    const socket = await debugSocket(owner);
    const [tabA, tabB, inj, call, dbg, lin, work, ret, lout, lin2, dbg2] = uids("tabA", "tabB", "inj", "call", "dbg", "lin", "work", "ret", "lout", "lin2", "dbg2");
    const flowsJson = [
      { id: tabA, type: "tab", label: "caller" },
      { id: tabB, type: "tab", label: "service" },
      { id: inj, type: "inject", z: tabA, payloadType: "str", payload: "hello", x: 100, y: 100, wires: [[call, lout]] },
      { id: call, type: "link call", z: tabA, links: [lin], linkType: "static", timeout: "30", x: 200, y: 100, wires: [[dbg]] },
      { id: dbg, type: "debug", z: tabA, complete: "true", x: 300, y: 100, wires: [] },
      // Only the link-in lists this link-out (Node-RED joins both lists).
      { id: lout, type: "link out", z: tabA, mode: "link", links: [], x: 200, y: 200, wires: [] },
      { id: lin, type: "link in", z: tabB, links: [], x: 100, y: 100, wires: [[work]] },
      { id: work, type: "change", z: tabB, rules: [{ t: "set", p: "served", pt: "msg", to: "yes", tot: "str" }], x: 200, y: 100, wires: [[ret]] },
      { id: ret, type: "link out", z: tabB, mode: "return", links: [], x: 300, y: 100, wires: [] },
      { id: lin2, type: "link in", z: tabB, links: [lout], x: 100, y: 200, wires: [[dbg2]] },
      { id: dbg2, type: "debug", z: tabB, complete: "payload", x: 200, y: 200, wires: [] },
      { id: uid("catch"), type: "catch", z: tabB, scope: [work], uncaught: true, x: 100, y: 300, wires: [] },
    ];
    const first = await request("POST", "/flows/import", { token: owner.accessToken, body: { flows: flowsJson } });
    expect(first.status, first.text).toBe(201);
    const second = await request("POST", "/flows/import", { token: owner.accessToken, body: { flows: flowsJson } });
    expect(second.status, second.text).toBe(201);
    const [callerFlow, serviceFlow] = second.body.flows as Array<{ id: string; nodes: Array<{ id: string; type: string; config: Record<string, unknown> }> }>;
    const byType = (flow: typeof callerFlow, type: string) => flow!.nodes.filter((n) => n.type === type);
    const newLin = byType(serviceFlow, "link-in").find((n) => (n.config.links as string[]).length === 0)!;
    const newLin2 = byType(serviceFlow, "link-in").find((n) => (n.config.links as string[]).length === 1)!;
    const newCall = byType(callerFlow, "link-call")[0]!;
    const newLout = byType(callerFlow, "link-out")[0]!;
    const newCatch = byType(serviceFlow, "catch")[0]!;
    const newWork = byType(serviceFlow, "change")[0]!;
    expect(newLin.id).not.toBe(lin);
    expect(newCall.config.links).toEqual([newLin.id]);
    expect(newLout.config.links).toEqual([newLin2.id]);
    expect(newLin2.config.links).toEqual([newLout.id]);
    expect(newCatch.config).toEqual({ scope: [newWork.id], uncaught: true });

    // The renamed copy runs on its own: its link-call reaches its own link-in.
    await deploy(owner, serviceFlow!.id);
    await deploy(owner, callerFlow!.id);
    const newInject = byType(callerFlow, "inject")[0]!.id;
    const newDbg = byType(callerFlow, "debug")[0]!.id;
    const newDbg2 = byType(serviceFlow, "debug")[0]!.id;
    await inject(owner, newInject, "copy");
    await expect.poll(() => debugOf(socket, newDbg), { timeout: 5000 }).toHaveLength(1);
    expect(debugOf(socket, newDbg)[0].msg).toMatchObject({ payload: "copy", served: "yes" });
    await expect.poll(() => debugOf(socket, newDbg2).map((d) => d.msg)).toEqual(["copy"]);

    const exported = await request("GET", `/flows/${callerFlow!.id}/export`, { token: owner.accessToken });
    expect(exported.status).toBe(200);
    const nrCall = exported.body.find((n: { type: string }) => n.type === "link call");
    expect(nrCall).toMatchObject({ links: [newLin.id], linkType: "static", timeout: "30" });
    const exportedService = await request("GET", `/flows/${serviceFlow!.id}/export`, { token: owner.accessToken });
    expect(exportedService.body.find((n: { type: string }) => n.type === "catch")).toMatchObject({ scope: [newWork.id], uncaught: true });
    expect(exportedService.body.find((n: { id: string }) => n.id === newLin2.id)).toMatchObject({ type: "link in", links: [newLout.id] });
    socket.ws.close();
  });
});
