import { z } from "zod";
import { defineNode } from "../types";
import { jsonataProblem } from "../../runtime/jsonata";
import { isPropertyPath } from "../../runtime/properties";

const statusPath = z
  .string()
  .max(65536)
  .default("")
  .meta({
    title: "Status property",
    description: "With Status shows = msg: the message property shown in the status (empty: the output property); with JSONata: the expression whose result is shown",
  });

export const debugConfig = z
  .object({
    property: z.string().max(65536).default("payload").meta({
      title: "Output",
      description: "The message property shown (payload, or a path such as payload.temperature), msg for the complete message, or a JSONata expression",
    }),
    property_type: z.enum(["msg", "jsonata"]).default("msg").meta({ title: "Output type", description: "msg: a message property; JSONata: an expression over the message" }),
    active: z.boolean().default(true).meta({ title: "Active", description: "Off: the node shows nothing (its status still updates)" }),
    to_sidebar: z.boolean().default(true).meta({ title: "To the debug sidebar", description: "Publish what it shows to the editor's Debug tab and the WebSocket debug topic" }),
    to_console: z.boolean().default(false).meta({
      title: "To the system console",
      description: "Kept for Node-RED flows; a shared runtime has no console of yours, so this writes nothing",
    }),
    to_status: z.boolean().default(false).meta({ title: "To the node status", description: "Show a short (32 characters) status under the node" }),
    status_type: z.enum(["auto", "msg", "counter", "jsonata"]).default("auto").meta({
      title: "Status shows",
      description: "auto: the shown output (msg.status and msg.error as Node-RED does); msg: another message property; counter: how many messages arrived; jsonata: an expression's result",
    }),
    status_property: statusPath,
  })
  .superRefine((c, issue) => {
    if (c.property_type === "jsonata") {
      const problem = jsonataProblem(c.property);
      if (problem) issue.addIssue({ code: "custom", path: ["property"], message: problem });
    } else if (c.property !== "msg" && !isPropertyPath(c.property)) {
      issue.addIssue({ code: "custom", path: ["property"], message: "must be msg or a property path such as payload.value (no __proto__, constructor or prototype)" });
    }
    if (c.status_type === "jsonata") {
      const problem = jsonataProblem(c.status_property);
      if (problem) issue.addIssue({ code: "custom", path: ["status_property"], message: problem });
    } else if (c.status_property !== "" && !isPropertyPath(c.status_property)) {
      issue.addIssue({ code: "custom", path: ["status_property"], message: "must be empty or a property path such as payload.value (no __proto__, constructor or prototype)" });
    }
  });

const FULL = new Set<unknown>([true, "true"]);

export const debugNode = defineNode({
  type: "debug",
  version: 1,
  category: "output",
  name: "Debug",
  description: "Shows messages in the debug stream (the WebSocket `debug` topic) and optionally in its status.",
  help: `Shows a message property, or the complete message, in the editor's **Debug** tab (and to every client of the WebSocket \`debug\` topic). By default it shows \`msg.payload\`.

### Inputs

- \`payload\` (any): what is shown by default.
- \`status\` (object): with the status set to *auto*, \`{fill, shape, text}\` shown as the node's status.
- \`error\` (object): with the status set to *auto*, its \`message\` is shown in red.

### Outputs

None: the node ends a flow.

### Details

*Output* picks what is shown: a property path such as \`payload.temperature\`, \`msg\` for the complete message, or (output type *JSONata*) the result of a JSONata expression over the message, such as \`"<" & payload & ">"\`. The status can show an expression's result too. Expressions run under the same time and memory limits as function code; an expression's error is the node's error. Values longer than 1,000 characters are cut.

The node can also show a short text (32 characters) as its status: the shown value (*auto*), another message property, or a count of the messages it received (*counter*). The status is kept up to date even while the node is inactive.

*Active* switches what it shows on and off; an inactive debug node costs almost nothing. The button on
the node's right in the editor switches it at once, as Node-RED's does: the running node stops (or
starts) showing messages without a deploy, and the node's *Active* setting changes with it in the
editor, saved with the flow's next save or deploy. Until then a restart of the flow (a deploy that
changes the node, a restart of the server) brings back the saved setting. In a flow that runs on
devices, the button switches the node on each device that is online. The same switch is
\`POST /api/v1/nodes/{id}/active\` with \`{"active": false}\`.

*All on* and *All off* under the Debug tab's filters switch every debug node of the flow at once, as
Node-RED's "activate / deactivate all debug nodes" actions do; through the API,
\`POST /api/v1/flows/{id}/debug/active\` with \`{"active": false}\` (and \`node_ids\` for some of them).

A message carrying a status this very node reported (from a status node watching it) is ignored, so the two cannot loop.

### Differences from Node-RED

- *To the system console* is accepted (and kept on export) but writes nothing: a shared runtime has no console that belongs to you. Use the debug sidebar.
`,
  inputs: 1,
  outputs: 0,
  configSchema: debugConfig,
  // Its button: on and off while it runs (POST /nodes/{id}/active).
  roles: { switchable: true },
  nodeRed: {
    type: "debug",
    toNodeRed: (c) => ({
      active: c.active,
      tosidebar: c.to_sidebar,
      console: c.to_console,
      tostatus: c.to_status,
      complete: c.property_type === "msg" && c.property === "msg" ? "true" : c.property,
      targetType: c.property_type === "jsonata" ? "jsonata" : c.property === "msg" ? "full" : "msg",
      statusVal: c.status_property,
      statusType: c.status_type,
    }),
    fromNodeRed: (p) => {
      // Node-RED's default `complete: "false"` (and an empty one) means msg.payload.
      const complete = p.complete === undefined || p.complete === null || p.complete === false || p.complete === "false" || p.complete === "" ? "payload" : p.complete;
      const statusType = p.statusType;
      return {
        property: p.targetType === "jsonata" ? String(complete) : FULL.has(complete) || p.targetType === "full" ? "msg" : String(complete),
        property_type: p.targetType === "jsonata" ? "jsonata" : "msg",
        active: p.active !== false && p.active !== "false",
        to_sidebar: p.tosidebar !== false && p.tosidebar !== "false",
        to_console: p.console === true || p.console === "true",
        to_status: p.tostatus === true || p.tostatus === "true",
        status_type: statusType === undefined || statusType === "" ? "auto" : statusType,
        // Node-RED reads statusVal only for msg and JSONata: its editor fills it with the output
        // (a property or, for a JSONata output, the expression) under auto, where it is unused.
        status_property: typeof p.statusVal === "string" && (statusType === "msg" || statusType === "jsonata") ? p.statusVal : "",
      };
    },
  },
});
