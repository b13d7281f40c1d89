/**
 * Executions' cost control (SPEC §15): sampling at high message rates (every error kept, successes
 * up to a rate per flow and then one in k, the rest counted as `unrecorded` in the list), the
 * retention sweep (per flow count, age, errors kept longer), and an execution that runs longer
 * than a second (stored as `running`, finished later, continued by a delay node's later send).
 */
import { describe, expect, it } from "vitest";
import { setUpTestApp } from "@/test/set-up-test-app";
import { signUp } from "@/test/accounts";
import type { Execution, ExecutionListItem } from "@/shared/executions";
import type { ExecutionWriter } from "@/server/flow-runtime/execution-writer";
import { newId } from "@/server/ids";

const testApp = setUpTestApp({
  EXECUTIONS_SAMPLE_ALL_PER_SEC: "3",
  EXECUTIONS_SAMPLE_ONE_IN: "4",
  EXECUTIONS_KEEP_PER_FLOW: "50",
  EXECUTIONS_KEEP_DAYS: "7",
  EXECUTIONS_KEEP_ERROR_DAYS: "30",
});
const request = testApp.request;

type Owner = Awaited<ReturnType<typeof signUp>>;

let seq = 0;
const uid = (name: string) => `${name}-${Date.now().toString(36)}-${++seq}`;

/**
 * The writer of this app: its sweep runs every minute, tests run it now. With PostgreSQL + Redis the
 * app's runtime is the clustered one, whose local runtime (this instance's) holds the writer.
 */
const writer = () => {
  const runtime = testApp.app.flowRuntime as unknown as { executions?: ExecutionWriter; local?: { executions: ExecutionWriter } };
  return runtime.executions ?? runtime.local!.executions;
};

async function createFlow(owner: Owner, nodes: unknown[], connections: unknown[]) {
  const created = await request("POST", "/flows", { token: owner.accessToken, body: { name: uid("flow"), nodes, connections } });
  expect(created.status, created.text).toBe(201);
  const deployed = await request("POST", `/flows/${created.body.flow.id}/deploy`, { token: owner.accessToken });
  expect(deployed.body.deployment?.state, deployed.text).toBe("running");
  return created.body.flow as { id: string };
}

async function list(owner: Owner, flowId: string, query = "") {
  const res = await request("GET", `/flows/${flowId}/executions${query}`, { token: owner.accessToken });
  expect(res.status, res.text).toBe(200);
  return res.body as { executions: ExecutionListItem[]; next_cursor: string | null; unrecorded: number };
}

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T;
  do {
    last = await fn();
    if (ok(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  } while (Date.now() < deadline);
  throw new Error(`${what}: ${JSON.stringify(last)}`);
}

describe("executions: cost control", () => {
  it("at high rates keeps every error and a sample of successes, and says how many were not recorded", async () => {
    const owner = await signUp(request);
    const ids = { inject: uid("inj"), fn: uid("fn"), debug: uid("dbg") };
    const flow = await createFlow(
      owner,
      [
        { id: ids.inject, type: "inject" },
        { id: ids.fn, type: "function", config: { code: "if (msg.payload % 5 === 0) throw new Error('multiple of 5'); return msg;" } },
        { id: ids.debug, type: "debug" },
      ],
      [
        { source: ids.inject, target: ids.fn },
        { source: ids.fn, target: ids.debug },
      ],
    );
    const sent = 40;
    await Promise.all(Array.from({ length: sent }, (_, i) => request("POST", `/nodes/${ids.inject}/inject`, { token: owner.accessToken, body: { payload: i + 1 } })));
    const answer = await until(
      () => list(owner, flow.id, "?limit=200"),
      (a) => a.executions.length + a.unrecorded === sent,
      "every execution recorded or counted",
    );
    const errors = answer.executions.filter((e) => e.status === "error");
    expect(errors).toHaveLength(8); // 5, 10, … 40: every one kept
    expect(answer.unrecorded).toBeGreaterThan(0);
    expect(answer.executions.filter((e) => e.status === "success").length).toBeGreaterThanOrEqual(3);
    // An error kept though it was not sampled keeps its trigger's and its failing step's message only.
    const details = await Promise.all(errors.map(async (e) => (await request("GET", `/executions/${e.id}`, { token: owner.accessToken })).body.execution as Execution));
    const unsampled = details.filter((d) => !d.sampled);
    expect(unsampled.length).toBeGreaterThan(0);
    for (const d of unsampled) {
      expect(d.steps.map((s) => s.node_id)).toEqual([ids.inject, ids.fn]);
      expect(d.steps[0]!.input_recorded).toBe(true);
      expect(d.steps[1]).toMatchObject({ input_recorded: true, error: expect.stringContaining("multiple of 5") });
      expect(d.replayable).toBe(true);
    }
  });

  it("the retention sweep keeps the newest per flow, successes for days, errors for longer", async () => {
    const owner = await signUp(request);
    const ids = { inject: uid("inj"), debug: uid("dbg") };
    const flow = await createFlow(owner, [{ id: ids.inject, type: "inject" }, { id: ids.debug, type: "debug" }], [{ source: ids.inject, target: ids.debug }]);
    const other = await createFlow(owner, [{ id: uid("inj"), type: "inject" }], []);
    const { prisma } = testApp.app.db;
    const day = 86_400_000;
    const row = (flowId: string, ageMs: number, status: string) => ({
      id: newId("exe"),
      organizationId: owner.organizationId,
      flowId,
      triggerNodeId: ids.inject,
      status,
      startedAt: new Date(Date.now() - ageMs),
      durationMs: 1,
      instanceId: "seed",
      steps: [],
    });
    // 60 recent ones on the flow (10 over its count), and old ones on another flow.
    const seeded = Array.from({ length: 60 }, (_, i) => row(flow.id, 60_000 + i * 1000, "success")); // newest first
    await prisma.execution.createMany({ data: seeded });
    const oldSuccess = row(other.id, 8 * day, "success");
    const oldError = row(other.id, 8 * day, "error");
    const ancientError = row(other.id, 31 * day, "error");
    await prisma.execution.createMany({ data: [oldSuccess, oldError, ancientError] });
    // A message of the flow: the writer has written to it since the last sweep, so its count is checked.
    expect((await request("POST", `/nodes/${ids.inject}/inject`, { token: owner.accessToken, body: {} })).status).toBe(200);
    await until(() => prisma.execution.count({ where: { flowId: flow.id, instanceId: { not: "seed" } } }), (n) => n === 1, "the injected execution stored");

    await writer().sweep();

    expect(await prisma.execution.count({ where: { flowId: flow.id } })).toBe(50);
    const kept = await list(owner, flow.id, "?limit=200");
    expect(kept.executions).toHaveLength(50);
    expect(kept.executions[0]!.trigger_node_id).toBe(ids.inject);
    // The injected one and the 49 newest seeded ones stay; the 11 oldest went.
    expect(kept.executions.slice(1).map((e) => e.id)).toEqual(seeded.slice(0, 49).map((r) => r.id));
    const left = await prisma.execution.findMany({ where: { flowId: other.id }, select: { id: true } });
    expect(left.map((r) => r.id)).toEqual([oldError.id]);
  });

  it("an execution that runs over a second is listed as running, and a delay node's later send continues it", async () => {
    const owner = await signUp(request);
    const ids = { inject: uid("inj"), delay: uid("delay"), debug: uid("dbg") };
    const flow = await createFlow(
      owner,
      [
        { id: ids.inject, type: "inject" },
        { id: ids.delay, type: "delay", config: { mode: "delay", delay_ms: 2000 } },
        { id: ids.debug, type: "debug" },
      ],
      [
        { source: ids.inject, target: ids.delay },
        { source: ids.delay, target: ids.debug },
      ],
    );
    expect((await request("POST", `/nodes/${ids.inject}/inject`, { token: owner.accessToken, body: { payload: "late" } })).status).toBe(200);
    const running = await until(() => list(owner, flow.id), (a) => a.executions.length === 1, "listed while it runs", 1800);
    expect(running.executions[0]).toMatchObject({ status: "running", duration_ms: null });
    expect((await list(owner, flow.id, "?status=running")).executions).toHaveLength(1);
    const done = await until(() => list(owner, flow.id), (a) => a.executions[0]?.status === "success", "finished", 5000);
    expect(done.executions).toHaveLength(1);
    expect(done.executions[0]!.duration_ms).toBeGreaterThanOrEqual(1900);
    const execution = (await request("GET", `/executions/${done.executions[0]!.id}`, { token: owner.accessToken })).body.execution as Execution;
    expect(execution.steps.map((s) => s.node_id)).toEqual([ids.inject, ids.delay, ids.debug]);
    expect(execution.steps[1]!.duration_ms).toBeGreaterThanOrEqual(1900);
  });
});
