import { uiTextNode } from "./definition";
import { defineBehaviour } from "../types";
import { typedValue, viewOf, widgetBehaviour } from "../dashboard-support";
import { getProperty } from "../../runtime/properties";

export const uiTextBehaviour = defineBehaviour(uiTextNode, (ctx, c) =>
  widgetBehaviour(ctx, c, {
    onMessage(msg, state) {
      // Dashboard 2.0's ui-text shows the configured value of the message as its payload.
      const value = c.valueType === "msg" ? getProperty(msg, c.value) : typedValue(ctx, c.value, c.valueType, msg);
      if (value === undefined && !("payload" in msg)) return { state, show: viewOf(msg) };
      const show = viewOf({ ...msg, payload: value });
      return { state: { ...state, msg: show }, show };
    },
  }),
);
