import { defineBehaviour } from "../types";
import yaml from "js-yaml";
import Mustache from "mustache";
import type { NodeContext } from "../../runtime/types";
import { envValue, getContextValue, setTarget } from "../../runtime/operands";
import { templateNode } from "./definition";
import { renderBounded } from "../../runtime/bounded-mustache";

/** Names used in a template ({{a}}, {{#a}}...{{/a}}), sections included. */
function tokenNames(tokens: Mustache.TemplateSpans, names = new Set<string>()): Set<string> {
  for (const token of tokens) {
    if (token[0] === "text") continue;
    names.add(token[1]);
    if (token.length > 4 && Array.isArray(token[4])) tokenNames(token[4] as Mustache.TemplateSpans, names);
  }
  return names;
}

/** Node-RED's {{flow.x}}, {{flow[store].x}}, {{global.x}} and {{env.X}} names. */
const CONTEXT_NAME = /^(flow|global)(\[(\w+)\])?\.(.+)/;
const ENV_NAME = /^env\.(.+)/;

/** JSON output: string values are escaped so that they stay inside a JSON string (Node-RED). */
const escapeForJson = (value: string) =>
  value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\t/g, "\\t").replace(/\r/g, "\\r").replace(/\f/g, "\\f").replace(/[\b]/g, "\\b");

/** Mustache's view: the message first, then variables and context (resolved before rendering), else "". */
class TemplateContext extends Mustache.Context {
  constructor(
    view: unknown,
    private readonly resolved: Map<string, unknown>,
    private readonly escapeStrings: boolean,
    parent?: Mustache.Context,
  ) {
    super(view, parent);
  }
  override lookup(name: string): unknown {
    const value: unknown = super.lookup(name);
    if (value !== undefined) return this.escapeStrings && typeof value === "string" ? escapeForJson(value) : value;
    if (this.resolved.has(name)) return this.resolved.get(name);
    return "";
  }
  override push(view: unknown): Mustache.Context {
    return new TemplateContext(view, this.resolved, false, this);
  }
}

function resolveNames(ctx: NodeContext, template: string): Map<string, unknown> {
  const resolved = new Map<string, unknown>();
  for (const name of tokenNames(Mustache.parse(template))) {
    const env = ENV_NAME.exec(name);
    if (env) {
      resolved.set(name, envValue(ctx, env[1]!));
      continue;
    }
    const context = CONTEXT_NAME.exec(name);
    if (context) resolved.set(name, getContextValue(ctx, context[1] as "flow" | "global", context[4]!));
  }
  return resolved;
}

/** Node-RED 4.1's template: mustache (or plain) text, optionally parsed as JSON or YAML, to a message property or context. */
export const templateBehaviour = defineBehaviour(templateNode, (ctx, c) => {
  // Parsed again so that a config saved before field_type and format existed reads with their defaults.
  if (c.syntax === "mustache") Mustache.parse(c.template);
  return {
    input(msg, send, done) {
      try {
        // The message's own template is used when the node has none (Node-RED).
        const template = c.template === "" && typeof msg.template === "string" ? msg.template : c.template;
        let text = template;
        if (c.syntax === "mustache") {
          const view = new TemplateContext(msg, resolveNames(ctx, template), c.output === "json");
          // Bounded by output size and time: nested sections over a message's arrays multiply.
          text = renderBounded(template, view);
        }
        const value = c.output === "json" ? JSON.parse(text) : c.output === "yaml" ? yaml.load(text) : text;
        setTarget(ctx, { path: c.field, type: c.field_type }, msg, value);
        send(msg);
        done();
      } catch (err) {
        done(err instanceof Error ? err.message : err);
      }
    },
  };
});
