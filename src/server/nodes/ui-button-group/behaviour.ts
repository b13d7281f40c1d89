import { uiButtonGroupNode } from "./definition";
import { defineBehaviour } from "../types";
import { changeFromViewer, viewerValue, widgetBehaviour } from "../dashboard-support";
import { sameOptionValue, typedOptionValue } from "../../../shared/dashboard-values";

type Option = { label?: unknown; value?: unknown; valueType?: unknown };

export const uiButtonGroupBehaviour = defineBehaviour(uiButtonGroupNode, (ctx, c) =>
  widgetBehaviour(ctx, c, {
    onViewer(input, state) {
      if (input.event !== "change") return null;
      const v = viewerValue(input);
      // Options may be replaced while the page is open (ui_update.options).
      const options = (Array.isArray(state.props?.options) ? state.props.options : c.options) as Option[];
      const chosen = options.find((o) => sameOptionValue(typedOptionValue(o.value, o.valueType), v));
      if (!chosen) return null;
      // As Dashboard 2.0's beforeSend: the status shows the chosen button.
      ctx.status({ fill: "blue", shape: "dot", text: String(typeof chosen.label === "string" && chosen.label ? chosen.label : v) });
      return changeFromViewer(ctx, c, input, state, v);
    },
  }),
);
