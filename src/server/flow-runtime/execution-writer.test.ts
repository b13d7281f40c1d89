import { describe, expect, it } from "vitest";
import type { PrismaClient } from "../../generated/prisma/client";
import { createLogger } from "../logger";
import type { TrackedExecution } from "../runtime/executions/tracker";
import { VariableSet } from "../runtime/variables";
import { DEFAULT_EXECUTION_SETTINGS, ExecutionWriter, storableJson } from "./execution-writer";

let n = 0;
function execution(organizationId: string, flowId: string, input: string): TrackedExecution {
  const id = `exe_${++n}`;
  return {
    id,
    organizationId,
    flowId,
    deploymentId: null,
    triggerNodeId: "in",
    triggerMessage: JSON.stringify({ payload: input }),
    triggerMsgId: id,
    replayOf: null,
    startedAt: Date.now(),
    t0: 0,
    durationMs: 1,
    steps: [{ nodeId: "in", input: JSON.stringify({ payload: input }), truncated: false, outputs: [], error: undefined, ports: 0, startedAt: Date.now(), t0: 0, durationMs: 0, omitted: false }],
    stepsOmitted: 0,
    pending: 0,
    ended: true,
    status: "success",
    error: null,
    sampled: true,
    announced: false,
    failed: false,
  };
}

/** A database that refuses any statement naming POISON (as PostgreSQL refuses data it cannot hold), or is away. */
function fakeDatabase(options: { away?: boolean } = {}) {
  const inserted: string[] = [];
  const counted: Array<{ flow_id: string; unrecorded: number }> = [];
  let statements = 0;
  const prisma = {
    $queryRawUnsafe: async () => [],
    $executeRawUnsafe: async (sql: string, json: string) => {
      statements++;
      if (options.away) throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
      if (sql.includes("execution_counters")) {
        counted.push(...(JSON.parse(json) as typeof counted));
        return 0;
      }
      if (json.includes("POISON")) throw Object.assign(new Error("invalid input syntax for type json"), { code: "22P02", severity: "ERROR" });
      for (const row of JSON.parse(json) as Array<{ id: string }>) inserted.push(row.id);
      return 0;
    },
  } as unknown as PrismaClient;
  return { prisma, inserted, counted, statements: () => statements };
}

function writer(prisma: PrismaClient) {
  return new ExecutionWriter({ prisma, logger: createLogger({ level: "silent" }), instanceId: "i1", settings: DEFAULT_EXECUTION_SETTINGS, redactor: () => VariableSet.empty, flushMs: 60_000 });
}

describe("ExecutionWriter: one tenant's refused row never loses the others'", () => {
  it("a batch the database refuses is split until the refused row is alone; it is counted as unrecorded, the rest stored", async () => {
    const db = fakeDatabase();
    const w = writer(db.prisma);
    const good = Array.from({ length: 9 }, (_, i) => execution(`org_${i % 3}`, `flw_${i % 3}`, "ok"));
    const bad = execution("org_evil", "flw_evil", "POISON");
    for (const e of [...good.slice(0, 4), bad, ...good.slice(4)]) w.finished(e);
    await w.flush();
    expect(db.inserted.sort()).toEqual(good.map((e) => e.id).sort());
    expect(db.counted).toEqual([{ flow_id: "flw_evil", organization_id: "org_evil", unrecorded: 1 }]);
    expect(w.counters.lost).toBe(1);
    await w.close();
  });

  it("an outage is not split (one statement), and what it lost is counted once the database is back", async () => {
    const db = fakeDatabase({ away: true });
    const w = writer(db.prisma);
    for (let i = 0; i < 8; i++) w.finished(execution("org_a", "flw_a", "ok"));
    await w.flush();
    // The insert, then the count (kept for the next flush).
    expect(db.statements()).toBe(2);
    expect(w.counters.lost).toBe(8);
    await w.close().catch(() => undefined);
  });
});

describe("storableJson", () => {
  it("replaces lone surrogate and NUL escapes with U+FFFD, keeps pairs and escaped backslashes", () => {
    const cases: Array<[unknown, unknown]> = [
      [{ x: "\ud800" }, { x: "\ufffd" }],
      [{ x: "a\u0000b" }, { x: "a\ufffdb" }],
      [{ x: "\\u0000" }, { x: "\\u0000" }],
      [{ x: "😀 \ud83d\ude00" }, { x: "😀 😀" }],
      [{ x: "\udc00\ud800" }, { x: "\ufffd\ufffd" }],
      [{ "\ud800k": "\\\ud800" }, { "\ufffdk": "\\\ufffd" }],
    ];
    for (const [value, stored] of cases) expect(JSON.parse(storableJson(JSON.stringify(value)))).toEqual(stored);
  });
});
