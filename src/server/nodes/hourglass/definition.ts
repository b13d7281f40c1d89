import { z } from "zod";
import { defineNode } from "../types";

/** Where a stopwatch keeps its state among the organization's files, as node-red-contrib-hourglass keeps it in the userDir. */
export const HOURGLASS_DIR = "hourglass";

export const hourglassConfig = z.object({
  persistId: z
    .string()
    .trim()
    .max(100)
    .regex(/^[A-Za-z0-9._-]*$/, "letters, digits, '.', '_' and '-' only")
    .default("")
    .meta({ title: "Unique ID for persisting", description: "The name its state is kept under (hourglass/<id> among the organization's files); empty: the node's id" }),
  humanizeLocale: z
    .string()
    .trim()
    .max(16)
    .regex(/^[a-z]{0,3}(-[a-z0-9]{2,8})*$/, "a Moment.js locale such as de, fr or en-gb; empty: English")
    .default("")
    .meta({ title: "Locale for humanized time", description: "The language of elapsed.human and the status, e.g. de or fr (Moment.js locales); empty: English" }),
});
export type HourglassConfig = z.infer<typeof hourglassConfig>;

export const hourglassNode = defineNode({
  type: "hourglass",
  version: 1,
  category: "function",
  name: "Hourglass",
  description: "A stopwatch: start, stop, reset and read the time elapsed, with alarms (node-red-contrib-hourglass).",
  help: `A stopwatch that measures the time between start and stop, paused and resumed as often as needed, with alarms: node-red-contrib-hourglass's *hourglass* node.

### Inputs

- \`command\` (string): \`start\` (or \`resume\`), \`stop\` (or \`pause\`), \`toggle\`, \`reset\` (back to zero, still running if it was), \`status\` (send the time now), \`alarm\`, \`remove-alarms\`. Any other is the node's error \`Unknown command: …\`.
- \`status\` (boolean): with any command, also send the time after it (the "extended" mode).
- \`payload\`: with \`alarm\`, when the alarm rings: a duration Moment.js reads, such as \`"00:30:00"\`, \`"PT1H"\` or a number of ms.
- \`recurrent\` (boolean), \`period\`: with \`alarm\`, ring again every \`period\` (the alarm's duration by default).

### Outputs

The input message (for \`status\`, or any command with \`msg.status\`), or an alarm's message when it rings, with:

- \`started\` (boolean): whether the stopwatch runs.
- \`elapsed.millis\` (number), \`elapsed.human\` (string, e.g. "5 minutes", in the node's locale), and \`elapsed.time\` (\`days\`, \`hours\`, \`minutes\`, \`seconds\`, \`milliseconds\`).

### Details

The status shows the time elapsed (updated every minute while running): green while no alarm is due, yellow when some are, red when all are; grey when stopped.

The running state and the time measured are kept, as node-red-contrib-hourglass keeps them in Node-RED's user directory: here in \`hourglass/<id>\` among the organization's files, so they survive a restart, a redeploy and a move to another instance. Alarms are not kept (nor are they there).

### Differences from Node-RED

- The state is one of the organization's files (it counts toward the file quota, and the Files page shows it); without access to the files it is kept in memory only.
- A command ends the message's step as node-red-contrib-hourglass leaves it, without a complete node hearing of it.`,
  inputs: 1,
  outputs: 1,
  configSchema: hourglassConfig,
  nodeRed: {
    type: "hourglass",
    toNodeRed: (c) => ({ persistId: c.persistId, humanizeLocale: c.humanizeLocale }),
    fromNodeRed: (p) => ({ persistId: typeof p.persistId === "string" ? p.persistId : "", humanizeLocale: typeof p.humanizeLocale === "string" ? p.humanizeLocale : "" }),
  },
});
