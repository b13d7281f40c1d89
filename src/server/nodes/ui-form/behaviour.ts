import { uiFormNode } from "./definition";
import { defineBehaviour } from "../types";
import { actionFromViewer, widgetBehaviour } from "../dashboard-support";

export const uiFormBehaviour = defineBehaviour(uiFormNode, (ctx, c) => widgetBehaviour(ctx, c, {
    onViewer(input) {
      if (input.event !== "submit") return null;
      const values = input.msg.payload;
      if (!values || typeof values !== "object" || Array.isArray(values)) return null;
      const fields = new Map(c.options.map((o) => [o.key, o]));
      const entries = Object.entries(values as Record<string, unknown>);
      if (fields.size > 0 && entries.some(([k]) => !fields.has(k))) return null;
      for (const f of fields.values()) {
        const v = (values as Record<string, unknown>)[f.key];
        if (f.required && (v === undefined || v === null || v === "")) return null;
      }
      return { send: actionFromViewer(ctx, c, input, Object.fromEntries(entries)) };
    },
  }));
