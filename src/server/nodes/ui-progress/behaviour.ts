import { uiProgressNode } from "./definition";
import { defineBehaviour } from "../types";
import { widgetBehaviour } from "../dashboard-support";

// As Dashboard 2.0's: the last message is kept and shown; ui_update.label and .color are dynamic.
export const uiProgressBehaviour = defineBehaviour(uiProgressNode, (ctx, c) => widgetBehaviour(ctx, c));
