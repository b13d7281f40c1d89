import { uiMarkdownNode } from "./definition";
import { defineBehaviour } from "../types";
import { widgetBehaviour } from "../dashboard-support";

export const uiMarkdownBehaviour = defineBehaviour(uiMarkdownNode, (ctx, c) => widgetBehaviour(ctx, c));
