import { useMemo } from "react";
import { helpToHtml } from "@/shared/help-markdown";

/**
 * A node type's help text (SPEC §12), rendered from its Markdown. helpToHtml escapes raw HTML and
 * keeps only http(s) links, so the result is safe to insert.
 */
export function NodeHelp({ help, id }: { help: string; id?: string }) {
  const html = useMemo(() => helpToHtml(help), [help]);
  if (!help) return null;
  return <div id={id} className="node-help prose" dangerouslySetInnerHTML={{ __html: html }} />;
}
