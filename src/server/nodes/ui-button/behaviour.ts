import { uiButtonNode } from "./definition";
import { defineBehaviour } from "../types";
import { actionFromViewer, typedValue, widgetBehaviour } from "../dashboard-support";

/** Dashboard 2.0's msg._event: what the viewer did and where, numbers only (the browser says it; nothing else of its object is taken). */
function eventOf(type: string, given: unknown): Record<string, unknown> {
  const e = given && typeof given === "object" ? (given as Record<string, unknown>) : {};
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
  const out: Record<string, unknown> = { type };
  if (num(e.clientX) !== undefined) out.clientX = num(e.clientX);
  if (num(e.clientY) !== undefined) out.clientY = num(e.clientY);
  if (e.bbox && typeof e.bbox === "object") {
    const b = e.bbox as Record<string, unknown>;
    const bbox = Object.fromEntries(["x", "y", "width", "height", "top", "right", "bottom", "left"].flatMap((k) => (num(b[k]) !== undefined ? [[k, num(b[k])]] : [])));
    if (Object.keys(bbox).length > 0) out.bbox = bbox;
  }
  return out;
}

export const uiButtonBehaviour = defineBehaviour(uiButtonNode, (ctx, c) =>
  widgetBehaviour(ctx, c, {
    emulate: () => c.emulateClick,
    // Dashboard 2.0's button has an input handler of its own: a message only updates the button (or, with emulateClick, clicks it); it is never sent on.
    passInput: false,
    onViewer(input) {
      // As Dashboard 2.0's beforeSend: the event's own payload (a click's, a press's, a release's).
      const [enabled, payload, payloadType] =
        input.event === "click"
          ? [c.enableClick, c.payload, c.payloadType]
          : input.event === "pointerdown"
            ? [c.enablePointerdown, c.pointerdownPayload, c.pointerdownPayloadType]
            : input.event === "pointerup"
              ? [c.enablePointerup, c.pointerupPayload, c.pointerupPayloadType]
              : [false, "", c.payloadType];
      if (!enabled) return null;
      const msg = actionFromViewer(ctx, c, input, typedValue(ctx, payload, payloadType, { _msgid: "" }));
      msg._event = eventOf(input.event, input.msg._event);
      return { send: msg };
    },
  }),
);
