import { uiTextNode } from "./definition";
import { defineBehaviour } from "../types";
import { valueWidgetBehaviour } from "../dashboard-support";

/** Dashboard 2.0's ui-text shows the configured Value of each message as its payload. */
export const uiTextBehaviour = defineBehaviour(uiTextNode, (ctx, c) => valueWidgetBehaviour(ctx, c));
