"use client";

import { subflowIdOfType } from "@/shared/subflows";
import { useEditor } from "../editor-api";
import { NodeHelp, useNodeHelp } from "../node-help";
import { useSidebarShell } from "./sidebar-context";
import type { SidebarTab } from "./tab";
import { nodeLabel } from "@/shared/node-labels";
import { useClipboard } from "@/components/use-clipboard";
import { useOrgSlug } from "./dashboard-tab";

/**
 * Where an http-in node answers (SPEC: /hooks/{organization}{path}): Node-RED's http in shows its
 * path, which on one Node-RED is enough; here the organization's part of the URL is not in the
 * node, so the tab says the whole of it, with a Copy button.
 */
function WebhookUrl({ method, path }: { method: string; path: string }) {
  const slug = useOrgSlug();
  const clipboard = useClipboard();
  if (!slug) return null;
  const url = `${typeof window === "undefined" ? "" : window.location.origin}/hooks/${slug}${path}`;
  return (
    <>
      <dt>URL</dt>
      <dd className="webhook-url">
        <code>
          {method.toUpperCase()} {url}
        </code>{" "}
        <button type="button" className="secondary small" onClick={() => clipboard.copy(url)}>
          Copy URL
        </button>
        <span role="status">{clipboard.message("the URL")}</span>
      </dd>
    </>
  );
}

/** The selected node: type, id, outputs, state, and its help. */
function NodeTab() {
  const { nodes, selectedNodeIds } = useEditor();
  const { catalog, editNode, openSubflow } = useSidebarShell();
  const node = selectedNodeIds.length === 1 ? (nodes.find((n) => n.id === selectedNodeIds[0]) ?? null) : null;
  const entry = node ? catalog.get(node.data.type) : undefined;
  const help = useNodeHelp(node?.data.type, entry);
  if (!node) return <p className="hint">Select a node to see what it does. Double-click it, or press Enter, to edit it.</p>;
  return (
    <div className="node-info">
      <h3>{!node.data.name && node.data.subflowName ? node.data.subflowName : nodeLabel(node.data)}</h3>
      <dl className="details">
        <dt>Type</dt>
        <dd>{node.data.unknownType ? `unknown (${node.data.unknownType})` : node.data.subflowName ? `subflow “${node.data.subflowName}”` : node.data.type}</dd>
        <dt>Id</dt>
        <dd>
          <code>{node.id}</code>
        </dd>
        <dt>Outputs</dt>
        <dd>{node.data.outputs}</dd>
        {node.data.type === "http-in" && typeof node.data.config.path === "string" ? <WebhookUrl method={String(node.data.config.method ?? "get")} path={node.data.config.path} /> : null}
        {node.data.disabled ? (
          <>
            <dt>State</dt>
            <dd>Disabled</dd>
          </>
        ) : null}
      </dl>
      <button type="button" className="secondary small" onClick={() => editNode(node.id)}>
        Edit node
      </button>
      {node.data.subflowName && openSubflow ? (
        <button type="button" className="secondary small" onClick={() => openSubflow(subflowIdOfType(node.data.type)!)}>
          Edit subflow
        </button>
      ) : null}
      {node.data.description ? (
        <section aria-label="Description" className="node-description">
          <NodeHelp help={node.data.description} />
        </section>
      ) : commentText(node.data) ? (
        <section aria-label="Comment" className="node-description">
          <NodeHelp help={commentText(node.data)!} />
        </section>
      ) : null}
      {entry && help ? (
        <section aria-label={`Help: ${entry.name}`}>
          <NodeHelp help={help} />
        </section>
      ) : entry ? (
        <p>{entry.description}</p>
      ) : node.data.unknownType ? (
        <p>This node&apos;s Node-RED type is not available here. It is kept, disabled, so an export gives it back unchanged.</p>
      ) : null}
    </div>
  );
}

export const nodeTab: SidebarTab = { id: "node", label: "Node", component: NodeTab };

/** A comment's text (its `info`, Markdown), which the Node tab shows as Node-RED's does. */
function commentText(data: { type: string; config: Record<string, unknown> }): string | undefined {
  const info = data.type === "comment" ? data.config.info : undefined;
  return typeof info === "string" && info.trim() ? info : undefined;
}
