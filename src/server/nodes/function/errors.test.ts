/**
 * The function node's errors, node.done and On Start as Node-RED 4.1's (10-function.js), in a running
 * flow: what catch and complete nodes receive, and what the flow reports. The differential cases
 * (cases.ts) compare the same with Node-RED's recorded answers.
 */
import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";

const flow = closingTestFlows();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A function node `f` wired to sink `s`, a catch node `c` wired to sink `caught`, and optionally a complete node on `f`. */
function withCatch(config: Record<string, unknown>, options: { complete?: boolean } = {}) {
  return flow(
    [
      { id: "f", type: "function", config },
      { id: "s", type: "sink" },
      { id: "c", type: "catch", config: { scope: null } },
      { id: "caught", type: "sink" },
      ...(options.complete ? [{ id: "cn", type: "complete", config: { scope: ["f"] } }, { id: "completed", type: "sink" }] : []),
    ],
    [
      { source: "f", target: "s" },
      { source: "c", target: "caught" },
      ...(options.complete ? [{ source: "cn", target: "completed" }] : []),
    ],
  );
}

const at = (h: Awaited<ReturnType<typeof withCatch>>, sink: string) => h.arrivals.filter((a) => a.sink === sink).map((a) => a.msg);

describe("function node errors reach the catch nodes as in Node-RED", () => {
  it("node.error(text, msg) gives the catch node that msg, as the code left it, with msg.error", async () => {
    const h = await withCatch({ code: "msg.payload = 'changed'; node.error('went wrong', msg); return null;" });
    h.send("f", { _msgid: "in-1", payload: "p", topic: "t" });
    await expect.poll(() => at(h, "caught").length).toBe(1);
    expect(at(h, "caught")[0]).toEqual({ _msgid: "in-1", payload: "changed", topic: "t", error: { message: "went wrong", source: { id: "f", type: "function", count: 1 } } });
    expect(h.errors).toEqual([{ nodeId: "f", error: "went wrong" }]);
  });

  it("node.error(err, msg) with an Error: Error: text; the catch message comes before what the code returns", async () => {
    const h = await withCatch({ code: "node.error(new Error('an error object'), { payload: 'other' }); return msg;" });
    h.send("f", { payload: "p" });
    await expect.poll(() => h.arrivals.length).toBe(2);
    expect(h.arrivals.map((a) => a.sink)).toEqual(["caught", "s"]);
    expect(at(h, "caught")[0]).toMatchObject({ payload: "other", error: { message: "Error: an error object" } });
    expect(at(h, "caught")[0]!._msgid).toEqual(expect.any(String));
  });

  it("node.error(text) without a msg is reported, not caught", async () => {
    const h = await withCatch({ code: "node.error('only logged'); return msg;" });
    h.send("f", { payload: "p" });
    await h.waitFor(1);
    await sleep(100);
    expect(at(h, "caught")).toEqual([]);
    expect(h.errors).toEqual([{ nodeId: "f", error: "error: only logged" }]);
  });

  it("a thrown Error: msg.error.message is Error: text (no line), msg as the code left it, msg._error as Node-RED's {}", async () => {
    const h = await withCatch({ code: "msg.payload = 'mutated';\nthrow new Error('boom');" });
    h.send("f", { _msgid: "in-2", payload: "p" });
    await expect.poll(() => at(h, "caught").length).toBe(1);
    expect(at(h, "caught")[0]).toEqual({ _msgid: "in-2", payload: "mutated", _error: {}, error: { message: "Error: boom", source: { id: "f", type: "function", count: 1 } } });
    // What the flow shows (the node's error event and status) is the same text.
    expect(h.errors).toEqual([{ nodeId: "f", error: "Error: boom" }]);
    expect(h.statuses.at(-1)!.status).toEqual({ fill: "red", shape: "ring", text: "Error: boom" });
  });

  it("V8's wording of common errors, and a ReferenceError with its line and column as Node-RED rewrites it", async () => {
    const h = await withCatch({ code: "if (msg.payload === 1) return null.y;\nmsg.payload = notDefined;\nreturn msg;" });
    h.send("f", { payload: 1 });
    h.send("f", { payload: 2 });
    await expect.poll(() => at(h, "caught").length).toBe(2);
    expect(at(h, "caught").map((m) => (m.error as { message: string }).message)).toEqual([
      "TypeError: Cannot read properties of null (reading 'y')",
      "ReferenceError: ReferenceError: notDefined is not defined (line 2, col 15)",
    ]);
  });

  it("a thrown string or object is the message as it is (a string) or as JSON, without msg._error", async () => {
    const h = await withCatch({ code: "if (msg.payload === 1) throw 'just a string'; throw { code: 42 };" });
    h.send("f", { payload: 1 });
    h.send("f", { payload: 2 });
    await expect.poll(() => at(h, "caught").length).toBe(2);
    expect(at(h, "caught").map((m) => [(m.error as { message: string }).message, "_error" in m])).toEqual([
      ["just a string", false],
      ['{"code":42}', false],
    ]);
  });

  it("an error after an await fails the message then; a time limit is Node-RED's timeout text", async () => {
    const h = await withCatch({ code: "if (msg.payload === 'loop') for (;;) {}\nawait new Promise((r) => setTimeout(r, 10));\nthrow new Error('later');", timeout_ms: 200 });
    h.send("f", { payload: 1 });
    await expect.poll(() => at(h, "caught").length).toBe(1);
    expect(at(h, "caught")[0]).toMatchObject({ payload: 1, _error: {}, error: { message: "Error: later" } });
    h.send("f", { payload: "loop" });
    await expect.poll(() => at(h, "caught").length, { timeout: 5000 }).toBe(2);
    expect(at(h, "caught")[1]!.error).toMatchObject({ message: "Error: Script execution timed out after 200ms" });
    expect("_error" in at(h, "caught")[1]!).toBe(false);
  });

  it("an error in a timer's callback is caught with an empty msg (Node-RED's node.error(err, {}))", async () => {
    const h = await withCatch({ code: "setTimeout(() => { throw new Error('in a timer'); }, 10); return null;" });
    h.send("f", { payload: 1 });
    await expect.poll(() => at(h, "caught").length).toBe(1);
    expect(at(h, "caught")[0]).toEqual({ _msgid: expect.any(String), error: { message: "Error: in a timer", source: { id: "f", type: "function", count: 1 } } });
  });
});

describe("function node: node.done as in Node-RED", () => {
  it("node.done(err) fails the message: the catch node gets it, the complete node does not", async () => {
    const h = await withCatch({ code: "msg.payload = 'seen'; node.done('failed here'); return null;" }, { complete: true });
    h.send("f", { payload: 1 });
    await expect.poll(() => at(h, "caught").length).toBe(1);
    expect(at(h, "caught")[0]).toMatchObject({ payload: "seen", error: { message: "failed here" } });
    await sleep(100);
    expect(at(h, "completed")).toEqual([]);
  });

  it("code that calls node.done() finishes its messages itself, later, with the msg as it is then", async () => {
    const h = await withCatch({ code: "setTimeout(() => { msg.payload = 'finished'; node.send(msg); node.done(); }, 40); return null;" }, { complete: true });
    h.send("f", { _msgid: "in-3", payload: 1 });
    await sleep(20);
    expect(at(h, "completed")).toEqual([]);
    await expect.poll(() => at(h, "completed").length).toBe(1);
    expect(at(h, "completed")[0]).toEqual({ _msgid: "in-3", payload: "finished", complete: { source: { id: "f", type: "function" } } });
  });

  it("each message's node.done is its own: finishing the second leaves the first unfinished", async () => {
    const h = await withCatch({ code: "if (msg.payload === 2) node.done(); return null; // the first is never done: node.done()" }, { complete: true });
    h.send("f", { payload: 1 });
    h.send("f", { payload: 2 });
    await expect.poll(() => at(h, "completed").length).toBe(1);
    await sleep(100);
    expect(at(h, "completed").map((m) => m.payload)).toEqual([2]);
  });

  it("without node.done() the complete node fires when the code returns, with the msg as the code left it", async () => {
    const h = await withCatch({ code: "msg.payload = 'returned'; msg.extra = true; delete msg.topic; return null;" }, { complete: true });
    h.send("f", { _msgid: "in-4", payload: 1, topic: "t" });
    await expect.poll(() => at(h, "completed").length).toBe(1);
    expect(at(h, "completed")[0]).toEqual({ _msgid: "in-4", payload: "returned", extra: true, complete: { source: { id: "f", type: "function" } } });
  });
});

describe("function node: On Start returning a promise", () => {
  it("messages wait for it, in order, and then see what it did", async () => {
    const h = await withCatch({
      initialize: "await new Promise((r) => setTimeout(r, 80));\ncontext.set('ready', 'yes');",
      code: "msg.payload = [msg.payload, context.get('ready')]; return msg;",
    });
    for (let i = 1; i <= 5; i++) h.send("f", { payload: i });
    await sleep(30);
    expect(h.received).toEqual([]);
    await h.waitFor(5);
    expect(h.received.map((m) => m.payload)).toEqual([1, 2, 3, 4, 5].map((i) => [i, "yes"]));
  });

  it("an On Start that throws at once is the same: reported, messages dropped, the flow runs", async () => {
    const h = await withCatch({ initialize: "throw new TypeError('bad setup');", code: "return msg;" });
    expect(h.state).toBe("running");
    expect(h.errors).toEqual([{ nodeId: "f", error: "TypeError: bad setup" }]);
    h.send("f", { payload: 1 });
    await sleep(100);
    expect(h.received).toEqual([]);
  });

  it("when it fails, the error is reported and messages are dropped, as in Node-RED", async () => {
    const h = await withCatch({ initialize: "await new Promise((r) => setTimeout(r, 20));\nthrow new Error('no start');", code: "return msg;" });
    h.send("f", { payload: 1 });
    await expect.poll(() => h.errors).toEqual([{ nodeId: "f", error: "Error: no start" }]);
    h.send("f", { payload: 2 });
    await sleep(100);
    expect(h.received).toEqual([]);
    expect(at(h, "caught")).toEqual([]);
  });
});
