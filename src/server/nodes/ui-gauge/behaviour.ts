import { uiGaugeNode } from "./definition";
import { defineBehaviour } from "../types";
import { valueWidgetBehaviour } from "../dashboard-support";

/** Dashboard 2.0's ui-gauge shows the configured Value of each message (the payload by default). */
export const uiGaugeBehaviour = defineBehaviour(uiGaugeNode, (ctx, c) =>
  valueWidgetBehaviour(ctx, c, {
    // Dashboard 2.0 reads a segment's env text when the node starts: the segments shown carry the variable's value.
    startProps: () =>
      c.segments.some((s) => s.textType === "env")
        ? { segments: c.segments.map((s) => (s.textType === "env" ? { ...s, text: envText(ctx.env.get(s.text ?? "")), textType: "str" as const } : s)) }
        : undefined,
  }),
);

const envText = (v: unknown) => (v === undefined || v === null ? "" : typeof v === "string" ? v : JSON.stringify(v));
