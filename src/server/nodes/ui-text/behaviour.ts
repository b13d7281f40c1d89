import { uiTextNode } from "./definition";
import { defineBehaviour } from "../types";
import { typedValue, viewOf, widgetBehaviour } from "../dashboard-support";
import { getProperty } from "../../runtime/properties";
import { prepareOperand } from "../../runtime/operands";
import type { Message } from "../../runtime/types";

export const uiTextBehaviour = defineBehaviour(uiTextNode, (ctx, c) => {
  // A JSONata value is evaluated before the widget takes the message (asynchronously, as Dashboard
  // 2.0's asyncEvaluateNodeProperty); one that fails leaves the payload as it came, with a warning.
  const expression = c.valueType === "jsonata" ? prepareOperand({ value: c.value, type: "jsonata" }) : undefined;
  const evaluated = new WeakMap<Message, { value: unknown }>();
  const widget = widgetBehaviour(ctx, c, {
    onMessage(msg, state) {
      // Dashboard 2.0's ui-text shows the configured value of the message as its payload.
      const value = expression ? (evaluated.has(msg) ? evaluated.get(msg)!.value : msg.payload) : c.valueType === "msg" ? getProperty(msg, c.value) : typedValue(ctx, c.value, c.valueType, msg);
      if (value === undefined && !("payload" in msg)) return { state, show: viewOf(msg) };
      const show = viewOf({ ...msg, payload: value });
      return { state: { ...state, msg: show }, show };
    },
  });
  if (!expression) return widget;
  return {
    ...widget,
    async input(msg, send, done) {
      try {
        evaluated.set(msg, { value: await expression.evaluate(ctx, msg) });
      } catch (err) {
        ctx.log.warn(`Error evaluating value property: ${err instanceof Error ? err.message : String(err)}`);
      }
      return widget.input!(msg, send, done);
    },
  };
});
