import { z } from "zod";
import { defineNode } from "../types";
import { msgOrPropertyPath } from "../property-path";

export const debugConfig = z.object({
  /** "payload", another msg property path, or "msg" for the complete message. */
  property: msgOrPropertyPath.default("payload"),
  active: z.boolean().default(true),
  to_sidebar: z.boolean().default(true),
  to_console: z.boolean().default(false),
  /** Show a message counter as the node's status. */
  to_status: z.boolean().default(false),
});

export const debugNode = defineNode({
  type: "debug",
  version: 1,
  category: "output",
  name: "Debug",
  description: "Shows messages in the debug stream (the WebSocket `debug` topic) and optionally counts them in its status.",
  inputs: 1,
  outputs: 0,
  configSchema: debugConfig,
  nodeRed: {
    type: "debug",
    toNodeRed: (c) => ({
      active: c.active,
      tosidebar: c.to_sidebar,
      console: c.to_console,
      tostatus: c.to_status,
      complete: c.property === "msg" ? "true" : c.property,
      targetType: c.property === "msg" ? "full" : "msg",
      statusVal: "",
      statusType: "auto",
    }),
    fromNodeRed: (p) => ({
      // Node-RED's "false" (every example flow's debug node) means msg.payload, as its 21-debug.js reads it.
      property: p.complete === "true" || p.complete === true || p.targetType === "full" ? "msg" : p.complete === "false" || p.complete === false || !p.complete ? "payload" : String(p.complete),
      active: p.active !== false,
      to_sidebar: p.tosidebar !== false,
      to_console: Boolean(p.console),
      to_status: Boolean(p.tostatus),
    }),
  },
});
