import { uiLedNode } from "./definition";
import { defineBehaviour } from "../types";
import { viewOf, widgetBehaviour } from "../dashboard-support";
import { ledColorTable } from "../../../shared/dashboard-values";

/**
 * As Dashboard 2.0's ui-led: the last message is kept and shown (the page picks the colour). With
 * allowColorForValueInMessage, a message's `colorForValue` replaces the colour table as Dashboard
 * 1's LED does, and stays (kept with the widget's properties, as a ui_update would be).
 */
export const uiLedBehaviour = defineBehaviour(uiLedNode, (ctx, c) =>
  widgetBehaviour(ctx, c, {
    onMessage(msg, next) {
      const show = viewOf(msg);
      let state = "payload" in msg ? { ...next, msg: show } : next;
      if (c.allowColorForValueInMessage && msg.colorForValue !== undefined) {
        const table = ledColorTable(msg.colorForValue);
        if (table === undefined) {
          ctx.log.warn("msg.colorForValue ignored: a list of { value, color } or an object of value: colour, at most 100 entries, is expected");
        } else {
          const update = { ...(show.ui_update && typeof show.ui_update === "object" ? (show.ui_update as Record<string, unknown>) : {}), colorForValue: table };
          state = { ...state, props: { ...state.props, colorForValue: table } };
          return { state, show: { ...show, ui_update: update } };
        }
      }
      return { state, show };
    },
  }),
);
