import type { NodeFactory } from "../../runtime/types";
import { getProperty } from "../../runtime/properties";
import type { z } from "zod";
import type { debugConfig } from "./definition";

const MAX_DEBUG_CHARS = 1000;

function formatOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `array[${value.length}]`;
  return typeof value;
}

/** Truncates like Node-RED's debug sidebar (1,000 characters of the shown value). */
function preview(value: unknown): unknown {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  if (text !== undefined && text.length > MAX_DEBUG_CHARS) return `${text.slice(0, MAX_DEBUG_CHARS)}…`;
  return value;
}

export const debugBehaviour: NodeFactory = (ctx) => {
  const c = ctx.node.config as z.infer<typeof debugConfig>;
  let count = 0;
  return {
    input(msg, _send, done) {
      if (c.active) {
        const value = getProperty(msg, c.property);
        if (c.to_sidebar) ctx.debug({ property: c.property, msg: preview(value), format: formatOf(value), ...(typeof msg.topic === "string" && msg.topic ? { topic: msg.topic.slice(0, 200) } : {}) });
        if (c.to_status) {
          count++;
          ctx.status({ fill: "grey", shape: "dot", text: String(count) });
        }
      }
      done();
    },
  };
};
