import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SandboxPool } from "@/server/runtime/sandbox/sandbox-pool";
import { EXAMPLES_DIR, EXAMPLES_RECORDED, exampleCases, exampleFiles, normalizeExample, pointAt, type RecordedExamples } from "./examples";
import { requestsDriver } from "./http-driver";
import { startOurHost } from "./our-host";
import { runOurs } from "./run-ours";
import type { DiffCase, NodeRedNode } from "./types";

/**
 * Node-RED 5.0's shipped example flows, run in our engine and compared with Node-RED's answers as
 * `npm run diff:examples` recorded them (src/test/fixtures/node-red-examples.recorded.json; the
 * report with each difference explained: docs/NODE-RED-EXAMPLES.md). A case recorded "same" must
 * answer as Node-RED did; one recorded "different" is a deliberate difference (the report and the
 * node's help say why) and must still differ. The network examples reach their flows over HTTP and
 * WebSocket on a server of ours (our-host.ts), each case as its own organization.
 */
const recorded = JSON.parse(readFileSync(EXAMPLES_RECORDED, "utf8")) as RecordedExamples;
const cases: DiffCase[] = exampleFiles(EXAMPLES_DIR).flatMap((file) => {
  const prepared = exampleCases(path.relative(EXAMPLES_DIR, file), JSON.parse(readFileSync(file, "utf8")) as NodeRedNode[]);
  return "skipped" in prepared ? [] : prepared.cases;
});
const host = await startOurHost();
const sandboxes = new SandboxPool();
let organizations = 0;
afterAll(async () => {
  await sandboxes.close();
  await host.close();
});

describe("Node-RED's example flows", () => {
  it("has Node-RED's answer recorded for every case, and none for a case that is gone (npm run diff:examples)", () => {
    expect(cases.map((c) => c.name).sort()).toEqual(Object.keys(recorded.cases).sort());
  });

  const compared = cases.filter((c) => recorded.cases[c.name]?.status === "same" || recorded.cases[c.name]?.status === "different");
  it.concurrent.each(compared.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const { status, arrivals } = recorded.cases[c.name]!;
    const slug = `examples${++organizations}`;
    const side = { http: `${host.base}/hooks/${slug}`, ws: `${host.base.replace(/^http/, "ws")}/ws/hooks/${slug}` };
    // Done once as many messages as Node-RED's arrived (and a short grace for an extra one), waiting
    // up to 5 s + settleMs for them (delay/04 releases 10 at 1 a second); none: after 1.5 s of quiet.
    const mine = pointAt({ ...c, ...(arrivals.length > 0 ? { expect: arrivals.length, settleMs: 10_000 } : {}) }, side);
    const ours = await runOurs(mine, { ...host.services, sandboxes }, { organizationSlug: slug, organizationId: slug, ...(mine.requests ? { drive: requestsDriver(mine.requests, side.http) } : {}) });
    const got = normalizeExample(c, ours.arrivals, side);
    if (status === "same") expect(got, `node errors: ${ours.errors.join("; ") || "none"}`).toEqual(arrivals);
    else expect(got, "recorded as a deliberate difference (docs/NODE-RED-EXAMPLES.md) but answers as Node-RED").not.toEqual(arrivals);
  }, 30_000);
});
