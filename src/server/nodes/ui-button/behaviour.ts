import { uiButtonNode } from "./definition";
import { defineBehaviour } from "../types";
import { actionFromViewer, typedValue, widgetBehaviour } from "../dashboard-support";

export const uiButtonBehaviour = defineBehaviour(uiButtonNode, (ctx, c) =>
  widgetBehaviour(ctx, c, {
    emulate: () => c.emulateClick,
    onViewer(input) {
      if (input.event !== "click" || !c.enableClick) return null;
      const payload = typedValue(ctx, c.payload, c.payloadType, { _msgid: "" });
      return { send: actionFromViewer(ctx, c, input, payload) };
    },
  }),
);
