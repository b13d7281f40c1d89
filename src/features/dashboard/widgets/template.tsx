"use client";

import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { appBarTeleport, FRAME_TAG, TEMPLATE_FRAME_PATH, TEMPLATE_FRAME_SANDBOX } from "@/shared/template-frame";
import { useDashboard } from "../dashboard-context";
import { str, type WidgetProps } from "./widget";

/** The dashboard theme's colours under Vuetify's names, from the CSS variables theme.ts sets. */
const THEME_COLORS: Record<string, string> = {
  primary: "--db-primary",
  "on-primary": "--db-on-primary",
  surface: "--db-group-bg",
  "on-surface": "--db-on-group",
  background: "--db-bg-page",
  "on-background": "--db-on-bg-page",
  "group-background": "--db-group-bg",
  "group-outline": "--db-group-outline",
};

function frameTheme(el: HTMLElement) {
  const style = getComputedStyle(el);
  const colors: Record<string, string> = {};
  for (const [name, variable] of Object.entries(THEME_COLORS)) {
    const value = style.getPropertyValue(variable).trim();
    if (value) colors[name] = value;
  }
  return { dark: colors["on-surface"] === "#ffffff", colors, font: style.fontFamily };
}

/** A page:style or site:style template's CSS: its text without the <style> tags it may carry. */
const styleText = (format: string) => format.replace(/<\/?style[^>]*>/gi, "");

/** The CSS of the page's page:style and site:style templates, as the page has it. */
function pageCss(headless: Array<{ type: string; props: Record<string, unknown> }>): string {
  return headless
    .filter((w) => w.type === "ui-template" && (w.props.templateScope === "page:style" || w.props.templateScope === "site:style"))
    .map((w) => styleText(str(w.props, "format")))
    .join("\n");
}

/**
 * ui-template: the node's template (a Vue component, as Dashboard 2.0 runs it, or plain HTML) in a
 * sandboxed frame without the app's origin (src/shared/template-frame.ts): messages in and
 * `send(msg)` out over postMessage, accepted only from this frame's window (and the opaque origin
 * "null"). `templateScope` "page:style" / "site:style" adds the node's CSS to the page instead
 * (no script).
 */
export function TemplateWidget({ widget, props, state, interactive, send, placement }: WidgetProps) {
  const { store } = useDashboard();
  const frame = useRef<HTMLIFrameElement>(null);
  const [height, setHeight] = useState<number | null>(null);
  const scope = str(props, "templateScope", "local");
  const format = str(props, "format");
  const appBar = placement === "app-bar" ? (appBarTeleport(format) ?? "actions") : null;
  const autoHeight = widget.height === 0 && !appBar;
  const ready = useRef(false);
  const mountedFormat = useRef(format);
  /** The message the frame has (in `init` or since): it is not sent again, or its msg watcher would run twice. */
  const sentMsg = useRef<Record<string, unknown> | null>(null);
  const live = useRef({ msg: state.msg, send, interactive, autoHeight, props });
  useLayoutEffect(() => {
    live.current = { msg: state.msg, send, interactive, autoHeight, props };
  });

  // `init` goes out when the frame says it is ready, when its document has loaded, and when this
  // page starts listening (the frame may have loaded before the page's script ran): the frame takes
  // the first that reaches its document and ignores the others.
  const init = useCallback(() => {
    const el = frame.current;
    const win = el?.contentWindow;
    if (!el || !win) return;
    const now = live.current;
    const current = str(now.props, "format");
    const theme = frameTheme(el);
    // The frame is an opaque origin: "*" is the only target that reaches it; it only ever gets this widget's messages.
    win.postMessage(
      {
        tag: FRAME_TAG,
        kind: "init",
        id: widget.id,
        // The template's `props`, as Dashboard 2.0 gives it: the node's properties (with ui_update's).
        props: now.props,
        format: current,
        msg: now.msg ?? null,
        autoHeight: now.autoHeight,
        ...(appBar ? { appBar } : {}),
        ...(store.getView()?.user ? { user: store.getView()!.user } : {}),
        css: pageCss(store.getView()?.headless ?? []),
        theme,
      },
      "*",
    );
    // The frame's colour scheme is its document's: a frame whose scheme differs from its element's
    // is painted opaque (a black box in a dark app bar).
    el.style.colorScheme = theme.dark ? "dark" : "light";
    mountedFormat.current = current;
    sentMsg.current = now.msg ?? null;
    ready.current = true;
  }, [widget.id, appBar, store]);

  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      const win = frame.current?.contentWindow;
      if (!win || e.source !== win || e.origin !== "null") return;
      const d = e.data as { tag?: unknown; kind?: unknown; msg?: unknown; height?: unknown } | null;
      if (!d || d.tag !== FRAME_TAG) return;
      const now = live.current;
      if (d.kind === "ready") {
        init();
      } else if (d.kind === "send") {
        if (now.interactive && d.msg && typeof d.msg === "object" && !Array.isArray(d.msg)) now.send("send", d.msg as Record<string, unknown>);
      } else if (d.kind === "height" && typeof d.height === "number" && Number.isFinite(d.height)) {
        setHeight(Math.min(2000, Math.max(24, Math.ceil(d.height))));
      }
    };
    window.addEventListener("message", onMessage);
    // A frame in the server's HTML may have loaded (and said `ready`) before this page listened.
    init();
    return () => window.removeEventListener("message", onMessage);
  }, [init]);

  useEffect(() => {
    if (!ready.current || !state.msg || state.msg === sentMsg.current) return;
    sentMsg.current = state.msg;
    frame.current?.contentWindow?.postMessage({ tag: FRAME_TAG, kind: "msg", msg: state.msg }, "*");
  }, [state.msg]);

  useEffect(() => {
    // msg.ui_update.format: the frame builds the template again (Dashboard 2.0 re-renders it).
    if (mountedFormat.current === format) return;
    mountedFormat.current = format;
    if (ready.current) frame.current?.contentWindow?.postMessage({ tag: FRAME_TAG, kind: "format", format }, "*");
  }, [format]);

  if (scope === "page:style" || scope === "site:style") {
    return <style>{styleText(format)}</style>;
  }
  return (
    <iframe
      ref={frame}
      className={appBar ? `db-template db-template-app-bar ${appBar}` : "db-template"}
      title={str(props, "name") || str(props, "label") || "Template"}
      sandbox={TEMPLATE_FRAME_SANDBOX}
      referrerPolicy="no-referrer"
      src={TEMPLATE_FRAME_PATH}
      onLoad={init}
      style={autoHeight && height ? { height } : undefined}
      data-template-id={widget.id}
    />
  );
}
