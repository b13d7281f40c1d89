import { afterAll, describe, expect, it } from "vitest";
import { SandboxPool } from "@/server/runtime/sandbox/sandbox-pool";
import { loadCaseFiles } from "./load-cases";
import { normalizeArrivals, removePath } from "./normalize";
import { runOurs } from "./run-ours";
import { inComparedOrder } from "./compare";
import { requestsDriver } from "./http-driver";
import { startEchoServer } from "./echo-server";
import { startOurHost } from "./our-host";
import { isTimed, virtualClock } from "./virtual-clock";
import type { DiffClock } from "./collect";
import type { DiffCase } from "./types";
import { createSafeFetch } from "@/server/runtime/safe-fetch";
import { SqliteHost } from "@/server/runtime/sqlite/sqlite-host";

/**
 * SPEC §12: the same flow, given the same messages, sends the same messages as in Node-RED 4.1.
 * Every node type's cases (src/server/nodes/<type>/cases.ts) run in our engine and are compared with
 * Node-RED's recorded answers (cases.recorded.json, `npm run diff:record`). A case marked `differs`
 * is a deliberate difference: it must still differ (the node's own test asserts our behaviour).
 */
const files = await loadCaseFiles();
const sandboxes = new SandboxPool();
// Cases with `requests` reach their flow over HTTP: one server of ours for them all (webhooks at /hooks/diff).
const host = files.some((f) => f.cases.some((c) => c.requests)) ? await startOurHost() : undefined;
let served = 0;
// Outgoing HTTP as the server's, private addresses allowed (http request's cases call 127.0.0.1).
const httpRequest = createSafeFetch({ allowPrivate: true });
// SQLite (its worker starts with the first sqlite case); the cases' databases are :memory:, one per configuration node id.
const sqlite = new SqliteHost({ heapLimitBytes: 64 << 20, limits: { statementMs: 5000, maxDatabaseBytes: 10 << 20, maxValueBytes: 1 << 20, maxResultBytes: 8 << 20 } });
// Cases whose http request nodes call the echo server (what a request sent, as its answer).
const echo = files.some((f) => f.cases.some((c) => c.echo)) ? await startEchoServer() : undefined;
afterAll(async () => {
  await echo?.close();
  await sandboxes.close();
  await sqlite.close();
  await host?.close();
});

describe.each(files.map((f) => [f.type, f] as const))("%s behaves as in Node-RED", (_type, file) => {
  it("has Node-RED's answers recorded for every case (npm run diff:record)", () => {
    const missing = file.cases.filter((c) => !file.recorded?.cases[c.name]).map((c) => c.name);
    expect(missing).toEqual([]);
  });
  // A recording with fewer messages than the case waits for is Node-RED failing the case's code
  // (an error, nothing sent): both sides then answer nothing and would compare equal.
  it("has, for every case that waits for messages, at least that many recorded", () => {
    const short = file.cases
      .filter((c) => c.expect !== undefined && (file.recorded?.cases[c.name]?.arrivals.length ?? Infinity) < c.expect)
      .map((c) => `${c.name}: waits for ${c.expect}, Node-RED sent ${file.recorded!.cases[c.name]!.arrivals.length}`);
    expect(short).toEqual([]);
  });
  const compareWithNodeRed = async (c: DiffCase, clock?: DiffClock) => {
    const recorded = file.recorded?.cases[c.name];
    if (!recorded) return; // reported by the test above
    for (const path of c.ignore ?? []) {
      const present = recorded.arrivals.some(({ msg }) => removePath(structuredClone(msg), path));
      expect(present, `ignores ${path} (${c.ignoreWhy ?? "no reason given"}), which Node-RED's answer does not have`).toBe(true);
    }
    // Its own organization slug: cases run side by side, and each serves its paths alone.
    const slug = `diff${++served}`;
    const ours = c.requests && host
      ? await runOurs(c, { ...host.services, sandboxes, sqlite }, { organizationSlug: slug, drive: requestsDriver(c.requests, `${host.base}/hooks/${slug}`), clock })
      : await runOurs(c, { sandboxes, httpRequest, sqlite }, { clock });
    // A case with subflows, groups or junctions proves their import too: it imports with no warning.
    if (c.subflows || c.nodes.some((n) => n.type === "group" || n.type === "junction")) expect(ours.warnings, "import warnings").toEqual([]);
    const theirs = inComparedOrder(c, normalizeArrivals(c, recorded.arrivals));
    const mine = inComparedOrder(c, normalizeArrivals(c, ours.arrivals));
    if (c.differs) expect(mine, `marked as a deliberate difference (${c.differs}) but answers as Node-RED`).not.toEqual(theirs);
    else expect(mine, `node errors: ${ours.errors.join("; ") || "none"}`).toEqual(theirs);
  };
  const untimed = file.cases.filter((c) => !isTimed(c));
  const timed = file.cases.filter(isTimed);
  if (untimed.length > 0) it.concurrent.each(untimed.map((c) => [c.name, c] as const))("%s", (_name, c) => compareWithNodeRed(c), 20_000);
  // Sends at set times against the nodes' timers: on a faked clock, one at a time (the clock is the process's).
  if (timed.length > 0) it.each(timed.map((c) => [c.name, c] as const))("%s (virtual clock)", (_name, c) => compareWithNodeRed(c, virtualClock()), 20_000);
});
