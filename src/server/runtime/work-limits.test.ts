import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ByteBudget, WorkLimits, approxMessageBytes } from "./work-limits";
import { compileJsonata, nodeJsonataBindings } from "./jsonata";
import { createSafeFetch } from "./safe-fetch";
import { builtinVariables, memoryContextStore } from "./memory-context";
import type { RuntimeServices } from "./types";

describe("approxMessageBytes", () => {
  it("counts strings, buffers and entries, and stops at the cap however often one object repeats", () => {
    expect(approxMessageBytes({ payload: "x".repeat(10_000) })).toBeGreaterThan(10_000);
    expect(approxMessageBytes({ payload: Buffer.alloc(50_000) })).toBeGreaterThan(50_000);
    let dag: unknown = { leaf: "value" };
    for (let i = 0; i < 40; i++) dag = { a: dag, b: dag };
    const started = performance.now();
    expect(approxMessageBytes({ payload: dag }, 1024 * 1024)).toBe(1024 * 1024);
    expect(performance.now() - started).toBeLessThan(500);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(approxMessageBytes(cycle, 4096)).toBe(4096);
  });

  it("gives the same estimate call after call, after a walk cut at the cap, and from inside another walk (a getter)", () => {
    const msg = { _msgid: "m1", payload: { n: 1, list: ["a", "bc", null] }, topic: "t" };
    // 32 per object and 16 per entry, 32 + 8 per array slot, 16 + length per string, 8 per other value.
    const expected = 32 + 3 * 16 + (16 + 2) + (32 + 2 * 16 + 8 + (32 + 3 * 8 + (16 + 1) + (16 + 2) + 8)) + (16 + 1);
    expect(approxMessageBytes(msg)).toBe(expected);
    expect(approxMessageBytes(msg)).toBe(expected);
    // A walk cut at the cap leaves nothing behind for the next one.
    expect(approxMessageBytes({ a: "x".repeat(100), b: { c: [1, 2, 3] } }, 64)).toBe(64);
    expect(approxMessageBytes(msg)).toBe(expected);
    let inner = 0;
    const withGetter = {
      _msgid: "m1",
      get payload() {
        inner = approxMessageBytes(msg);
        return { n: 1, list: ["a", "bc", null] };
      },
      topic: "t",
    };
    expect(approxMessageBytes(withGetter)).toBe(expected);
    expect(inner).toBe(expected);
    expect(approxMessageBytes(msg)).toBe(expected);
  });
});

describe("ByteBudget", () => {
  it("grants in order, holds what does not fit until bytes come back, and lets a reservation larger than all of it run alone", () => {
    const budget = new ByteBudget(100);
    const granted: string[] = [];
    budget.reserve(60, () => granted.push("a"));
    budget.reserve(60, () => granted.push("b"));
    const cancelC = budget.reserve(10, () => granted.push("c"));
    // c fits, but waits behind b: nobody overtakes.
    expect(granted).toEqual(["a"]);
    budget.give(60);
    expect(granted).toEqual(["a", "b", "c"]);
    cancelC();
    budget.give(60);
    budget.give(10);
    budget.reserve(500, () => granted.push("big"));
    expect(granted).toEqual(["a", "b", "c", "big"]);
    const cancelled = budget.reserve(1, () => granted.push("never"));
    cancelled();
    budget.give(500);
    expect(granted).not.toContain("never");
    expect(budget.held).toBe(0);
    expect(budget.peak).toBe(500);
  });
});

describe("JSONata turns per flow and organization", () => {
  it("50 slow evaluations of one organization: at most 2 per flow and 4 in all run at once, the others wait their turn, all finish", async () => {
    const limits = new WorkLimits({ jsonataPerFlow: 2, jsonataPerOrganization: 4, responseBytesPerOrganization: 1024 });
    const services: RuntimeServices = { workLimits: limits };
    const context = { node: memoryContextStore(new Map()), flow: memoryContextStore(new Map()), global: memoryContextStore(new Map()) };
    const ctxOf = (flowId: string) => ({ context, env: builtinVariables({}), services, organizationId: "org_a", flowId });
    // Each evaluation says when it starts and ends running, and takes a few ms of evaluation steps.
    let running = 0;
    let peak = 0;
    const perFlow = new Map<string, number>();
    let peakPerFlow = 0;
    const slow = compileJsonata("($start($flow); $r := $count([1..2000].($ * 2)); $end($flow); $r)");
    const bindings = (flowId: string) => ({
      ...nodeJsonataBindings(ctxOf(flowId)),
      flow: flowId,
      start: (f: string) => {
        peak = Math.max(peak, ++running);
        perFlow.set(f, (perFlow.get(f) ?? 0) + 1);
        peakPerFlow = Math.max(peakPerFlow, perFlow.get(f)!);
      },
      end: (f: string) => {
        running--;
        perFlow.set(f, perFlow.get(f)! - 1);
      },
    });
    // Ten of one flow first: without its turns four of them would take the organization's four. The
    // rest spread over four other flows. (Spread evenly from the start, five flows through four
    // organization turns given out in order never run two of one flow at once unless evaluations
    // finish out of order, so the per-flow peak depended on timing.)
    const flowOf = (i: number) => (i < 10 ? "flw_0" : `flw_${1 + (i % 4)}`);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => slow.evaluate({}, bindings(flowOf(i)))));
    expect(results).toEqual(Array(50).fill(2000));
    // Without the turns all 50 run at once, interleaved every 10 ms.
    expect(peak).toBe(4);
    expect(peakPerFlow).toBe(2);
    expect(limits.stats().jsonataRunning).toBe(0);
  });

  it("another organization does not wait behind the first one's turns", async () => {
    const limits = new WorkLimits({ jsonataPerFlow: 1, jsonataPerOrganization: 1, responseBytesPerOrganization: 1024 });
    const services: RuntimeServices = { workLimits: limits };
    const context = { node: memoryContextStore(new Map()), flow: memoryContextStore(new Map()), global: memoryContextStore(new Map()) };
    const slow = compileJsonata("$count([1..5000].($ * 2))");
    const quick = compileJsonata("1 + 1");
    const busy = Array.from({ length: 10 }, () => slow.evaluate({}, nodeJsonataBindings({ context, env: builtinVariables({}), services, organizationId: "org_a", flowId: "flw_a" })));
    let quickDone = false;
    await quick.evaluate({}, nodeJsonataBindings({ context, env: builtinVariables({}), services, organizationId: "org_b", flowId: "flw_b" })).then(() => (quickDone = true));
    let slowDone = 0;
    for (const p of busy) void p.then(() => slowDone++);
    expect(quickDone).toBe(true);
    expect(slowDone).toBeLessThan(10);
    await Promise.all(busy);
  });
});

describe("download bytes per organization", () => {
  let server: http.Server;
  let url = "";
  let concurrent = 0;
  let maxConcurrent = 0;
  const body = Buffer.alloc(1024 * 1024, 1);
  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      res.writeHead(200, { "content-length": String(body.length) });
      concurrent++;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      res.end(body, () => concurrent--);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/big`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("20 responses of 1 MiB under a 3 MiB budget: never more than 3 MiB held, all delivered", async () => {
    const fetcher = createSafeFetch({ allowPrivate: true });
    const budget = new ByteBudget(3 * 1024 * 1024);
    const responses = await Promise.all(Array.from({ length: 20 }, () => fetcher(url, { method: "GET", headers: {}, timeoutMs: 20_000, budget })));
    expect(responses.map((r) => r.body.length)).toEqual(Array(20).fill(body.length));
    expect(budget.peak).toBeLessThanOrEqual(3 * 1024 * 1024);
    expect(budget.held).toBe(0);
  });

  it("a response waiting for the budget past its deadline fails, and gives nothing back it did not take", async () => {
    const fetcher = createSafeFetch({ allowPrivate: true });
    const budget = new ByteBudget(1024 * 1024);
    budget.reserve(1024 * 1024, () => undefined);
    const release = () => budget.give(1024 * 1024);
    await expect(fetcher(url, { method: "GET", headers: {}, timeoutMs: 300, budget })).rejects.toThrow(/no complete response within 300 ms/);
    release();
    expect(budget.held).toBe(0);
    const after = await fetcher(url, { method: "GET", headers: {}, timeoutMs: 5000, budget });
    expect(after.body.length).toBe(body.length);
    expect(budget.held).toBe(0);
  });
});
