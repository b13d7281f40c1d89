import { uiDropdownNode } from "./definition";
import { defineBehaviour } from "../types";
import { changeFromViewer, viewerValue, widgetBehaviour } from "../dashboard-support";

export const uiDropdownBehaviour = defineBehaviour(uiDropdownNode, (ctx, c) => widgetBehaviour(ctx, c, {
    onViewer(input, state) {
      if (input.event !== "change") return null;
      const v = viewerValue(input);
      // Options may be replaced while the page is open (ui_update.options).
      const options = (Array.isArray(state.props?.options) ? state.props.options : c.options) as Array<{ value: unknown }>;
      const allowed = (x: unknown) => options.length === 0 || options.some((o) => JSON.stringify(o.value) === JSON.stringify(x));
      const values = Array.isArray(v) ? v : [v];
      if (v !== null && v !== undefined && !values.every(allowed)) return null;
      return changeFromViewer(ctx, c, input, state, c.multiple ? values : v);
    },
  }));
