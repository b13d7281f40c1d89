"use client";

import { useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore } from "react";
import { useDashboard } from "./dashboard-context";
import type { Notice } from "./dashboard-store";
import { renderMarkdown } from "./widgets/markdown";
import { show } from "./format";
import { bool, num, str } from "./widgets/widget";

const POSITIONS = new Set(["top right", "top center", "top left", "bottom right", "bottom center", "bottom left", "center center"]);

/**
 * ui-notification (Dashboard 2.0's snackbar; Dashboard 1's toast and dialog): shows `msg.payload`
 * for `displayTime` seconds (0: until dismissed), with dismiss / confirm buttons that send
 * `dismiss_clicked` / `confirm_clicked` into the flow. `raw` HTML is sanitized. Position
 * "center center" (Dashboard 1's dialog) is a modal dialog.
 */
function NoticeView({ notice, onClose }: { notice: Notice; onClose: (answer: string | null) => void }) {
  const { store, interactive } = useDashboard();
  const widget = store.getWidget(notice.widgetId);
  const props = { ...(widget?.props ?? {}), ...(notice.msg.ui_update && typeof notice.msg.ui_update === "object" ? (notice.msg.ui_update as Record<string, unknown>) : {}) };
  const displayTime = num(props, "displayTime", 3);
  const allowDismiss = bool(props, "allowDismiss", true);
  const allowConfirm = bool(props, "allowConfirm", false);
  const [left, setLeft] = useState(100);
  // The countdown runs once per notice: a parent re-render (a new closure) must not restart it.
  const close = useRef(onClose);
  useLayoutEffect(() => {
    close.current = onClose;
  });
  useEffect(() => {
    if (displayTime <= 0) return;
    const started = Date.now();
    const t = setInterval(() => {
      const pct = 100 - ((Date.now() - started) / (displayTime * 1000)) * 100;
      if (pct <= 0) close.current(null);
      else setLeft(pct);
    }, 100);
    return () => clearInterval(t);
  }, [displayTime]);
  const dialog = str(props, "position") === "center center" || (allowConfirm && displayTime <= 0);
  const body = bool(props, "raw", false) ? <div dangerouslySetInnerHTML={{ __html: renderMarkdown(show(notice.msg.payload)) }} /> : <div>{show(notice.msg.payload)}</div>;
  const color = bool(props, "colorDefault", true) ? undefined : str(props, "color");
  const content = (
    <>
      {notice.msg.topic ? <strong>{show(notice.msg.topic)}</strong> : null}
      {body}
      {displayTime > 0 && bool(props, "showCountdown", true) ? <progress max={100} value={left} aria-label="Time left" /> : null}
      {allowDismiss || allowConfirm ? (
        <div className="db-notice-actions">
          {allowDismiss ? (
            <button type="button" className="db-button secondary" onClick={() => onClose("dismiss_clicked")}>
              {str(props, "dismissText", "Close")}
            </button>
          ) : null}
          {allowConfirm ? (
            <button type="button" className="db-button" disabled={!interactive} onClick={() => onClose("confirm_clicked")}>
              {str(props, "confirmText", "Confirm")}
            </button>
          ) : null}
        </div>
      ) : null}
    </>
  );
  if (dialog) {
    return (
      <div className="db-dialog-backdrop">
        <div className="db-dialog" role="alertdialog" aria-modal="true" aria-label="Notification" style={color ? { borderTopColor: color } : undefined}>
          {content}
        </div>
      </div>
    );
  }
  return (
    <div className="db-toast" role="status" style={color ? { borderLeftColor: color } : undefined}>
      {content}
    </div>
  );
}

export function Notifications() {
  const { store, sendInput } = useDashboard();
  const notices = useSyncExternalStore(store.subscribePage, store.getNotices, store.getNotices);
  const byPosition = new Map<string, Notice[]>();
  for (const n of notices) {
    const pos = str(store.getWidget(n.widgetId)?.props ?? {}, "position", "top right");
    const key = POSITIONS.has(pos) ? pos : "top right";
    byPosition.set(key, [...(byPosition.get(key) ?? []), n]);
  }
  return (
    <>
      {[...byPosition].map(([pos, list]) => (
        <div key={pos} className={`db-toasts ${pos.replace(" ", "-")}`} aria-live="polite">
          {list.map((n) => (
            <NoticeView
              key={n.key}
              notice={n}
              onClose={(answer) => {
                store.dismissNotice(n.key);
                if (answer) sendInput(n.widgetId, answer === "confirm_clicked" ? "confirm" : "dismiss", { payload: answer });
              }}
            />
          ))}
        </div>
      ))}
    </>
  );
}
