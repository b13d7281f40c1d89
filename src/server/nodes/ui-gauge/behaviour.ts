import { uiGaugeNode } from "./definition";
import { defineBehaviour } from "../types";
import { widgetBehaviour } from "../dashboard-support";

export const uiGaugeBehaviour = defineBehaviour(uiGaugeNode, (ctx, c) => widgetBehaviour(ctx, c));
