/**
 * node-red-contrib-hourglass 1.5.1's stopwatch (hourglass.js): its commands and output, the
 * extended mode, alarms (once and recurrent), the status, the locale, and its state kept across a
 * restart, here as one of the organization's files.
 */
import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import { MemoryFiles } from "@/test/memory-files";
import { hourglassNode } from "./definition";

const loadTestFlow = closingTestFlows();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function stopwatch(config: Record<string, unknown> = {}, files = new MemoryFiles(), id = "hg") {
  const h = await loadTestFlow(
    [
      { id, type: "hourglass", config },
      { id: "catch", type: "catch", config: {} },
      { id: "sink", type: "sink" },
      { id: "errors", type: "sink" },
    ],
    [
      { source: id, target: "sink" },
      { source: "catch", target: "errors" },
    ],
    { files },
    {},
    { organizationId: "org_a" },
  );
  const out = () => h.arrivals.filter((a) => a.sink === "sink").map((a) => a.msg);
  return { h, files, out, send: (msg: Record<string, unknown>) => h.send(id, msg) };
}

type Elapsed = { human: string; millis: number; time: Record<string, number> };

describe("hourglass", () => {
  it("measures between start and stop, pauses and resumes, and reports on status with the contrib's fields", async () => {
    const w = await stopwatch();
    w.send({ command: "status" });
    await expect.poll(() => w.out()).toHaveLength(1);
    expect(w.out()[0]).toMatchObject({ command: "status", started: false, elapsed: { human: "a few seconds", millis: 0, time: { days: 0, hours: 0, minutes: 0, seconds: 0, milliseconds: 0 } } });
    w.send({ command: "start" });
    await sleep(150);
    w.send({ command: "pause" });
    await sleep(150);
    w.send({ command: "status" });
    await expect.poll(() => w.out()).toHaveLength(2);
    const paused = (w.out()[1]!.elapsed as Elapsed).millis;
    expect(paused).toBeGreaterThanOrEqual(140);
    // Paused: the 150 ms after the pause did not count (with room for a busy machine).
    expect(paused).toBeLessThan(290 + 500);
    expect(w.out()[1]).toMatchObject({ started: false });
    // Resumed: it counts on from where it stopped.
    w.send({ command: "resume" });
    await sleep(100);
    w.send({ command: "status" });
    await expect.poll(() => w.out()).toHaveLength(3);
    expect(w.out()[2]).toMatchObject({ started: true });
    expect((w.out()[2]!.elapsed as Elapsed).millis).toBeGreaterThanOrEqual(paused + 90);
    // Commands alone send nothing (the basic mode).
    w.send({ command: "stop" });
    await sleep(100);
    expect(w.out()).toHaveLength(3);
  });

  it("toggle, reset (still running), the extended mode (msg.status with any command), and an unknown command is the node's error", async () => {
    const w = await stopwatch();
    w.send({ command: "toggle", status: true });
    await expect.poll(() => w.out()).toHaveLength(1);
    expect(w.out()[0]).toMatchObject({ command: "toggle", started: true });
    await sleep(120);
    w.send({ command: "reset", status: true });
    await expect.poll(() => w.out()).toHaveLength(2);
    expect(w.out()[1]).toMatchObject({ started: true });
    expect((w.out()[1]!.elapsed as Elapsed).millis).toBeLessThan(100);
    w.send({ command: "toggle", status: true });
    await expect.poll(() => w.out()).toHaveLength(3);
    expect(w.out()[2]).toMatchObject({ started: false });
    w.send({ command: "lap", payload: 1 });
    await expect.poll(() => w.h.arrivals.filter((a) => a.sink === "errors")).toHaveLength(1);
    expect(w.h.arrivals.find((a) => a.sink === "errors")!.msg).toMatchObject({ command: "lap", error: { message: "Unknown command: lap" } });
    // As the contrib: the extended mode sends the time after an unknown command too.
    w.send({ command: "lap", status: true });
    await expect.poll(() => w.out()).toHaveLength(4);
    expect(w.out()[3]).toMatchObject({ command: "lap", started: false });
  });

  it("bounds for the shared runtime: a duration Moment.js cannot read, a recurrent period under 100 ms, more than 100 alarms", async () => {
    const w = await stopwatch();
    const errors = () => w.h.arrivals.filter((a) => a.sink === "errors").map((a) => (a.msg.error as { message: string }).message);
    w.send({ command: "alarm", payload: { hours: "x" } });
    w.send({ command: "alarm", payload: 5, recurrent: true });
    await expect.poll(errors).toHaveLength(2);
    expect(errors()[0]).toContain("is not a duration");
    expect(errors()[1]).toContain("at least 100 ms");
    for (let i = 1; i <= 101; i++) w.send({ command: "alarm", payload: i * 1000 });
    await expect.poll(errors).toHaveLength(3);
    expect(errors()[2]).toContain("at most 100 alarms");
    // A duplicate duration is the same alarm, no error.
    w.send({ command: "alarm", payload: 1000 });
    await sleep(50);
    expect(errors()).toHaveLength(3);
  });

  it("a state that cannot be written (past the quota) is the command's error; one that cannot be read is never counted over", async () => {
    const full = await stopwatch({}, new MemoryFiles(5));
    full.send({ command: "start", status: true });
    await expect.poll(() => full.h.arrivals.filter((a) => a.sink === "errors")).toHaveLength(1);
    expect(full.out()).toHaveLength(0);

    const broken = new MemoryFiles();
    broken.set("org_a", "hourglass/kept", '{"started":false,"startedAt":0,"elapsed":3600000}');
    const read = broken.read.bind(broken);
    broken.read = async () => {
      throw new Error("database unreachable");
    };
    const w = await stopwatch({ persistId: "kept" }, broken);
    await expect.poll(() => w.h.statuses.at(-1)?.status).toMatchObject({ fill: "red", text: expect.stringContaining("could not be read: database unreachable") });
    w.send({ command: "reset" });
    await expect.poll(() => w.h.arrivals.filter((a) => a.sink === "errors")).toHaveLength(1);
    expect(JSON.parse(broken.get("org_a", "hourglass/kept")!.toString()).elapsed).toBe(3600000);
    // Once it can be read again, the next command takes the kept state up.
    broken.read = read;
    w.send({ command: "status" });
    await expect.poll(() => w.out()).toHaveLength(1);
    expect((w.out()[0]!.elapsed as Elapsed).millis).toBe(3600000);
  });

  it("the persisting id: . and .. are refused; an imported one with other characters is made a file's name, and the import says so", () => {
    expect(hourglassNode.configSchema.safeParse({ persistId: ".." }).success).toBe(false);
    expect(hourglassNode.configSchema.safeParse({ persistId: "a/b" }).success).toBe(false);
    expect(hourglassNode.nodeRed!.fromNodeRed({ persistId: "Line 1 break", humanizeLocale: "" })).toEqual({ persistId: "Line_1_break", humanizeLocale: "" });
    expect(hourglassNode.nodeRed!.importNotes!({ persistId: "Line 1 break" })).toEqual(['its persisting id "Line 1 break" is "Line_1_break" here (a file\'s name)']);
    expect(hourglassNode.nodeRed!.importNotes!({ persistId: "line1" })).toEqual([]);
  });

  it("an alarm rings once the stopwatch has run its duration, with its own message; a recurrent one every period", async () => {
    const w = await stopwatch();
    w.send({ command: "alarm", payload: 150, topic: "once" });
    w.send({ command: "alarm", payload: 100, recurrent: true, period: 100, topic: "every" });
    // Not running: nothing rings.
    await sleep(250);
    expect(w.out()).toHaveLength(0);
    w.send({ command: "start" });
    await expect.poll(() => w.out().filter((m) => m.topic === "every").length, { timeout: 2000 }).toBeGreaterThanOrEqual(3);
    const once = w.out().filter((m) => m.topic === "once");
    expect(once).toHaveLength(1);
    expect(once[0]).toMatchObject({ command: "alarm", started: true });
    expect((once[0]!.elapsed as Elapsed).millis).toBeGreaterThanOrEqual(140);
    // Removed: they ring no more.
    w.send({ command: "remove-alarms" });
    await sleep(50);
    const count = w.out().length;
    await sleep(250);
    expect(w.out()).toHaveLength(count);
  });

  it("the status: grey ring and the time when stopped, green dot when running", async () => {
    const w = await stopwatch();
    await expect.poll(() => w.h.statuses.at(-1)?.status).toEqual({ fill: "grey", shape: "ring", text: "a few seconds" });
    w.send({ command: "start" });
    await expect.poll(() => w.h.statuses.at(-1)?.status).toEqual({ fill: "green", shape: "dot", text: "a few seconds" });
    // An alarm already due: red (all due); another not yet: yellow.
    w.send({ command: "alarm", payload: 1 });
    await sleep(20);
    w.send({ command: "alarm", payload: 3_600_000 });
    w.send({ command: "stop" });
    w.send({ command: "start" });
    await expect.poll(() => w.h.statuses.at(-1)?.status?.fill).toBe("yellow");
    w.send({ command: "remove-alarms" });
    await w.h.close();
    // Stopped, the node's status is cleared, as the contrib's.
    expect(w.h.statuses.at(-1)?.status).toBeNull();
  });

  it("the locale names the time in its language", async () => {
    const w = await stopwatch({ humanizeLocale: "de" });
    w.send({ command: "status" });
    await expect.poll(() => w.out()).toHaveLength(1);
    expect((w.out()[0]!.elapsed as Elapsed).human).toBe("ein paar Sekunden");
  });

  it("its state is kept among the organization's files (hourglass/<id>) and taken up again after a restart, still running", async () => {
    const files = new MemoryFiles();
    const first = await stopwatch({ persistId: "line1" }, files);
    first.send({ command: "start" });
    await expect.poll(() => files.get("org_a", "hourglass/line1")).toBeDefined();
    await sleep(150);
    await first.h.close();
    expect(JSON.parse(files.get("org_a", "hourglass/line1")!.toString())).toMatchObject({ started: true, elapsed: 0 });
    // Another run (a redeploy, another instance) of the same node: it counts on from the first start.
    const again = await stopwatch({ persistId: "line1" }, files, "hg2");
    again.send({ command: "status" });
    await expect.poll(() => again.out()).toHaveLength(1);
    expect(again.out()[0]).toMatchObject({ started: true });
    expect((again.out()[0]!.elapsed as Elapsed).millis).toBeGreaterThanOrEqual(140);
    // Without an id, the node's own id names its state.
    const own = await stopwatch({}, files, "hg3");
    own.send({ command: "start" });
    await expect.poll(() => files.get("org_a", "hourglass/hg3")).toBeDefined();
  });

  it("a status asked while a command's state is being written answers once it is kept (as the contrib's writeFileSync)", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    class SlowFiles extends MemoryFiles {
      slow = false;
      override async write(organizationId: string, path: string, content: Uint8Array, options: { append: boolean }) {
        if (this.slow) await gate;
        return super.write(organizationId, path, content, options);
      }
    }
    const files = new SlowFiles();
    const w = await stopwatch({}, files);
    w.send({ command: "start" });
    await expect.poll(() => files.get("org_a", "hourglass/hg")).toBeDefined();
    files.slow = true;
    w.send({ command: "stop" });
    w.send({ command: "status" });
    await sleep(100);
    expect(w.out()).toHaveLength(0);
    release();
    await expect.poll(() => w.out()).toHaveLength(1);
    expect(w.out()[0]).toMatchObject({ started: false });
    expect(JSON.parse(files.get("org_a", "hourglass/hg")!.toString())).toMatchObject({ started: false, startedAt: 0 });
  });
});
