import { uiFileInputNode } from "./definition";
import { defineBehaviour } from "../types";
import { actionFromViewer, widgetBehaviour } from "../dashboard-support";

/**
 * Dashboard 2.0's widget-send of a file: `{payload: <Buffer>, file: {name, type, size}}` with the
 * topic and `_client`; nothing kept. The socket has checked the size and put the chunks together;
 * the file crosses the bus as base64.
 */
export const uiFileInputBehaviour = defineBehaviour(uiFileInputNode, (ctx, c) =>
  widgetBehaviour(ctx, c, {
    onViewer(input) {
      if (input.event !== "upload" || typeof input.msg.payload !== "string") return null;
      const bytes = Buffer.from(input.msg.payload, "base64");
      const f = (input.msg.file && typeof input.msg.file === "object" ? input.msg.file : {}) as { name?: unknown; type?: unknown };
      const msg = actionFromViewer(ctx, c, input, bytes);
      msg.file = { name: typeof f.name === "string" ? f.name : "", type: typeof f.type === "string" ? f.type : "", size: bytes.length };
      return { send: msg };
    },
  }),
);
