import { uiTemplateNode } from "./definition";
import { defineBehaviour } from "../types";
import { actionFromViewer, viewOf, widgetBehaviour } from "../dashboard-support";

export const uiTemplateBehaviour = defineBehaviour(uiTemplateNode, (ctx, c) => widgetBehaviour(ctx, c, {
    onViewer(input) {
      if (input.event !== "send") return null;
      const msg = actionFromViewer(ctx, {}, input, input.msg.payload);
      for (const [k, v] of Object.entries(viewOf(input.msg))) if (k !== "payload") msg[k] = v;
      return { send: msg };
    },
  }));
