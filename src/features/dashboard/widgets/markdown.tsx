"use client";

import DOMPurify from "dompurify";
import { marked } from "marked";
import { useMemo, useSyncExternalStore } from "react";
import { substitute } from "../format";
import { str, type WidgetProps } from "./widget";

/**
 * Markdown to HTML that cannot run script: marked, then DOMPurify (no script, no event
 * attributes, no javascript: URLs, no forms or frames); links open in a new tab without opener.
 */
export function renderMarkdown(source: string): string {
  // Without a DOM (the server's render) DOMPurify cannot sanitize: nothing is rendered there.
  if (!DOMPurify.isSupported) return "";
  const html = marked.parse(source, { async: false, gfm: true, breaks: false });
  const clean = DOMPurify.sanitize(html, { USE_PROFILES: { html: true }, FORBID_TAGS: ["style", "form", "input", "button", "iframe", "object", "embed"], FORBID_ATTR: ["style"] });
  return clean.replace(/<a /g, '<a target="_blank" rel="noopener noreferrer" ');
}

/** ui-markdown: the node's `content` with `{{msg.payload}}` substituted (as text) and sanitized. */
const noSubscription = () => () => {};

export function MarkdownWidget({ props, state }: WidgetProps) {
  const content = str(props, "content", str(props, "format"));
  // Rendered in the browser only (DOMPurify needs its DOM), after hydration.
  const inBrowser = useSyncExternalStore(noSubscription, () => true, () => false);
  const html = useMemo(() => (inBrowser ? renderMarkdown(substitute(content, state.msg)) : ""), [inBrowser, content, state.msg]);
  return <div className="db-markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
