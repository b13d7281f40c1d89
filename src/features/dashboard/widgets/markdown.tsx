"use client";

import DOMPurify from "dompurify";
import { marked } from "marked";
import { useMemo, useSyncExternalStore } from "react";
import { substitute } from "../format";
import { str, type WidgetProps } from "./widget";

/**
 * Markdown to HTML that cannot run script: marked, then DOMPurify (no script, no event
 * attributes, no javascript: URLs, no forms or frames); links open in a new tab without opener.
 * With a message, `{{ msg.… }}` in the text is its value, as Dashboard 2.0 shows it: the markdown
 * is rendered first and the values go into its text as text (never parsed as markdown or HTML, never
 * into attributes), so `**{{ msg.payload }}**` is the payload in bold, and nothing before a message.
 */
export function renderMarkdown(source: string, msg?: Record<string, unknown> | null, options: { inlineStyles?: boolean } = {}): string {
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
  const holder = document.createElement("div");
  holder.appendChild(fragment);
  return holder.innerHTML.replace(/<a /g, '<a target="_blank" rel="noopener noreferrer" ');
}

/** ui-markdown: the node's `content` rendered, with `{{msg.payload}}` and the like filled in as text. */
const noSubscription = () => () => {};

export function MarkdownWidget({ props, state }: WidgetProps) {
  const content = str(props, "content", str(props, "format"));
  // Rendered in the browser only (DOMPurify needs its DOM), after hydration.
  const inBrowser = useSyncExternalStore(noSubscription, () => true, () => false);
  const html = useMemo(() => (inBrowser ? renderMarkdown(content, state.msg ?? {}, { inlineStyles: true }) : ""), [inBrowser, content, state.msg]);
  return <div className="db-markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
