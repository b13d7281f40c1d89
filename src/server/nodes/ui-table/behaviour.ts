import { uiTableNode } from "./definition";
import { tableRowsAfter } from "../../../shared/dashboard-values";
import { defineBehaviour } from "../types";
import { actionFromViewer, viewOf, widgetBehaviour } from "../dashboard-support";

export const uiTableBehaviour = defineBehaviour(uiTableNode, (ctx, c) =>
  widgetBehaviour(ctx, c, {
    onMessage(msg, state) {
      if (msg.payload === undefined) return { state, show: viewOf(msg) };
      const { rows, replaced } = tableRowsAfter(state.rows ?? [], viewOf({ payload: msg.payload }).payload, { msg: msg.action, node: c.action });
      return { state: { ...state, rows }, show: viewOf({ ...msg, ...(replaced ? { action: "replace" } : {}) }) };
    },
    onViewer(input) {
      if (input.event === "button_click") {
        // A button column's click (Dashboard 2.0's widget-action): the row, the column's key, the
        // action; only for a button column the table has.
        const column = typeof input.msg.column === "string" ? input.msg.column : "";
        if (!(c.columns ?? []).some((col) => col.type === "button" && col.key === column)) return null;
        return { send: { ...actionFromViewer(ctx, {}, input, input.msg.payload), column, action: "button_click" } };
      }
      if (input.event !== "click" || c.selectionType === "none") return null;
      return { send: actionFromViewer(ctx, {}, input, input.msg.payload) };
    },
  }),
);
