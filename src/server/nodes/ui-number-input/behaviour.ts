import { uiNumberInputNode } from "./definition";
import { defineBehaviour } from "../types";
import { changeFromViewer, viewerValue, widgetBehaviour } from "../dashboard-support";

export const uiNumberInputBehaviour = defineBehaviour(uiNumberInputNode, (ctx, c) => widgetBehaviour(ctx, c, {
    onViewer(input, state) {
      if (input.event !== "change") return null;
      const v = viewerValue(input);
      if (v === null || v === "") return changeFromViewer(ctx, c, input, state, null);
      const n = typeof v === "number" ? v : typeof v === "string" ? Number(v) : NaN;
      if (!Number.isFinite(n)) return null;
      return changeFromViewer(ctx, c, input, state, n);
    },
  }));
