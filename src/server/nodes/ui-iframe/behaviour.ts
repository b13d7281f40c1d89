import { uiIframeNode } from "./definition";
import { defineBehaviour } from "../types";
import { viewOf, widgetBehaviour } from "../dashboard-support";
import { DASHBOARD_DYNAMIC_KEYS as DYNAMIC, safeFrameUrl } from "../../../shared/dashboard";

/**
 * As FlowFuse's ui-iframe: the last message is kept, and its `src` replaces the node's URL while
 * it is the last one. A `src` that is not an http(s) address is dropped with a warning, so a page
 * never receives one.
 */
export const uiIframeBehaviour = defineBehaviour(uiIframeNode, (ctx, c) =>
  widgetBehaviour(ctx, c, {
    onMessage(msg, next) {
      const show = viewOf(msg);
      if ("src" in show && (typeof show.src !== "string" || !safeFrameUrl(show.src))) {
        ctx.log.warn("msg.src ignored: an http or https address (at most 2,000 characters) is expected");
        // The frame keeps its page; the message's other properties (enabled, visible …) still apply.
        const dynamic = Object.fromEntries(Object.entries(show).filter(([k]) => DYNAMIC.has(k)));
        return { state: next, show: Object.keys(dynamic).length > 0 ? dynamic : null };
      }
      const kept = Object.keys(show).some((k) => !DYNAMIC.has(k));
      return { state: kept ? { ...next, msg: show } : next, show };
    },
  }),
);
