/**
 * What the dashboard node folders (`ui-*`, SPEC §21) share: Dashboard 2.0's common properties, the
 * mapping to and from its flows.json (the same property names, values coerced as its editor
 * stores them), and the widgets' behaviour as Dashboard 2.0's `ui-base` runs them
 * (`nodes/config/ui_base.js`): dynamic properties (`enabled`, `visible`, `class`, `ui_update`),
 * the topic, the last message kept, passthru, and what a viewer's change or action sends.
 */
import { z } from "zod";
import { configNodeRef } from "../../shared/config-nodes";
import { DASHBOARD_DYNAMIC_KEYS, DASHBOARD_LIMITS, dashboardClientSchema, type DashboardWidgetState } from "../../shared/dashboard";
import type { DashboardClientRef, DashboardInput, Message, NodeBehaviour, NodeContext, Send } from "../runtime/types";
import { checkOperand, evaluateOperand, prepareOperand } from "../runtime/operands";
import { inOrder } from "../runtime/in-order";
import { getProperty } from "../runtime/properties";
import type { OperandType } from "../../shared/operand-types";
import type { NodeRedProps } from "./types";

// ---- properties ----

export const groupRef = configNodeRef("ui-group", { title: "Group", description: "The dashboard group (and so the page) the widget is shown in" });
export const uiRef = configNodeRef("ui-base", { title: "Dashboard", description: "The dashboard (ui-base) this node acts on" });
/**
 * The largest order a widget, group, page or link takes: Dashboard 2.0 keeps any number, and its
 * flows write Number.MAX_SAFE_INTEGER for "last" (a surveyed chart). Refused, it had been put first.
 */
export const MAX_ORDER = Number.MAX_SAFE_INTEGER;
export const order = z.number().int().min(-1).max(MAX_ORDER).default(0).meta({ title: "Order", description: "Position in its group (smallest first)" });
export const width = (d = 0) => z.number().int().min(0).max(12).default(d).meta({ title: "Width", description: "Columns of the group's grid; 0: the group's width" });
export const height = (d = 0) => z.number().int().min(0).max(64).default(d).meta({ title: "Height", description: "Rows; 0: as the widget needs" });
export const label = (d: string) => z.string().max(1000).default(d).meta({ title: "Label" });
export const className = z.string().max(500).default("").meta({ title: "Class", description: "CSS classes added to the widget" });
/** A CSS colour property: the editor shows a colour picker beside its text (JSON Schema `format: "color"`). */
export const cssColor = (d: string, meta: { title: string; description?: string }) => z.string().max(64).default(d).meta({ ...meta, format: "color" });
export const tooltip = z.string().max(1000).default("").meta({ title: "Tooltip" });
export const passthru = (d: boolean) =>
  z.boolean().default(d).meta({ title: "Pass messages through", description: "A message arriving on the input is also sent on to the output" });
const TOPIC_TYPES = ["msg", "str", "flow", "global", "env"] as const;
export const topic = z.string().max(1000).default("topic").meta({ title: "Topic", description: "The topic of messages sent (with Topic type msg: the property of the incoming message)" });
export const topicType = z.enum(TOPIC_TYPES).default("msg").meta({ title: "Topic type" });
export const VALUE_TYPES = ["str", "num", "bool", "json", "date", "msg", "flow", "global", "env"] as const;
export const valueType = (title: string, d: (typeof VALUE_TYPES)[number] = "str") => z.enum(VALUE_TYPES).default(d).meta({ title });
export const optionsList = z
  .array(z.object({ value: z.unknown().meta({ title: "Value" }), label: z.string().max(1000).default("").meta({ title: "Label" }), type: z.string().max(16).optional().meta({ title: "Value type" }) }))
  .max(2000)
  .default([])
  .meta({ title: "Options", description: "The choices: each a value and the label shown" });

// ---- flows.json mapping ----

type AnyZod = z.ZodType;
type Def = { type: string; innerType?: AnyZod; element?: AnyZod; shape?: Record<string, AnyZod>; options?: AnyZod[] };
const defOf = (schema: AnyZod) => (schema as unknown as { def: Def }).def;

/**
 * A value as Dashboard 2.0's editor stores it made what `schema` takes, at every depth: numbers
 * stored as text made numbers (its editor saves a gauge segment's `from` and a page breakpoint's
 * `px` and `cols` as text; its runtime reads them with `Number`), a number where an integer is
 * taken rounded, "true"/"false" made booleans, a number or boolean where text is taken made text. A
 * property that takes a number or nothing (a chart's "ymin": 0 or "") gets the number when its
 * text is one. What cannot be made to fit is returned as it is (the caller's parse refuses it).
 */
function coerceToSchema(schema: AnyZod, v: unknown): unknown {
  if (v === undefined || v === null) return v;
  const def = defOf(schema);
  if (def.innerType && ["default", "optional", "nullable", "prefault", "readonly"].includes(def.type)) return coerceToSchema(def.innerType, v);
  switch (def.type) {
    case "number":
      if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) v = Number(v);
      return typeof v === "number" && !schema.safeParse(v).success ? Math.round(v) : v;
    case "boolean":
      return v === "true" || v === "false" ? v === "true" : v;
    case "string":
      return typeof v === "number" || typeof v === "boolean" ? String(v) : v;
    case "array":
      return Array.isArray(v) && def.element ? v.map((e) => coerceToSchema(def.element!, e)) : v;
    case "object": {
      if (typeof v !== "object" || Array.isArray(v) || !def.shape) return v;
      const out: Record<string, unknown> = { ...(v as Record<string, unknown>) };
      for (const [key, field] of Object.entries(def.shape)) if (key in out) out[key] = coerceToSchema(field, out[key]);
      return out;
    }
    case "union": {
      if (schema.safeParse(v).success) return v;
      for (const option of def.options ?? []) {
        const c = coerceToSchema(option, typeof v === "string" ? v.trim() : v);
        if (c !== v && option.safeParse(c).success) return c;
      }
      return v;
    }
    default:
      return v;
  }
}

/**
 * Dashboard 2.0's properties from flows.json: the keys the schema knows, each value made what its
 * property takes (coerceToSchema). A value its property still refuses is left out (the default
 * stands) and named in `refused`, so the import can say what was not carried over.
 */
export function fromDashboardProps(shape: Record<string, AnyZod>, p: NodeRedProps, refused?: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(shape)) {
    const raw = p[key];
    if (raw === undefined || raw === null) continue;
    // A width or height of "auto" (Dashboard 2.0 writes it for a template that sizes itself): its
    // grid drops the span it makes and the widget takes what it needs, which is what 0 is here.
    if ((key === "width" || key === "height") && raw === "auto" && schema.safeParse(0).success) {
      out[key] = 0;
      continue;
    }
    const v = coerceToSchema(schema, raw);
    if (schema.safeParse(v).success) out[key] = v;
    // Empty text where the property takes none (a chart's bins "", a template's width ""): unset, as Dashboard 2.0 reads it; the default stands.
    else if (!(typeof raw === "string" && raw.trim() === "")) refused?.push(key);
  }
  return out;
}

/** The Node-RED mapping of a dashboard type: Dashboard 2.0's names, ours are the same. */
export function dashboardNodeRed(type: string, shape: Record<string, AnyZod>) {
  return {
    type,
    // A method (bivariant) taking whatever config the type has: the definition's Config is inferred from its schema alone.
    toNodeRed(c: never): NodeRedProps {
      return { ...(c as object) };
    },
    fromNodeRed: (p: NodeRedProps, refused?: string[]) => fromDashboardProps(shape, p, refused),
  };
}

// ---- behaviour ----

/** Dashboard 2.0's earlier property topics: `{ topic, payload }` sets the named dynamic property. */
const LEGACY_PROPERTY_TOPICS = new Map<string, "class">([["ui-property:class", "class"]]);

/** Message properties never kept or shown: the engine's and the viewer's identity. */
const PRIVATE_KEYS = new Set(["_msgid", "_client", "_event", "_linkSource", "req", "res"]);

/** The message as a viewer sees it and the state keeps it: JSON, without the engine's and the client's keys. */
export function viewOf(msg: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(msg)) if (!PRIVATE_KEYS.has(k) && v !== undefined && typeof v !== "function") out[k] = v;
  try {
    return JSON.parse(JSON.stringify(out)) as Record<string, unknown>;
  } catch {
    return { payload: String(msg.payload) };
  }
}

export function clientOf(msg: Record<string, unknown>): DashboardClientRef | undefined {
  const c = msg._client as Partial<DashboardClientRef> | undefined;
  if (!c || typeof c !== "object" || typeof c.socketId !== "string") return undefined;
  const user = c.user === undefined ? undefined : dashboardClientSchema.shape.user.safeParse(c.user).data;
  return { socketId: c.socketId, ...(c.user_id ? { user_id: c.user_id } : {}), ...(c.share_id ? { share_id: c.share_id } : {}), ...(user ? { user } : {}) };
}

/** Evaluates a Dashboard 2.0 typed property (payload + payloadType) against a message. */
export function typedValue(ctx: NodeContext, value: unknown, type: string, msg: Message): unknown {
  if (type === "date") return Date.now();
  if (type === "num" && typeof value === "number") return value;
  if (type === "bool" && typeof value === "boolean") return value;
  if (type === "json" && typeof value === "object") return value;
  const t = (["str", "num", "bool", "json", "msg", "flow", "global", "env"].includes(type) ? type : "str") as OperandType;
  return evaluateOperand(ctx, { value: typeof value === "string" ? value : JSON.stringify(value ?? ""), type: t }, msg);
}

/** Dashboard 2.0's appendTopic: the configured topic set on the message when it evaluates to something. */
export function withTopic(ctx: NodeContext, config: { topic?: string; topicType?: string }, msg: Message): Message {
  if (config.topic === undefined || config.topicType === undefined) return msg;
  const t = config.topicType === "msg" ? (config.topic ? msg[config.topic] : undefined) : typedValue(ctx, config.topic, config.topicType, msg);
  if (t !== undefined && t !== null && t !== "") msg.topic = t as string;
  return msg;
}

export interface WidgetSpec<C> {
  /** Keep no state (notifications). */
  stateless?: boolean;
  /**
   * The widget's own handling of an incoming message (charts, tables): returns the state after it
   * and the message to show (null: nothing to show); the default keeps the last message.
   */
  onMessage?(msg: Message, state: DashboardWidgetState): { state: DashboardWidgetState; show: Record<string, unknown> | null };
  /**
   * What a viewer's input sends: the message to send on (null: nothing), and whether the
   * widget's value changed (kept and shown to the other viewers).
   */
  onViewer?(input: DashboardInput, state: DashboardWidgetState, config: C): { send: Message | null; value?: Record<string, unknown> } | null;
  /** Checks an incoming `msg.ui_update` before anything uses it: what it returns replaces it (ui-audio's on/off values). */
  checkUpdate?(update: Record<string, unknown>, msg: Message): Record<string, unknown>;
  /** Properties the widget shows from its start, over its configuration and what was kept (a gauge's segments with their env texts read). */
  startProps?(): Record<string, unknown> | undefined;
  /** An incoming message acts as a viewer's click (ui-button's emulateClick). */
  emulate?(msg: Message): boolean;
  /**
   * Whether an incoming message is sent on (default: as its `passthru` says, or always without
   * one, as Dashboard 2.0's generic input handler does). false: never (a widget with an input
   * handler of its own that sends nothing, as Dashboard 2.0's ui-button).
   */
  passInput?: boolean;
}

/**
 * A widget's behaviour after Dashboard 2.0's ui-base: an incoming message updates the dynamic
 * properties, is kept as the widget's last message (its state), shown to every viewer of its page
 * (or to `msg._client`'s only, and then not kept), and passed on (`passthru` when the type has it,
 * else always, when the type has an output). A viewer's input becomes a message with `_client`.
 */
export function widgetBehaviour<C extends Record<string, unknown>>(ctx: NodeContext, config: C, spec: WidgetSpec<C> = {}): NodeBehaviour {
  const dash = ctx.services.dashboards;
  const org = ctx.organizationId;
  const id = ctx.node.id;
  let state: DashboardWidgetState = {};
  let stopInput: (() => void) | undefined;
  const canSend = ctx.outputs > 0;

  const publish = (show: Record<string, unknown>, client?: DashboardClientRef, ownState?: DashboardWidgetState) => {
    // To one viewer: the durable state goes with it unchanged (nothing kept of a private message
    // for the others); what it would be is that viewer's tab's own (dashboards/private-states.ts).
    dash?.emit(org, id, show, { ...(client ? { client } : {}), ...(spec.stateless ? {} : { state, ...(client && ownState ? { ownState } : {}) }) });
  };

  const viewerInput = (input: DashboardInput) => {
    const result = spec.onViewer?.(input, state, config);
    if (!result) return;
    if (result.value && !spec.stateless) {
      state = { ...state, msg: viewOf(result.value) };
      publish(state.msg!);
    }
    if (result.send && canSend) {
      if (ctx.busy()) {
        ctx.log.warn("dashboard input dropped: the flow is busy");
        return;
      }
      ctx.send(result.send);
    }
  };

  return {
    async start() {
      if (!dash) {
        ctx.status({ fill: "red", shape: "ring", text: "dashboards are not available here" });
        return;
      }
      const stored = await dash.readState(org, id).catch(() => null);
      if (stored && typeof stored === "object") state = stored as DashboardWidgetState;
      const fromStart = spec.startProps?.();
      if (fromStart) {
        // Kept, and shown to open pages as a ui_update (which leaves the value shown as it is).
        state = { ...state, props: { ...state.props, ...fromStart } };
        publish({ ui_update: fromStart });
      }
      if (spec.onViewer) stopInput = dash.onInput(org, id, viewerInput);
    },
    input(original: Message, send: Send, done) {
      // Dashboard 2.0's earlier property messages (its store's supportedPropertyMessages, still in
      // FlowFuse's Andon blueprints): { topic: "ui-property:class", payload } sets the widget's class
      // and is not its value. Passed on as it came.
      const legacy = typeof original.topic === "string" ? LEGACY_PROPERTY_TOPICS.get(original.topic) : undefined;
      const msg: Message = legacy && "payload" in original ? { _msgid: original._msgid, [legacy]: original.payload, ...(original._client !== undefined ? { _client: original._client } : {}) } : original;
      if (spec.emulate?.(msg)) {
        viewerInput({ event: "click", msg: {}, client: clientOf(msg) ?? { socketId: "" } });
        done();
        return;
      }
      const client = clientOf(msg);
      if (spec.checkUpdate && msg.ui_update && typeof msg.ui_update === "object" && !Array.isArray(msg.ui_update)) msg.ui_update = spec.checkUpdate(msg.ui_update as Record<string, unknown>, msg);
      // Dynamic properties (Dashboard 2.0's statestore): enabled, visible, class and ui_update.
      const props: Record<string, unknown> = { ...state.props };
      let propsChanged = false;
      for (const key of ["enabled", "visible", "class"] as const) {
        if (key in msg) {
          props[key] = msg[key];
          propsChanged = true;
        }
      }
      if (msg.ui_update && typeof msg.ui_update === "object" && !Array.isArray(msg.ui_update)) {
        Object.assign(props, viewOf(msg.ui_update as Record<string, unknown>));
        propsChanged = true;
      }
      withTopic(ctx, config as { topic?: string; topicType?: string }, msg);
      const next: DashboardWidgetState = client ? { ...state } : { ...state, ...(propsChanged ? { props } : {}) };
      let show: Record<string, unknown> | null;
      let after: DashboardWidgetState;
      if (spec.onMessage) {
        const r = spec.onMessage(msg, next);
        show = r.show;
        after = r.state;
      } else {
        show = viewOf(msg);
        const extra = Object.keys(msg).some((k) => !PRIVATE_KEYS.has(k) && !DASHBOARD_DYNAMIC_KEYS.has(k));
        after = extra ? { ...next, msg: show } : next;
      }
      if (!client) state = after;
      // A message for one viewer shows that viewer its own `_client`, as Dashboard 2.0 does (a
      // template may show it); it is not kept for anyone else, and nobody else gets the message.
      if (show) publish(client ? { ...show, _client: client } : show, client, client ? after : undefined);
      if (canSend) {
        if (spec.passInput !== false && (!("passthru" in config) || config.passthru === true)) send(original);
      }
      done();
    },
    close() {
      stopInput?.();
    },
  };
}

/** A viewer's value as Dashboard 2.0's onChange takes it: `{payload}` or the value itself. */
export function viewerValue(input: DashboardInput): unknown {
  return input.msg.payload;
}

/** A change from a viewer: the last message with the new payload and the topic, sent on and kept. */
export function changeFromViewer<C extends { topic?: string; topicType?: string }>(ctx: NodeContext, config: C, input: DashboardInput, state: DashboardWidgetState, payload: unknown) {
  const msg: Message = { ...(state.msg ?? {}), _msgid: ctx.newMessageId(), payload };
  delete msg.ui_update;
  withTopic(ctx, config, msg);
  const value = viewOf(msg);
  msg._client = input.client;
  return { send: msg, value };
}

/** An action from a viewer (a click, a submit): a fresh message with the payload, the topic and `_client`. */
export function actionFromViewer<C extends { topic?: string; topicType?: string }>(ctx: NodeContext, config: C, input: DashboardInput, payload: unknown): Message {
  const msg: Message = { _msgid: ctx.newMessageId(), payload };
  withTopic(ctx, config, msg);
  if (input.client.socketId) msg._client = input.client;
  return msg;
}

export const STATE_LIMIT_BYTES = DASHBOARD_LIMITS.maxStateBytes;

/** A JSONata Value that does not compile is refused where it is saved (the field named), not when its flow starts. */
export function checkShownValue(c: { value: string; valueType: string }, ctx: z.RefinementCtx): void {
  if (c.valueType === "jsonata" && c.value) checkOperand(ctx, ["value"], c.value, "jsonata");
}

/** Dashboard 2.0's typed Value of a widget that shows one (ui-text, ui-gauge): where in the message, or what, it is. */
export const SHOWN_VALUE_TYPES = ["msg", "str", "num", "jsonata", "flow", "global", "env"] as const;

/**
 * A widget showing its configured Value as the payload (Dashboard 2.0's ui-text and ui-gauge:
 * `asyncEvaluateNodeProperty(config.value, config.valueType)` before the message is shown). A
 * JSONata value is evaluated first, asynchronously; one that fails leaves the payload as it came,
 * with a warning, as there. `value` empty: the payload as it came.
 */
export function valueWidgetBehaviour<C extends Record<string, unknown> & { value: string; valueType: string }>(ctx: NodeContext, c: C, spec: WidgetSpec<C> = {}): NodeBehaviour {
  const expression = c.valueType === "jsonata" && c.value ? prepareOperand({ value: c.value, type: "jsonata" }) : undefined;
  const evaluated = new WeakMap<Message, { value: unknown }>();
  const valueOf = (msg: Message): unknown => {
    if (!c.value) return msg.payload;
    if (expression) return evaluated.has(msg) ? evaluated.get(msg)!.value : msg.payload;
    if (c.valueType === "msg") return getProperty(msg, c.value);
    try {
      return typedValue(ctx, c.value, c.valueType, msg);
    } catch (err) {
      ctx.log.warn(`Error evaluating value property: ${err instanceof Error ? err.message : String(err)}`);
      return msg.payload;
    }
  };
  const widget = widgetBehaviour(ctx, c, {
    ...spec,
    onMessage(msg, state) {
      const value = valueOf(msg);
      if (value === undefined && !("payload" in msg)) return { state, show: viewOf(msg) };
      const show = viewOf({ ...msg, payload: value });
      return { state: { ...state, msg: show }, show };
    },
  });
  if (!expression) return widget;
  // One message at a time, in order: an evaluation that yields must not let the next message overtake it.
  const queue = inOrder();
  return {
    ...widget,
    input(msg, send, done) {
      return queue(async () => {
        try {
          evaluated.set(msg, { value: await expression.evaluate(ctx, msg) });
        } catch (err) {
          ctx.log.warn(`Error evaluating value property: ${err instanceof Error ? err.message : String(err)}`);
        }
        return widget.input!(msg, send, done);
      });
    },
  };
}
