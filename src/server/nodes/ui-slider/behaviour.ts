import { uiSliderNode } from "./definition";
import { defineBehaviour } from "../types";
import { changeFromViewer, viewerValue, widgetBehaviour } from "../dashboard-support";

export const uiSliderBehaviour = defineBehaviour(uiSliderNode, (ctx, c) => widgetBehaviour(ctx, c, {
    onViewer(input, state) {
      if (input.event !== "change") return null;
      const v = viewerValue(input);
      const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
      if (!Number.isFinite(n)) return null;
      const lo = Math.min(c.min, c.max);
      const hi = Math.max(c.min, c.max);
      return changeFromViewer(ctx, c, input, state, Math.min(hi, Math.max(lo, n)));
    },
  }));
