import { useMemo } from "react";
import { useQuery } from "@tanstack/react-query";
import { helpToHtml } from "@/shared/help-markdown";
import { useTRPC } from "@/trpc/react";

/**
 * A node type's help: the catalog entry's when it carries it, else read once per type through
 * nodes.schema (the editor pages leave help out of the catalog they send, lean-catalog.ts; the
 * edit dialog reads the same query for its form, so they share one request). "" while it loads.
 */
export function useNodeHelp(type: string | undefined, entry: { help: string } | undefined): string {
  const trpc = useTRPC();
  const lazy = !!type && !!entry && entry.help === "" && type !== "unknown";
  const schema = useQuery({ ...trpc.nodes.schema.queryOptions({ type: type ?? "" }), enabled: lazy, staleTime: Infinity });
  return entry?.help || (lazy ? (schema.data?.help ?? "") : "");
}

/**
 * A node type's help text (SPEC §12), rendered from its Markdown. helpToHtml escapes raw HTML and
 * keeps only http(s) links, so the result is safe to insert.
 */
export function NodeHelp({ help, id }: { help: string; id?: string }) {
  const html = useMemo(() => helpToHtml(help), [help]);
  if (!help) return null;
  return <div id={id} className="node-help prose" dangerouslySetInnerHTML={{ __html: html }} />;
}

/** A dialog's help for its node type, behind a disclosure (a node's dialog, a configuration node's). */
export function HelpDisclosure({ name, help }: { name: string; help: string }) {
  if (!help) return null;
  return (
    <details className="node-help-details">
      <summary>Help: {name}</summary>
      <NodeHelp help={help} />
    </details>
  );
}
