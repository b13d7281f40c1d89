/**
 * Executions in a cluster (SPEC §11, §15), with real processes on loopback against the machine's
 * PostgreSQL and Redis (the `cluster` vitest project): the instance running a flow records its
 * executions and every instance reads them; a replay asked of another instance reaches the one
 * running the flow; and when that instance dies (kill -9) mid-execution, the execution it left
 * `running` ends in error ("instance … stopped while it ran") once another instance takes the flow.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp } from "@/test/accounts";
import { TestCluster, until } from "@/test/cluster";

const BASE_PORT = 3760;

let cluster: TestCluster;
const tag = Math.random().toString(36).slice(2, 8);
const ids = { inject: `inject-${tag}`, fn: `fn-${tag}`, delay: `delay-${tag}`, debug: `debug-${tag}` };

beforeAll(async () => {
  cluster = new TestCluster({ basePort: BASE_PORT });
  // "a" starts alone: the flow is placed on it.
  await cluster.start("a", 0);
}, 90_000);

afterAll(async () => {
  await cluster?.dispose();
}, 60_000);

describe("executions across instances", () => {
  it("recorded where the flow runs, read and replayed from any instance; a failover ends a running one in error", async () => {
    try {
      const a = cluster.node("a");
      const user = await signUp(a.request);
      const token = user.accessToken;
      const created = await a.request("POST", "/flows", {
        token,
        body: {
          name: "held messages",
          nodes: [
            { id: ids.inject, type: "inject" },
            // msg.delay = the payload: a message waits as long as it says.
            { id: ids.fn, type: "function", config: { code: "msg.delay = msg.payload; return msg;" } },
            { id: ids.delay, type: "delay", config: { mode: "variable", delay_ms: 10 } },
            { id: ids.debug, type: "debug" },
          ],
          connections: [
            { source: ids.inject, target: ids.fn },
            { source: ids.fn, target: ids.delay },
            { source: ids.delay, target: ids.debug },
          ],
        },
      });
      expect(created.status, created.text).toBe(201);
      const flowId = created.body.flow.id as string;
      expect((await a.request("POST", `/flows/${flowId}/deploy`, { token })).body.deployment?.state).toBe("running");

      const b = await cluster.start("b", 1);
      const list = async (via: typeof a, query = "") => {
        const res = await via.request("GET", `/flows/${flowId}/executions${query}`, { token });
        expect(res.status, res.text).toBe(200);
        return res.body.executions as Array<{ id: string; status: string; error: string | null; replay_of: string | null }>;
      };

      // A quick one, injected through b: recorded by a, read from b.
      expect((await b.request("POST", `/nodes/${ids.inject}/inject`, { token, body: { payload: 50 } })).status).toBe(200);
      const [quick] = await until("the quick execution recorded", async () => {
        const l = await list(b);
        return l.length === 1 && l[0]!.status === "success" ? l : undefined;
      });
      const detail = await b.request("GET", `/executions/${quick!.id}`, { token });
      expect(detail.body.execution).toMatchObject({ instance_id: a.instanceId, status: "success" });
      expect(detail.body.execution.steps.map((s: { node_id: string }) => s.node_id)).toEqual([ids.inject, ids.fn, ids.delay, ids.debug]);

      // Replayed through b: the message is sent again where the flow runs (a).
      const replay = await b.request("POST", `/executions/${quick!.id}/replay`, { token });
      expect(replay.status, replay.text).toBe(202);
      // Read your writes (issue 40): the 202 came once a had stored it, so b reads it at once.
      const atOnce = await b.request("GET", `/executions/${replay.body.execution_id}`, { token });
      expect(atOnce.status, atOnce.text).toBe(200);
      expect(atOnce.body.execution.replay_of).toBe(quick!.id);
      const replayed = await until("the replay recorded", async () => {
        const l = await list(a);
        const r = l.find((e) => e.id === replay.body.execution_id);
        return r?.status === "success" ? r : undefined;
      });
      expect(replayed.replay_of).toBe(quick!.id);
      expect((await b.request("GET", `/executions/${replayed.id}`, { token })).body.execution.instance_id).toBe(a.instanceId);

      // A message that waits a minute: stored as running after a second.
      expect((await a.request("POST", `/nodes/${ids.inject}/inject`, { token, body: { payload: 60_000 } })).status).toBe(200);
      const running = await until("the long execution stored as running", async () => (await list(b, "?status=running"))[0], 10_000);

      cluster.signal("a", "SIGKILL");
      await until(
        "the flow runs on b",
        async () => {
          const res = await b.request("GET", `/flows/${flowId}`, { token });
          return res.body.flow?.runtime?.instance_id === b.instanceId ? true : undefined;
        },
        20_000,
      );
      const ended = await until("the running execution ended in error", async () => {
        const l = await list(b);
        const e = l.find((x) => x.id === running.id);
        return e?.status === "error" ? e : undefined;
      });
      expect(ended.error).toBe(`instance ${a.instanceId} stopped while it ran`);
      expect(await list(b, "?status=running")).toEqual([]);
    } catch (err) {
      console.error(cluster.logs());
      throw err;
    }
  }, 120_000);
});
