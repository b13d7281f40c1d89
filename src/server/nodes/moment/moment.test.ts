import { describe, expect, it } from "vitest";
import { closingTestFlows } from "@/test/runtime-harness";
import { momentNode } from "./definition";

const flow = closingTestFlows();

async function formatter(config: Record<string, unknown>) {
  return flow([{ id: "m", type: "moment", config }, { id: "s", type: "sink" }], [{ source: "m", target: "s" }]);
}

describe("moment (Date/Time Formatter)", () => {
  it("relative outputs: fromNow against now, yesterday and tomorrow as inputs; calendar beyond a week is a date", async () => {
    const h = await formatter({ format: "fromNow" });
    h.send("m", { payload: Date.now() - 5 * 60_000 });
    h.send("m", { payload: "tomorrow" });
    h.send("m", { payload: "Yesterday" });
    const cal = await formatter({ format: "calendar", in_tz: "UTC" });
    cal.send("m", { payload: "2020-01-01 10:00" });
    expect((await h.waitFor(3)).map((m) => m.payload)).toEqual(["5 minutes ago", "in a day", "a day ago"]);
    expect((await cal.waitFor(1))[0]!.payload).toBe("2020-01-01");
  });

  it("reads flow context and writes global context, the message then unchanged but for its settings", async () => {
    const h = await flow(
      [
        { id: "c1", type: "change", config: { rules: [{ t: "set", p: "started", p_type: "flow", to: "2026-12-02 09:05", to_type: "str" }] } },
        { id: "m", type: "moment", config: { input: "started", input_type: "flow", in_tz: "Europe/Berlin", out_tz: "UTC", format: "HH:mm", output: "clock.started", output_type: "global" } },
        { id: "c2", type: "change", config: { rules: [{ t: "set", p: "copied", p_type: "msg", to: "clock.started", to_type: "global" }] } },
        { id: "s", type: "sink" },
      ],
      [
        { source: "c1", target: "m" },
        { source: "m", target: "c2" },
        { source: "c2", target: "s" },
      ],
    );
    h.send("c1", { payload: "kept" });
    const [m] = await h.waitFor(1);
    expect(m).toMatchObject({ payload: "kept", copied: "08:05" });
    expect(m!.settings).toMatchObject({ input: "2026-12-02 09:05", input_tz: "Europe/Berlin", output_tz: "UTC", output_format: "HH:mm" });
  });

  it("a text with no zone set is read as UTC (Node-RED's node fails on it), and a message's zone is its own", async () => {
    const h = await formatter({ format: "YYYY-MM-DD HH:mm Z" });
    h.send("m", { payload: "2026-06-15 12:00", outTz: "Asia/Kolkata" });
    h.send("m", { payload: "2026-06-15 12:00" });
    const got = await h.waitFor(2);
    expect(got.map((m) => m.payload)).toEqual(["2026-06-15 17:30 +05:30", "2026-06-15 12:00 +00:00"]);
    expect(got[1]!.settings).toMatchObject({ input_tz: "UTC", output_tz: "UTC" });
    expect(h.errors).toEqual([]);
  });

  it("warns of an unknown zone and of an input that is no date, as the contrib does", async () => {
    const h = await formatter({ in_tz: "Mars/Olympus", format: "YYYY" });
    h.send("m", { payload: "no date here" });
    const [m] = await h.waitFor(1);
    expect(m!.payload).toBe("");
    expect(h.errors.map((e) => e.error)).toEqual([
      "Moment: Input Timezone Invalid, reset to UTC - see http://momentjs.com/timezone/docs/#/data-loading/",
      "Moment: Output Timezone Invalid, reset to UTC - see http://momentjs.com/timezone/docs/#/data-loading/",
      "The input property was NOT a recognisable date. Output will be a blank string",
    ]);
  });

  it("a missing parent reads as now with the contrib's warning; a long text is no date, at once", async () => {
    const h = await formatter({ input: "payload.at", in_tz: "UTC", format: "YYYY" });
    h.send("m", { topic: "no payload" });
    const long = await formatter({ in_tz: "UTC", format: "YYYY" });
    long.send("m", { payload: "m".repeat(100_000) });
    const [now] = await h.waitFor(1);
    expect(now!.payload).toBe(String(new Date().getUTCFullYear()));
    expect(h.errors.map((e) => e.error)).toEqual(["Input property, msg.payload.at, does NOT exist. Output has been set to NOW."]);
    const [m] = await long.waitFor(1);
    expect(m!.payload).toBe("");
    expect(long.errors.map((e) => e.error)).toEqual(["The input property was NOT a recognisable date. Output will be a blank string"]);
  });

  it("zone names that are an object's own keys (constructor, __proto__) are unknown zones, not a crash", async () => {
    const h = await formatter({ in_tz: "UTC", format: "HH:mm" });
    h.send("m", { payload: "2026-06-15 12:00", inTz: "constructor", outTz: "__proto__" });
    const [m] = await h.waitFor(1);
    expect(m!.payload).toBe("12:00");
    expect(h.errors.map((e) => e.error)).toEqual([
      "Moment: Input Timezone Invalid, reset to UTC - see http://momentjs.com/timezone/docs/#/data-loading/",
      "Moment: Output Timezone Invalid, reset to UTC - see http://momentjs.com/timezone/docs/#/data-loading/",
    ]);
  });

  it("maps node-red-contrib-moment's properties both ways; fakeUTC is absorbed", () => {
    const nr = { topic: "t", input: "payload.at", inputType: "msg", inTz: "Europe/London", adjAmount: 2, adjType: "h", adjDir: "subtract", format: "LLL", locale: "en-gb", output: "payload.text", outputType: "msg", outTz: "America/New_York" };
    const config = momentNode.configSchema.parse(momentNode.nodeRed!.fromNodeRed({ ...nr, fakeUTC: false }));
    expect(config).toMatchObject({ input: "payload.at", in_tz: "Europe/London", adj_amount: 2, adj_type: "h", adj_dir: "subtract", format: "LLL", locale: "en-gb", out_tz: "America/New_York" });
    expect(momentNode.nodeRed!.toNodeRed(config)).toEqual(nr);
    expect(momentNode.nodeRed!.absorbed).toContain("fakeUTC");
    expect(momentNode.configSchema.safeParse({ output: "__proto__.x" }).success).toBe(false);
    // What the contrib does with a unit or an input type it does not know: no adjustment; now.
    expect(momentNode.configSchema.parse(momentNode.nodeRed!.fromNodeRed({ adjAmount: 3, adjType: "fortnights", inputType: "moon" }))).toMatchObject({ adj_amount: 0, input_type: "date" });
    // The contrib editor's empty input is msg.payload.
    expect(momentNode.configSchema.parse(momentNode.nodeRed!.fromNodeRed({ input: "" }))).toMatchObject({ input: "payload", input_type: "msg" });
  });
});
