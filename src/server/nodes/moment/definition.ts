import { z } from "zod";
import { defineNode } from "../types";
import { checkOperand, operandTypeSchema } from "../../runtime/operands";

/** moment's units an adjustment may name (node-red-contrib-moment's list). */
export const ADJUST_UNITS = ["years", "y", "quarters", "Q", "months", "M", "weeks", "w", "days", "d", "hours", "h", "minutes", "m", "seconds", "s", "milliseconds", "ms"] as const;

const zone = (title: string, description: string) => z.string().trim().max(64).default("").meta({ title, description });

export const momentConfig = z
  .object({
    topic: z.string().max(1024).default("").meta({ title: "Topic", description: "Sets msg.topic when not empty" }),
    input: z.string().max(1024).default("payload").meta({ title: "Input from", description: "Where the date/time comes from (the date type: now)" }),
    input_type: operandTypeSchema(["msg", "flow", "global", "date", "str"] as const, "Input type").default("msg"),
    in_tz: zone("Input timezone", "An IANA zone such as Europe/London the input is read in; empty: UTC (msg.inTz overrides)"),
    adj_amount: z.number().finite().default(0).meta({ title: "Adjustment", description: "How much to add or subtract; 0: none" }),
    adj_type: z.enum(ADJUST_UNITS).default("days").meta({ title: "Adjustment unit" }),
    adj_dir: z.enum(["add", "subtract"]).default("add").meta({ title: "Adjustment direction" }),
    format: z.string().max(256).default("").meta({ title: "Output format", description: "A moment.js format (LLL, YYYY-MM-DD HH:mm); empty or ISO: ISO 8601; fromNow, calendar, date, object" }),
    locale: z.string().trim().max(32).default("").meta({ title: "Locale", description: "A moment.js locale such as en-gb or fr; empty: en" }),
    output: z.string().max(256).default("payload").meta({ title: "Output to", description: "The message property, or flow or global context key, that gets the result" }),
    output_type: operandTypeSchema(["msg", "flow", "global"] as const, "Output type").default("msg"),
    out_tz: zone("Output timezone", "The zone the output is shown in; empty: the input timezone (msg.outTz overrides)"),
  })
  .superRefine((c, ctx) => {
    if (c.input !== "" && c.input_type !== "date" && c.input_type !== "str") checkOperand(ctx, ["input"], c.input, c.input_type);
    checkOperand(ctx, ["output"], c.output, c.output_type);
  });
export type MomentConfig = z.infer<typeof momentConfig>;

const HELP = `Formats a date and time (node-red-contrib-moment's *Date/Time Formatter*), timezone, daylight saving and locale aware, with [Moment.js](https://momentjs.com/docs/#/displaying/format/).

### Inputs

- The date/time is read from the *Input from* property: a message property (by default
  \`msg.payload\`), a flow or global context key, a fixed text, or the *date* type: now. It may be a JavaScript date, a number of
  milliseconds since 1970, or a text in almost any format (\`2026-12-02 14:30\`, \`02/12/2026\`,
  \`Dec 2 2026 2:30 PM\`); \`today\`, \`yesterday\` and \`tomorrow\` are understood too. A text
  with \`/\` is read day first (\`02/12/2026\` is 2 December), month first when the node's input
  timezone is in America (\`America/Chicago\`). A text no format fits is read by JavaScript's
  \`Date\`, as Node-RED's node does. A property whose parent is missing (\`msg.payload.at\` of a
  message without \`payload\`) reads as now, with a warning.
- \`inTz\` (string, optional): the input timezone, instead of the node's.
- \`outTz\` (string, optional): the output timezone, instead of the node's.

### Outputs

- The formatted date/time in the *Output to* property (by default \`msg.payload\`), or in flow or
  global context; \`msg.topic\` is the node's *Topic* when it has one.
- \`settings\` (object): what was used: \`{input, input_format, input_tz, output_format,
  output_locale, output_tz}\`.

### Details

*Output format* is a Moment.js format (\`YYYY-MM-DD HH:mm:ss\`, \`LLL\` for the locale's long form,
\`dddd\` for the day's name; moment-timezone's \`z\` and \`Z\` too), or one of (case ignored):

- empty, \`ISO8601\` or \`ISO\`: ISO 8601 in UTC, e.g. \`2026-12-02T14:30:00.000Z\`;
- \`fromNow\` or \`timeAgo\`: the time from now in words (\`in 2 hours\`, \`5 minutes ago\`);
- \`calendar\` or \`aroundNow\`: relative to today (\`Today at 2:30 PM\`), further away \`YYYY-MM-DD\`;
- \`date\` or \`jsDate\`: a JavaScript date;
- \`object\`: \`{years, months, date, hours, minutes, seconds, milliseconds}\`.

*Adjustment* adds or subtracts an amount of a unit (days, hours, \`M\` for months, …) first.
An input that is not a date/time gives an empty text, with a warning.

### Differences from Node-RED

- With no timezone set, input and output are UTC, not the Node-RED server's own zone (a hosted
  flow's server is not where its people are): set the zones you mean, e.g. \`Europe/Berlin\`. With
  no locale, the locale is \`en\`, not the server's.
- \`msg.inTz\` and \`msg.outTz\` apply to their own message; in Node-RED a message's zone stays
  the node's for the messages after it.
- A text read with no input timezone set works (as UTC); Node-RED's node fails on it
  (\`node.inTz.split is not a function\`).
- A text over 256 characters is not read as a date (a warning, and an empty text out): reading a
  long text costs its length squared, and the server is shared.
`;

export const momentNode = defineNode({
  type: "moment",
  version: 1,
  category: "function",
  name: "Date/Time Formatter",
  description: "Formats a date and time with Moment.js: timezones, daylight saving, locales, relative times (node-red-contrib-moment).",
  help: HELP,
  inputs: 1,
  outputs: 1,
  configSchema: momentConfig,
  nodeRed: {
    type: "moment",
    // node-red-contrib-moment reads fakeUTC but uses it nowhere.
    absorbed: ["fakeUTC"],
    toNodeRed: (c: MomentConfig) => ({
      topic: c.topic,
      input: c.input,
      inputType: c.input_type,
      inTz: c.in_tz,
      adjAmount: c.adj_amount,
      adjType: c.adj_type,
      adjDir: c.adj_dir,
      format: c.format,
      locale: c.locale,
      output: c.output,
      outputType: c.output_type,
      outTz: c.out_tz,
    }),
    fromNodeRed: (p) => ({
      topic: typeof p.topic === "string" ? p.topic : "",
      input: typeof p.input === "string" && p.input !== "" ? p.input : "payload",
      // The contrib takes now (with a warning) for a type it does not know.
      input_type: ["msg", "flow", "global", "date", "str"].includes(String(p.inputType ?? "msg")) ? (p.inputType ?? "msg") : "date",
      in_tz: typeof p.inTz === "string" ? p.inTz : "",
      // The contrib makes no adjustment with a unit it does not know.
      adj_amount: (ADJUST_UNITS as readonly string[]).includes(String(p.adjType ?? "days")) ? Number(p.adjAmount) || 0 : 0,
      adj_type: (ADJUST_UNITS as readonly string[]).includes(String(p.adjType)) ? p.adjType : "days",
      adj_dir: p.adjDir === "subtract" ? "subtract" : "add",
      format: typeof p.format === "string" ? p.format : "",
      locale: typeof p.locale === "string" ? p.locale : "",
      output: typeof p.output === "string" && p.output !== "" ? p.output : "payload",
      output_type: ["msg", "flow", "global"].includes(String(p.outputType)) ? p.outputType : "msg",
      out_tz: typeof p.outTz === "string" ? p.outTz : "",
    }),
  },
});
