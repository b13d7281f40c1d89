import { TABLE_MAX_ROWS, uiTableNode } from "./definition";
import { defineBehaviour } from "../types";
import { actionFromViewer, viewOf, widgetBehaviour } from "../dashboard-support";

export const uiTableBehaviour = defineBehaviour(uiTableNode, (ctx, c) =>
  widgetBehaviour(ctx, c, {
    onMessage(msg, state) {
      if (msg.payload === undefined) return { state, show: viewOf(msg) };
      const incoming = Array.isArray(msg.payload) ? msg.payload : [msg.payload];
      const replace = incoming.length === 0 || msg.action === "replace" || (c.action === "replace" && msg.action !== "append");
      const rows = [...(replace ? [] : (state.rows ?? [])), ...(viewOf({ payload: incoming }).payload as unknown[])];
      const kept = rows.length > TABLE_MAX_ROWS ? rows.slice(rows.length - TABLE_MAX_ROWS) : rows;
      return { state: { ...state, rows: kept }, show: viewOf({ ...msg, ...(replace ? { action: "replace" } : {}) }) };
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
