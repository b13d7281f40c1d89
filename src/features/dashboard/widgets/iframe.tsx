"use client";

import { useSyncExternalStore } from "react";
import { frameTarget } from "@/shared/dashboard";
import { str, type WidgetProps } from "./widget";

const noSubscription = () => () => {};

/**
 * ui-iframe: FlowFuse's Dashboard 2.0 add-on (UIIframe.vue): the last message's `src`, else the
 * node's URL, in a frame filling the widget. Only another origin's http(s) page is framed (the
 * server drops other schemes; the page's own origin is resolved here, so it is refused here), in
 * a sandbox that keeps it from navigating the dashboard. Rendered on the server as the note.
 */
export function IframeWidget({ props, state }: WidgetProps) {
  const fromMsg = state.msg?.src;
  const src = typeof fromMsg === "string" && fromMsg !== "" ? fromMsg : str(props, "src");
  const pageUrl = useSyncExternalStore(noSubscription, () => window.location.href, () => null);
  const target = pageUrl === null ? null : frameTarget(src, pageUrl);
  if (target && "url" in target) {
    const title = str(props, "label") || `Embedded page: ${new URL(target.url).host}`;
    return (
      <iframe
        className="db-iframe"
        src={target.url}
        title={title}
        sandbox="allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox allow-downloads allow-modals"
        allow="fullscreen"
        referrerPolicy="strict-origin-when-cross-origin"
        loading="lazy"
      />
    );
  }
  const why =
    target === null
      ? ""
      : target.refused === "empty"
        ? "No address to show yet."
        : target.refused === "same-origin"
          ? `Not shown: ${src} is on this dashboard's own site, which a frame cannot show.`
          : `Not shown: ${src} is not an http or https address.`;
  return (
    <div className="db-iframe db-iframe-note" role="note">
      {why}
    </div>
  );
}
