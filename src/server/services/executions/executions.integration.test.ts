/**
 * Executions (SPEC §15) through the doors a user uses: flows created and deployed over REST,
 * messages injected over REST, executions listed, read and replayed over REST, debug events seen
 * on the WebSocket. "inject → function that throws on n=2 → debug" shows both executions with
 * their steps; a replay after the fix succeeds and names the execution it replays.
 */
import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { joinAs, signUp } from "@/test/accounts";
import { connect, setUpTestHub } from "@/test/ws";
import type { Execution, ExecutionListItem } from "@/shared/executions";

const testApp = setUpTestApp();
const request = testApp.request;
const hub = setUpTestHub(testApp);

type Owner = Awaited<ReturnType<typeof signUp>>;

let seq = 0;
const uid = (name: string) => `${name}-${Date.now().toString(36)}-${++seq}`;

const THROWS_ON_2 = "if (msg.payload === 2) throw new Error('n is 2'); msg.seen = true; return msg;";

async function createFlow(owner: Owner, nodes: unknown[], connections: unknown[]) {
  const created = await request("POST", "/flows", { token: owner.accessToken, body: { name: uid("flow"), nodes, connections } });
  expect(created.status, created.text).toBe(201);
  const deployed = await request("POST", `/flows/${created.body.flow.id}/deploy`, { token: owner.accessToken });
  expect(deployed.body.deployment?.state, deployed.text).toBe("running");
  return created.body.flow as { id: string; revision: number };
}

async function inject(owner: Owner, nodeId: string, payload: unknown) {
  const res = await request("POST", `/nodes/${nodeId}/inject`, { token: owner.accessToken, body: { payload } });
  expect(res.status, res.text).toBe(200);
}

/** The flow's executions once `count` of them have ended (they are written within ~100 ms). */
async function executionsOf(token: string, flowId: string, count: number, query = ""): Promise<ExecutionListItem[]> {
  let last: ExecutionListItem[] = [];
  for (let i = 0; i < 100; i++) {
    const res = await request("GET", `/flows/${flowId}/executions${query}`, { token });
    expect(res.status, res.text).toBe(200);
    last = res.body.executions;
    if (last.filter((e) => e.status !== "running").length >= count) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`expected ${count} executions, got ${JSON.stringify(last)}`);
}

async function detail(token: string, id: string): Promise<Execution> {
  const res = await request("GET", `/executions/${id}`, { token });
  expect(res.status, res.text).toBe(200);
  return res.body.execution;
}

function chain(ids: { inject: string; fn: string; debug: string }, code = THROWS_ON_2) {
  return {
    nodes: [
      { id: ids.inject, type: "inject" },
      { id: ids.fn, type: "function", config: { code } },
      { id: ids.debug, type: "debug", config: { property: "payload" } },
    ],
    connections: [
      { source: ids.inject, target: ids.fn },
      { source: ids.fn, target: ids.debug },
    ],
  };
}

describe("executions", () => {
  it("inject → function that throws on n=2 → debug: two executions with their steps; a replay after the fix succeeds with replay_of", async () => {
    const owner = await signUp(request);
    const ids = { inject: uid("inj"), fn: uid("fn"), debug: uid("dbg") };
    const graph = chain(ids);
    const flow = await createFlow(owner, graph.nodes, graph.connections);

    const socket = connect(hub.url, { authorization: `Bearer ${owner.accessToken}` });
    await socket.next((f) => f.type === "ready");
    socket.send({ type: "subscribe", topics: ["debug"] });
    await socket.next((f) => f.type === "subscribed");

    await inject(owner, ids.inject, 1);
    const debug = await socket.next((f) => f.type === "event" && f.topic === "debug" && f.data.node_id === ids.debug);
    // Listed before the second starts: the list is newest first, and two in one millisecond would tie.
    await executionsOf(owner.accessToken, flow.id, 1);
    await inject(owner, ids.inject, 2);

    const list = await executionsOf(owner.accessToken, flow.id, 2);
    expect(list).toHaveLength(2);
    const [failed, succeeded] = list; // newest first
    expect(failed).toMatchObject({ flow_id: flow.id, trigger_node_id: ids.inject, status: "error", replay_of: null, error: expect.stringContaining("n is 2") });
    expect(succeeded).toMatchObject({ flow_id: flow.id, trigger_node_id: ids.inject, status: "success", replay_of: null, error: null });
    expect(succeeded!.id).toMatch(/^exe_/);
    expect(succeeded!.duration_ms).toBeGreaterThanOrEqual(0);

    // The debug event names the execution of the message it shows.
    expect(debug.data.execution_id).toBe(succeeded!.id);

    const ok = await detail(owner.accessToken, succeeded!.id);
    expect(ok.steps.map((s) => s.node_id)).toEqual([ids.inject, ids.fn, ids.debug]);
    expect(ok.steps[0]).toMatchObject({ input_recorded: true, outputs: [{ port: 0, count: 1 }] });
    expect((ok.steps[0]!.input as { payload: unknown }).payload).toBe(1);
    expect(ok.steps[1]).toMatchObject({ outputs: [{ port: 0, count: 1 }] });
    expect(ok.steps[1]!.error).toBeUndefined();
    expect(ok.steps[2]).toMatchObject({ outputs: [] });
    expect((ok.steps[2]!.input as { seen?: boolean }).seen).toBe(true);
    expect(ok.steps[2]!.dropped).toBeUndefined(); // a debug node has no outputs: the message ends there, it is not dropped
    expect(ok).toMatchObject({ sampled: true, replayable: true, deployment_id: expect.any(String) });

    const bad = await detail(owner.accessToken, failed!.id);
    expect(bad.steps.map((s) => s.node_id)).toEqual([ids.inject, ids.fn]);
    expect(bad.steps[1]).toMatchObject({ error: expect.stringContaining("n is 2"), outputs: [] });
    expect((bad.steps[1]!.input as { payload: unknown }).payload).toBe(2);

    // Still broken: replaying fails again. Then the fix is deployed and the replay succeeds.
    const fixed = chain(ids, "msg.seen = true; return msg;");
    const saved = await request("PUT", `/flows/${flow.id}`, { token: owner.accessToken, body: { nodes: fixed.nodes, connections: fixed.connections } });
    expect(saved.status, saved.text).toBe(200);
    expect((await request("POST", `/flows/${flow.id}/deploy`, { token: owner.accessToken })).status).toBe(200);
    const replay = await request("POST", `/executions/${failed!.id}/replay`, { token: owner.accessToken });
    expect(replay.status, replay.text).toBe(202);
    expect(replay.body.execution_id).toMatch(/^exe_/);
    const after = await executionsOf(owner.accessToken, flow.id, 3);
    const replayed = after.find((e) => e.id === replay.body.execution_id);
    expect(replayed).toMatchObject({ status: "success", replay_of: failed!.id });
    const replayedDetail = await detail(owner.accessToken, replay.body.execution_id);
    expect(replayedDetail.steps.map((s) => s.node_id)).toEqual([ids.inject, ids.fn, ids.debug]);
    expect((replayedDetail.steps[2]!.input as { payload: unknown }).payload).toBe(2);
    expect(replayedDetail.deployment_id).not.toBe(bad.deployment_id);

    // Filter by status, paginate with the cursor.
    const errors = await request("GET", `/flows/${flow.id}/executions?status=error`, { token: owner.accessToken });
    expect(errors.body.executions.map((e: ExecutionListItem) => e.id)).toEqual([failed!.id]);
    const page1 = await request("GET", `/flows/${flow.id}/executions?limit=2`, { token: owner.accessToken });
    expect(page1.body.executions).toHaveLength(2);
    expect(page1.body.next_cursor).toEqual(expect.any(String));
    const page2 = await request("GET", `/flows/${flow.id}/executions?limit=2&cursor=${page1.body.next_cursor}`, { token: owner.accessToken });
    expect(page2.body.executions.map((e: ExecutionListItem) => e.id)).toEqual([succeeded!.id]);
    expect(page2.body.next_cursor).toBeNull();
    expect(page2.body.unrecorded).toBe(0);
    socket.ws.close();
  });

  it("a message a switch drops ends there and its step says so", async () => {
    const owner = await signUp(request);
    const ids = { inject: uid("inj"), sw: uid("sw"), debug: uid("dbg") };
    const flow = await createFlow(
      owner,
      [
        { id: ids.inject, type: "inject" },
        { id: ids.sw, type: "switch", config: { property: "payload", rules: [{ t: "eq", v: "yes", v_type: "str" }] } },
        { id: ids.debug, type: "debug" },
      ],
      [
        { source: ids.inject, target: ids.sw },
        { source: ids.sw, target: ids.debug },
      ],
    );
    await inject(owner, ids.inject, "no");
    const [execution] = await executionsOf(owner.accessToken, flow.id, 1);
    expect(execution).toMatchObject({ status: "success" });
    const steps = (await detail(owner.accessToken, execution!.id)).steps;
    expect(steps.map((s) => s.node_id)).toEqual([ids.inject, ids.sw]);
    expect(steps[1]).toMatchObject({ outputs: [], dropped: true });
  });

  it("cuts inputs at 64 KiB and redacts secrets", async () => {
    const owner = await signUp(request);
    const secret = `s3cr3t-${Date.now()}`;
    expect((await request("POST", "/variables", { token: owner.accessToken, body: { name: "API_TOKEN", value: secret, secret: true } })).status).toBe(201);
    const ids = { inject: uid("inj"), fn: uid("fn"), debug: uid("dbg") };
    const graph = chain(ids, "return msg;");
    const flow = await createFlow(owner, graph.nodes, graph.connections);
    await inject(owner, ids.inject, { token: secret, note: `bearer ${secret}` });
    await inject(owner, ids.inject, "x".repeat(100 * 1024));
    // Told apart by what they carry: two injects in one millisecond share started_at, and the list's
    // tie-break (the id) is random.
    const details = await Promise.all((await executionsOf(owner.accessToken, flow.id, 2)).map((e) => detail(owner.accessToken, e.id)));
    const smallDetail = details.find((d) => !d.steps[1]?.truncated)!;
    const bigDetail = details.find((d) => d !== smallDetail)!;
    expect(JSON.stringify(smallDetail)).not.toContain(secret);
    expect((smallDetail.steps[1]!.input as { payload: unknown }).payload).toEqual({ token: "***", note: "bearer ***" });
    expect(bigDetail.steps[1]).toMatchObject({ truncated: true });
    expect(typeof bigDetail.steps[1]!.input).toBe("string");
    expect((bigDetail.steps[1]!.input as string).length).toBe(64 * 1024);
    expect(bigDetail.replayable).toBe(true);
  });

  it("replay: viewers 403, members 202; flow not running 409; trigger node gone 409; bad ids 400/404", async () => {
    const owner = await signUp(request);
    const ids = { inject: uid("inj"), fn: uid("fn"), debug: uid("dbg") };
    const graph = chain(ids, "return msg;");
    const flow = await createFlow(owner, graph.nodes, graph.connections);
    await inject(owner, ids.inject, 7);
    const [execution] = await executionsOf(owner.accessToken, flow.id, 1);

    const viewer = await joinAs(testApp.app, request, owner, "viewer");
    const member = await joinAs(testApp.app, request, owner, "member");
    expect((await request("GET", `/flows/${flow.id}/executions`, { token: viewer.token })).status).toBe(200);
    expect((await request("GET", `/executions/${execution!.id}`, { token: viewer.token })).status).toBe(200);
    const refused = await request("POST", `/executions/${execution!.id}/replay`, { token: viewer.token });
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.error.code).toBe("FORBIDDEN");
    const accepted = await request("POST", `/executions/${execution!.id}/replay`, { token: member.token });
    expect(accepted.status, accepted.text).toBe(202);
    const after = await executionsOf(owner.accessToken, flow.id, 2);
    expect(after[0]).toMatchObject({ id: accepted.body.execution_id, replay_of: execution!.id, status: "success" });

    expect((await request("GET", "/executions/exe_doesnotexist", { token: owner.accessToken })).status).toBe(404);
    const malformed = await request("GET", "/executions/nope", { token: owner.accessToken });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe("VALIDATION_FAILED");
    expect((await request("GET", `/flows/${flow.id}/executions?status=weird`, { token: owner.accessToken })).status).toBe(400);
    expect((await request("GET", `/flows/${flow.id}/executions?cursor=garbage!`, { token: owner.accessToken })).status).toBe(400);

    // The trigger node is gone from the current deployment.
    const renamed = chain({ ...ids, inject: uid("inj2") }, "return msg;");
    expect((await request("PUT", `/flows/${flow.id}`, { token: owner.accessToken, body: { nodes: renamed.nodes, connections: renamed.connections } })).status).toBe(200);
    expect((await request("POST", `/flows/${flow.id}/deploy`, { token: owner.accessToken })).status).toBe(200);
    const gone = await request("POST", `/executions/${execution!.id}/replay`, { token: owner.accessToken });
    expect(gone.status, gone.text).toBe(409);
    expect(gone.body.error).toMatchObject({ code: "EXECUTION_NOT_REPLAYABLE" });
    expect(gone.body.error.message).toContain(ids.inject);

    // The flow does not run.
    expect((await request("PUT", `/flows/${flow.id}`, { token: owner.accessToken, body: { enabled: false } })).status).toBe(200);
    const stopped = await request("POST", `/executions/${execution!.id}/replay`, { token: owner.accessToken });
    expect(stopped.status, stopped.text).toBe(409);
    expect(stopped.body.error).toMatchObject({ code: "FLOW_NOT_RUNNING" });
  });

  it("another organization's flow and executions are 404 through every door", async () => {
    const victim = await signUp(request);
    const attacker = await signUp(request);
    const ids = { inject: uid("inj"), fn: uid("fn"), debug: uid("dbg") };
    const graph = chain(ids, "return msg;");
    const flow = await createFlow(victim, graph.nodes, graph.connections);
    await inject(victim, ids.inject, 1);
    const [execution] = await executionsOf(victim.accessToken, flow.id, 1);
    for (const [method, path] of [
      ["GET", `/flows/${flow.id}/executions`],
      ["GET", `/executions/${execution!.id}`],
      ["POST", `/executions/${execution!.id}/replay`],
    ] as const) {
      const res = await request(method, path, { token: attacker.accessToken });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(404);
    }
    // Nothing was replayed.
    expect(await executionsOf(victim.accessToken, flow.id, 1)).toHaveLength(1);
  });
});
