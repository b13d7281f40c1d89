import { uiTextInputNode } from "./definition";
import { defineBehaviour } from "../types";
import { changeFromViewer, viewerValue, widgetBehaviour } from "../dashboard-support";

export const uiTextInputBehaviour = defineBehaviour(uiTextInputNode, (ctx, c) => widgetBehaviour(ctx, c, {
    onViewer(input, state) {
      if (input.event !== "change") return null;
      const v = viewerValue(input);
      return changeFromViewer(ctx, c, input, state, v === undefined || v === null ? "" : typeof v === "string" ? v : String(v));
    },
  }));
