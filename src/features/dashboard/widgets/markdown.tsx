"use client";

import DOMPurify from "dompurify";
import { marked } from "marked";
import { useEffect, useMemo, useRef, useSyncExternalStore } from "react";
import { useDashboard } from "../dashboard-context";
import { substitute } from "../format";
import { str, type WidgetProps } from "./widget";

/**
 * Markdown to HTML that cannot run script: marked, then DOMPurify (no script, no event
 * attributes, no javascript: URLs, no forms or frames); links open in a new tab without opener.
 * With a message, `{{ msg.… }}` in the text is its value, as Dashboard 2.0 shows it: the markdown
 * is rendered first and the values go into its text as text (never parsed as markdown or HTML, never
 * into attributes), so `**{{ msg.payload }}**` is the payload in bold, and nothing before a message.
 */
export function renderMarkdown(
  source: string,
  msg?: Record<string, unknown> | null,
  options: { inlineStyles?: boolean; pageLink?: (href: string) => { href: string; path: string } | null } = {},
): string {
  // Without a DOM (the server's render) DOMPurify cannot sanitize: nothing is rendered there.
  if (!DOMPurify.isSupported) return "";
  // As Dashboard 2.0: `{{ a || 'b' }}` is not a table's cell separator.
  const html = marked.parse(source.replace(/\|\|/g, "mdORmd"), { async: false, gfm: true, breaks: false }).replaceAll("mdORmd", "||");
  const fragment = DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ["style", "form", "input", "button", "iframe", "object", "embed"],
    // Inline styles only for content an editor wrote (a ui-markdown's, as Dashboard 2.0 keeps
    // them: `<span style="color:…">`), never for a message's HTML (a raw notification).
    FORBID_ATTR: options.inlineStyles ? [] : ["style"],
    RETURN_DOM_FRAGMENT: true,
  });
  if (msg !== undefined) {
    const walker = document.createTreeWalker(fragment, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node as Text;
      if (text.data.includes("{{")) text.data = substitute(text.data, msg);
    }
  }
  for (const a of fragment.querySelectorAll("a")) {
    // A link to one of this dashboard's pages, written as Dashboard 2.0 serves them, opens it here
    // in the same tab (page-links.ts); any other link opens in a new tab without opener.
    const page = options.pageLink?.(a.getAttribute("href") ?? "");
    if (page) {
      a.setAttribute("href", page.href);
      a.setAttribute("data-db-page", page.path);
    } else {
      a.setAttribute("target", "_blank");
      a.setAttribute("rel", "noopener noreferrer");
    }
  }
  const holder = document.createElement("div");
  holder.appendChild(fragment);
  return holder.innerHTML;
}

/** ui-markdown: the node's `content` rendered, with `{{msg.payload}}` and the like filled in as text. */
const noSubscription = () => () => {};

export function MarkdownWidget({ props, state }: WidgetProps) {
  const { pageLink, openPage } = useDashboard();
  const content = str(props, "content", str(props, "format"));
  // Rendered in the browser only (DOMPurify needs its DOM), after hydration.
  const inBrowser = useSyncExternalStore(noSubscription, () => true, () => false);
  const html = useMemo(() => (inBrowser ? renderMarkdown(content, state.msg ?? {}, { inlineStyles: true, pageLink }) : ""), [inBrowser, content, state.msg, pageLink]);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el || !openPage) return;
    // A page link is followed as the navigation's are: the page changes without a reload (a
    // modified click still opens it in a new tab or window).
    const onClick = (e: MouseEvent) => {
      const a = (e.target as Element | null)?.closest?.("a[data-db-page]");
      if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      openPage(a.getAttribute("data-db-page") ?? "");
    };
    el.addEventListener("click", onClick);
    return () => el.removeEventListener("click", onClick);
  }, [openPage]);
  return <div ref={box} className="db-markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
