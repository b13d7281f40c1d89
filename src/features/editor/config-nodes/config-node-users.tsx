"use client";

import Link from "next/link";
import type { ConfigNodeUsage } from "@/shared/config-nodes";
import { usageKind } from "./config-node-model";

/**
 * Who names a configuration node (its `used_by`): flows and subflow definitions as links, other
 * configuration nodes by name. Nodes of the flow open in the editor are buttons that select them.
 */
export function ConfigNodeUsers({
  usedBy,
  currentFlowId,
  onSelectNode,
  nodeLabel = (id) => id,
}: {
  usedBy: readonly ConfigNodeUsage[];
  currentFlowId?: string;
  onSelectNode?: (nodeId: string) => void;
  nodeLabel?: (nodeId: string) => string;
}) {
  if (usedBy.length === 0) return <p className="hint">No node uses it.</p>;
  return (
    <ul className="config-node-users">
      {usedBy.map((u) => {
        const kind = usageKind(u);
        const count = u.node_ids.length;
        const key = `${kind}:${u.flow_id ?? u.subflow_id ?? u.config_node_id ?? u.name}`;
        const here = kind === "flow" && u.flow_id === currentFlowId && onSelectNode;
        return (
          <li key={key} data-user={key}>
            <span className="muted">{kind}</span>{" "}
            {here ? (
              <strong>{u.name} (this flow)</strong>
            ) : kind === "flow" ? (
              <Link href={`/flows/${encodeURIComponent(u.flow_id!)}`}>{u.name}</Link>
            ) : kind === "subflow" ? (
              <Link href={`/subflows/${encodeURIComponent(u.subflow_id!)}`}>{u.name}</Link>
            ) : (
              <span>{u.name}</span>
            )}
            {kind !== "configuration node" ? <span className="muted"> · {count} node{count === 1 ? "" : "s"}</span> : null}
            {here ? (
              <span className="config-node-user-nodes">
                {u.node_ids.map((id) => (
                  <button key={id} type="button" className="link" onClick={() => onSelectNode(id)} aria-label={`Select node ${nodeLabel(id)}`}>
                    {nodeLabel(id)}
                  </button>
                ))}
              </span>
            ) : null}
          </li>
        );
      })}
    </ul>
  );
}
