"use client";

import { useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";
import { FRAME_TAG, pageNonce, templateDocument } from "../template-doc";
import { str, type WidgetProps } from "./widget";

const noSubscription = () => () => {};

/**
 * ui-template: the node's HTML and script in a sandboxed frame without the app's origin
 * (template-doc.ts); messages in and `send(msg)` out over postMessage, accepted only from this
 * frame's window (and the opaque origin "null"). `templateScope` "page:style" / "site:style"
 * adds the node's CSS to the page instead (no script).
 */
export function TemplateWidget({ widget, props, state, interactive, send }: WidgetProps) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [height, setHeight] = useState<number | null>(null);
  const nonce = useSyncExternalStore(noSubscription, () => pageNonce(document), () => null);
  const scope = str(props, "templateScope", "local");
  const format = str(props, "format");
  const autoHeight = widget.height === 0;
  const doc = useMemo(() => (nonce ? templateDocument(format, nonce, "inherit") : null), [format, nonce]);
  const msgRef = useRef(state.msg);
  const sendRef = useRef({ send, interactive });
  useLayoutEffect(() => {
    msgRef.current = state.msg;
    sendRef.current = { send, interactive };
  });

  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      const win = frame.current?.contentWindow;
      if (!win || e.source !== win || e.origin !== "null") return;
      const d = e.data as { tag?: unknown; kind?: unknown; msg?: unknown; height?: unknown } | null;
      if (!d || d.tag !== FRAME_TAG) return;
      if (d.kind === "ready") {
        if (msgRef.current) win.postMessage({ tag: FRAME_TAG, kind: "msg", msg: msgRef.current }, "*");
      } else if (d.kind === "send") {
        const { send: s, interactive: ok } = sendRef.current;
        if (ok && d.msg && typeof d.msg === "object" && !Array.isArray(d.msg)) s("send", d.msg as Record<string, unknown>);
      } else if (d.kind === "height" && typeof d.height === "number" && Number.isFinite(d.height)) {
        setHeight(Math.min(2000, Math.max(24, Math.ceil(d.height))));
      }
    };
    window.addEventListener("message", onMessage);
    return () => window.removeEventListener("message", onMessage);
  }, []);

  useEffect(() => {
    // The frame is an opaque origin: "*" is the only target that reaches it; it only ever gets this widget's messages.
    if (state.msg) frame.current?.contentWindow?.postMessage({ tag: FRAME_TAG, kind: "msg", msg: state.msg }, "*");
  }, [state.msg]);

  if (scope === "page:style" || scope === "site:style") {
    return <style>{format.replace(/<\/?style[^>]*>/gi, "")}</style>;
  }
  if (!doc) return null;
  return (
    <iframe
      ref={frame}
      className="db-template"
      title={str(props, "name") || str(props, "label") || "Template"}
      sandbox="allow-scripts"
      referrerPolicy="no-referrer"
      srcDoc={doc}
      style={autoHeight && height ? { height } : undefined}
      data-template-id={widget.id}
    />
  );
}
