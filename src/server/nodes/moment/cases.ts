/**
 * node-red-contrib-moment 4.0.0's Date/Time Formatter, run by Node-RED 5.0 (bench/node-red-5 holds
 * the package), against ours. Inputs are fixed dates (no "now", no fromNow), and every case names
 * its input timezone where the input is a text: the contrib's node fails on a text without one
 * (`node.inTz.split is not a function`). A case without any zone reads the recording server's own
 * zone in Node-RED (UTC on the machines that record) and UTC here.
 */
import type { DiffCase } from "@/test/node-red-diff/types";

const formatter = (props: Record<string, unknown>) => ({
  id: "m",
  type: "moment",
  name: "",
  topic: "",
  input: "payload",
  inputType: "msg",
  inTz: "",
  adjAmount: 0,
  adjType: "days",
  adjDir: "add",
  format: "",
  locale: "en",
  output: "payload",
  outputType: "msg",
  outTz: "",
  wires: [["out"]],
  ...props,
});

const DEC_2 = Date.UTC(2026, 11, 2, 14, 30, 15, 250);

export const cases: DiffCase[] = [
  {
    name: "an ISO text read in London, shown in New York with a format",
    nodes: [formatter({ inTz: "Europe/London", outTz: "America/New_York", format: "YYYY-MM-DD HH:mm:ss Z z" })],
    send: [{ msg: { payload: "2026-07-01T09:15:00" } }, { msg: { payload: "2026-12-02T09:15:00.123456Z" } }],
    expect: 2,
  },
  {
    name: "milliseconds, no format: ISO 8601 in UTC; no zone is the server's (UTC where recorded) and UTC here",
    nodes: [formatter({})],
    send: [{ msg: { payload: DEC_2 } }],
    expect: 1,
    ignore: ["settings.input_tz", "settings.output_tz"],
    ignoreWhy: "with no zone set Node-RED's node names the server's (moment.tz.guess(): Africa/Abidjan on a UTC machine) and ours UTC (the moment node's help): the same instant, another name",
  },
  {
    name: "a text with slashes is day first in Europe",
    nodes: [formatter({ inTz: "Europe/Berlin", format: "YYYY-MM-DD HH:mm" })],
    send: [{ msg: { payload: "02/12/2026 14:30" } }],
    expect: 1,
  },
  {
    name: "America reads month first",
    nodes: [formatter({ inTz: "America/Chicago", format: "YYYY-MM-DD HH:mm" })],
    send: [{ msg: { payload: "02/12/2026 14:30" } }, { msg: { payload: "12.02.2026 08:00" } }],
    expect: 2,
  },
  {
    name: "a locale's long format and day names, in Paris",
    nodes: [formatter({ inTz: "UTC", outTz: "Europe/Paris", locale: "fr", format: "dddd D MMMM YYYY LT" })],
    send: [{ msg: { payload: DEC_2 } }],
    expect: 1,
  },
  {
    name: "an adjustment of 3 days added",
    nodes: [formatter({ inTz: "UTC", adjAmount: 3, adjType: "days", format: "YYYY-MM-DD HH:mm" })],
    send: [{ msg: { payload: "2026-01-31 12:00" } }],
    expect: 1,
  },
  {
    name: "an adjustment of 2 hours subtracted",
    nodes: [formatter({ inTz: "UTC", adjAmount: 2, adjType: "hours", adjDir: "subtract", format: "YYYY-MM-DD HH:mm" })],
    send: [{ msg: { payload: "2026-01-31 01:00" } }],
    expect: 1,
  },
  {
    name: "an adjustment of a month (M) from the 31st",
    nodes: [formatter({ inTz: "UTC", adjAmount: 1, adjType: "M", format: "YYYY-MM-DD" })],
    send: [{ msg: { payload: "2026-01-31 12:00" } }],
    expect: 1,
  },
  {
    name: "the object format, into another property, with the node's topic",
    nodes: [formatter({ inTz: "Asia/Tokyo", format: "object", output: "when", topic: "clock" })],
    send: [{ msg: { payload: "2026-03-29 01:30", topic: "in" } }],
    expect: 1,
  },
  {
    name: "msg.inTz and msg.outTz override the node's zones",
    nodes: [formatter({ inTz: "UTC", format: "YYYY-MM-DD HH:mm Z" })],
    send: [{ msg: { payload: "2026-06-15 12:00", inTz: "Australia/Sydney", outTz: "Asia/Kolkata" } }],
    expect: 1,
  },
  {
    name: "a blueprint's time of day from milliseconds in a nested property (FlowFuse's Manufacturing Support Request)",
    nodes: [formatter({ input: "payload.requested", inTz: "Africa/Abidjan", outTz: "Africa/Abidjan", locale: "en-US", format: "HH:mm:ss", output: "payload.requested" })],
    send: [{ msg: { payload: { requested: DEC_2, line: 3 } } }],
    expect: 1,
  },
  {
    name: "a text that is no date gives an empty text",
    nodes: [formatter({ inTz: "UTC", format: "YYYY" })],
    send: [{ msg: { payload: "not a date at all" } }],
    expect: 1,
  },
  {
    name: "a fixed text input, and an invalid zone falls back to UTC",
    nodes: [formatter({ input: " 2026-05-04 10:20 ", inputType: "str", inTz: "Mars/Olympus", format: "YYYY-MM-DDTHH:mm Z" })],
    send: [{ msg: { payload: "ignored" } }],
    expect: 1,
  },
];
