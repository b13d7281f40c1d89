"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/trpc/react";
import { definitionOf, variablesUsed } from "@/shared/variable-references";
import type { Variable } from "@/features/organizations/types";

interface NodeRef {
  id: string;
  type: string;
  name: string;
  config: Record<string, unknown>;
}

export interface VariableUsage {
  name: string;
  nodes: NodeRef[];
  /** Where it is defined for this flow; undefined: nowhere (it resolves to "" / undefined). */
  definition: Variable | undefined;
}

/** The variables this flow's nodes use, each with its definition for the flow (the flow's over the organization's). */
export function useVariableUsage(flowId: string, nodes: NodeRef[]): { usage: VariableUsage[]; loaded: boolean } {
  const trpc = useTRPC();
  const list = useQuery({ ...trpc.variables.list.queryOptions(), staleTime: 5_000 });
  const variables = list.data?.variables ?? [];
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const usage = variablesUsed(nodes).map((use) => ({
    name: use.name,
    nodes: use.nodeIds.map((id) => byId.get(id)!),
    definition: definitionOf(variables, flowId, use.name),
  }));
  return { usage, loaded: list.isSuccess };
}

/**
 * The `Variables` sidebar tab: every `${NAME}` (and function code's env.get("NAME")) this flow uses,
 * where each is defined (this flow, the organization, as a secret) or that it is not, and the nodes
 * using it. Values are defined under Settings → Variables.
 */
export function VariablesPanel({ flowId, nodes, onSelectNode }: { flowId: string; nodes: NodeRef[]; onSelectNode: (id: string) => void }) {
  const { usage, loaded } = useVariableUsage(flowId, nodes);
  return (
    <section className="variables-panel" role="region" aria-label="Variables used">
      {usage.length === 0 ? (
        <p className="muted">
          No node uses a variable. Write <code>{"${NAME}"}</code> in a property (or <code>env.get(&quot;NAME&quot;)</code> in function code).
        </p>
      ) : (
        <ul className="variable-uses">
          {usage.map((u) => (
            <li key={u.name}>
              <code>{u.name}</code>{" "}
              {!loaded ? null : u.definition ? (
                <span className="muted">
                  {u.definition.flow_id ? "this flow" : "organization"}
                  {u.definition.secret ? ", secret" : ""}
                  {u.definition.secret && u.definition.allowed_hosts ? `, only to ${u.definition.allowed_hosts.join(", ")}` : ""}
                </span>
              ) : (
                <span className="badge warn">Undefined</span>
              )}
              <ul className="variable-nodes">
                {u.nodes.map((n) => (
                  <li key={n.id}>
                    <button type="button" className="link" onClick={() => onSelectNode(n.id)}>
                      {n.name || n.type}
                    </button>
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      )}
      <p className="hint">
        <Link href="/settings/variables">Settings → Variables</Link>
      </p>
    </section>
  );
}
