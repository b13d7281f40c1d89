import { z } from "zod";
import { defineNode } from "../types";

/** Where a stopwatch keeps its state among the organization's files, as node-red-contrib-hourglass keeps it in the userDir. */
export const HOURGLASS_DIR = "hourglass";
/** Alarms one stopwatch may hold (each keeps its message and a timer). */
export const MAX_ALARMS = 100;
/** The shortest period of a recurrent alarm (inject's shortest repeat). */
export const MIN_ALARM_PERIOD_MS = 100;

const PERSIST_ID = /^(?!\.{1,2}$)[A-Za-z0-9._-]{0,100}$/;
/** An imported persisting id the files cannot name (spaces, slashes): its other characters become "_". */
const persistIdFrom = (value: unknown) => {
  const text = typeof value === "string" ? value.trim() : "";
  if (PERSIST_ID.test(text)) return text;
  const safe = text.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 100);
  return PERSIST_ID.test(safe) ? safe : "";
};

export const hourglassConfig = z.object({
  persistId: z
    .string()
    .trim()
    .max(100)
    .regex(PERSIST_ID, "letters, digits, '.', '_' and '-' only (not . or .. alone)")
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

- The state is one of the organization's files (it counts toward the file quota, and the Files page shows it; it stays when the node is deleted, as the contrib's file does); without access to the files it is kept in memory only. A state that cannot be written (past the quota) is the command's error, which catch nodes get; one that cannot be read makes the node refuse commands rather than count from zero over it.
- The persisting id is letters, digits, \`.\`, \`_\` and \`-\`; an imported one with other characters has them replaced by \`_\` (the import says so). Inside a subflow the node's id is stable here, so no id is needed there.
- Bounds for the shared runtime: at most ${MAX_ALARMS} alarms per stopwatch, a recurrent alarm's period at least ${MIN_ALARM_PERIOD_MS} ms, a duration Moment.js cannot read is the node's error (the contrib keeps such an alarm, which never rings), an alarm that rings while the flow is busy is skipped, and the "Alarm in …" status changes at most once a second.
- A command ends the message's step as node-red-contrib-hourglass leaves it, without a complete node hearing of it.`,
  inputs: 1,
  outputs: 1,
  configSchema: hourglassConfig,
  nodeRed: {
    type: "hourglass",
    toNodeRed: (c) => ({ persistId: c.persistId, humanizeLocale: c.humanizeLocale }),
    fromNodeRed: (p) => ({ persistId: persistIdFrom(p.persistId), humanizeLocale: typeof p.humanizeLocale === "string" ? p.humanizeLocale : "" }),
    importNotes: (p) => {
      const given = typeof p.persistId === "string" ? p.persistId.trim() : "";
      return given !== "" && persistIdFrom(given) !== given ? [`its persisting id "${given}" is "${persistIdFrom(given)}" here (a file's name)`] : [];
    },
  },
});
