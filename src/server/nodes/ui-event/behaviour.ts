import { uiEventNode } from "./definition";
import { defineBehaviour } from "../types";
import { actionFromViewer, widgetBehaviour } from "../dashboard-support";

export const uiEventBehaviour = defineBehaviour(uiEventNode, (ctx, c) => widgetBehaviour(ctx, c, {
    onViewer(input) {
      if (input.event !== "$pageview" && input.event !== "$pageleave") return null;
      const msg = actionFromViewer(ctx, {}, input, input.msg.payload);
      msg.topic = input.event;
      return { send: msg };
    },
  }));
