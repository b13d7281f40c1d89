import { defineBehaviour } from "../types";
import { inspect } from "node:util";
import type { Message, NodeStatus } from "../../runtime/types";
import { getProperty } from "../../runtime/properties";
import { debugNode } from "./definition";
import { compileJsonata, nodeJsonataBindings } from "../../runtime/jsonata";
import { boundedJson } from "../../runtime/bounded-json";

const MAX_DEBUG_CHARS = 1000;
/** Node-RED's debugStatusLength. */
const MAX_STATUS_CHARS = 32;
const FILLS = new Set<NodeStatus["fill"]>(["red", "green", "yellow", "blue", "grey"]);
const own = (o: unknown, key: string) => o !== null && typeof o === "object" && Object.prototype.hasOwnProperty.call(o, key);

/** Node-RED's debug formats: "buffer[3]" for a Buffer (shown as its bytes), "array[4]", the type. */
function formatOf(value: unknown): string {
  if (value === null) return "null";
  if (Buffer.isBuffer(value)) return `buffer[${value.length}]`;
  if (Array.isArray(value)) return `array[${value.length}]`;
  return typeof value;
}

/**
 * Truncates like Node-RED's debug sidebar (1,000 characters of the shown value, then "…"). The JSON
 * text comes from the bounded serializer: a value repeating one object is cut after 1,000
 * characters' worth of work, however large it would expand to.
 */
function preview(value: unknown): unknown {
  if (typeof value === "string") return value.length > MAX_DEBUG_CHARS ? `${value.slice(0, MAX_DEBUG_CHARS)}…` : value;
  let json: ReturnType<typeof boundedJson>;
  try {
    json = boundedJson(value, { maxChars: MAX_DEBUG_CHARS });
  } catch (err) {
    // A cycle or a BigInt: what JSON cannot show is named instead.
    return `[not shown: ${err instanceof Error ? err.message : String(err)}]`;
  }
  return json.truncated ? `${json.text}…` : value;
}

const fillOf = (v: unknown, fallback: NodeStatus["fill"]): NodeStatus["fill"] => (FILLS.has(v as NodeStatus["fill"]) ? (v as NodeStatus["fill"]) : fallback);
const shapeOf = (v: unknown, fallback: NodeStatus["shape"]): NodeStatus["shape"] => (v === "dot" || v === "ring" ? v : fallback);

/**
 * Node-RED's debug node (21-debug.js): shows a property or the complete message, and optionally a
 * status (the shown value, another property, or a counter), even while inactive.
 */
export const debugBehaviour = defineBehaviour(debugNode, (ctx, c) => {
  // A snapshot deployed before a property existed lacks it: the schema's defaults fill it in.
  const statusProperty = c.status_property || c.property;
  // JSONata output and status (Node-RED's targetType / statusType "jsonata"), compiled once, run under the limits.
  const outputExpression = c.property_type === "jsonata" ? compileJsonata(c.property) : null;
  const statusExpression = c.status_type === "jsonata" ? compileJsonata(c.status_property) : null;
  const bindings = outputExpression || statusExpression ? nodeJsonataBindings(ctx) : {};
  let counter = 0;
  let lastCount = 0;
  let counterTimer: NodeJS.Timeout | undefined;
  let oldStatus = "";
  // Its configuration's, until the editor's button switches it (setActive).
  let active = c.active;

  const statusValue = (msg: Message): unknown => {
    if (c.status_type === "auto") return c.property === "msg" ? msg.payload : getProperty(msg, c.property);
    return getProperty(msg, statusProperty);
  };

  const showStatus = (msg: Message, computed?: { value: unknown }) => {
    if (c.status_type === "counter") {
      // Node-RED updates the count at most every 100 ms under load, and once more 200 ms after the last.
      const now = Date.now();
      const quiet = now - lastCount > 100;
      lastCount = now;
      counter++;
      if (counterTimer) clearTimeout(counterTimer);
      counterTimer = undefined;
      if (quiet) ctx.status({ fill: "blue", shape: "ring", text: String(counter) });
      else counterTimer = setTimeout(() => ctx.status({ fill: "blue", shape: "ring", text: String(counter) }), 200);
      return;
    }
    const output = computed ? computed.value : statusValue(msg);
    let text = typeof output === "string" ? output : inspect(output);
    let fill: NodeStatus["fill"] = "grey";
    let shape: NodeStatus["shape"] = "dot";
    if (output !== null && typeof output === "object" && "fill" in output && "shape" in output && "text" in output && output.fill && output.shape && output.text) {
      fill = fillOf(output.fill, "grey");
      shape = shapeOf(output.shape, "dot");
      text = String(output.text);
    }
    if (c.status_type === "auto") {
      if (own(msg, "error")) {
        fill = "red";
        text = String((msg.error as { message?: unknown } | null)?.message ?? "");
      }
      if (own(msg, "status")) {
        const s = (msg.status ?? {}) as Record<string, unknown>;
        fill = fillOf(s.fill, "grey");
        shape = shapeOf(s.shape, "ring");
        text = typeof s.text === "string" ? s.text : s.text ? String(s.text) : "";
      }
    }
    if (text.length > MAX_STATUS_CHARS) text = `${text.slice(0, MAX_STATUS_CHARS)}...`;
    const status = { fill, shape, text };
    const key = JSON.stringify(status);
    if (key !== oldStatus) {
      oldStatus = key;
      ctx.status(status);
    }
  };

  return {
    start() {
      if (c.to_status && c.status_type === "counter") ctx.status({ fill: "blue", shape: "ring", text: "0" });
    },
    input(msg, _send, done) {
      // A status this node reported, brought back by a status node: ignored, so the two cannot loop.
      const status = msg.status as { source?: { id?: unknown } } | undefined;
      if (own(msg, "status") && own(status, "source") && own(status!.source, "id") && status!.source!.id === ctx.node.id) {
        done();
        return;
      }
      const show = (value: unknown) => {
        if (active && c.to_sidebar) {
          // Node-RED sends no property for a JSONata output (its sidebar labels it "msg"): "" here.
          ctx.debug({ property: outputExpression ? "" : c.property, msg: preview(value), format: formatOf(value), ...(typeof msg.topic === "string" && msg.topic ? { topic: msg.topic.slice(0, 200) } : {}) });
        }
      };
      if (!outputExpression && !statusExpression) {
        if (c.to_status) showStatus(msg);
        show(getProperty(msg, c.property));
        done();
        return;
      }
      // As Node-RED: the expressions are evaluated, then the status and the output are shown; an
      // expression's error is the node's error.
      void (async () => {
        try {
          const output = outputExpression ? await outputExpression.evaluate(msg, bindings) : getProperty(msg, c.property);
          if (c.to_status) {
            if (statusExpression) showStatus(msg, { value: await statusExpression.evaluate(msg, bindings) });
            else if (c.status_type === "auto" && outputExpression) showStatus(msg, { value: output });
            else showStatus(msg);
          }
          show(output);
          done();
        } catch (err) {
          done(err);
        }
      })();
    },
    close() {
      if (counterTimer) clearTimeout(counterTimer);
    },
    setActive(on) {
      active = on;
    },
  };
});
