import { uiNotificationNode } from "./definition";
import { defineBehaviour } from "../types";
import { actionFromViewer, widgetBehaviour } from "../dashboard-support";

export const uiNotificationBehaviour = defineBehaviour(uiNotificationNode, (ctx, c) => widgetBehaviour(ctx, c, {
    stateless: true,
    onViewer(input) {
      if (input.event !== "confirm" && input.event !== "dismiss") return null;
      const msg = actionFromViewer(ctx, {}, input, input.msg.payload);
      msg.topic = input.event;
      return { send: msg };
    },
  }));
