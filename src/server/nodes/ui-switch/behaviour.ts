import { uiSwitchNode } from "./definition";
import { defineBehaviour } from "../types";
import { changeFromViewer, typedValue, viewerValue, widgetBehaviour } from "../dashboard-support";

export const uiSwitchBehaviour = defineBehaviour(uiSwitchNode, (ctx, c) => widgetBehaviour(ctx, c, {
    onViewer(input, state) {
      if (input.event !== "change") return null;
      const v = viewerValue(input);
      const on = v === true || v === "true" || v === 1 || v === "on";
      const payload = on ? typedValue(ctx, c.onvalue, c.onvalueType, { _msgid: "" }) : typedValue(ctx, c.offvalue, c.offvalueType, { _msgid: "" });
      return changeFromViewer(ctx, c, input, state, payload);
    },
  }));
