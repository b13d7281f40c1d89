"use client";

import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { errorInfo, useTRPC } from "@/trpc/react";
import type { FlowLive } from "./use-flow-live";

interface NodeRef {
  id: string;
  type: string;
  name: string;
}

function relative(iso: string, now: number): string {
  const s = Math.round((now - new Date(iso).getTime()) / 1000);
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
  if (s < 45) return rtf.format(-s, "second");
  if (s < 45 * 60) return rtf.format(-Math.round(s / 60), "minute");
  if (s < 36 * 3600) return rtf.format(-Math.round(s / 3600), "hour");
  return rtf.format(-Math.round(s / 86400), "day");
}

function NodeList({ label, nodes, sign }: { label: string; nodes: NodeRef[]; sign: string }) {
  if (nodes.length === 0) return null;
  return (
    <li>
      <span className={`change-sign ${label}`}>{sign}</span> {nodes.length} {label}: {nodes.map((n) => n.name || `${n.type} (${n.id})`).join(", ")}
    </li>
  );
}

/**
 * The `Deployments` panel: each deployment's revision, who, when, what it changed against the one
 * before (nodes added / changed / removed), and `Roll back` for members. Refreshed by
 * `flow.deployed` events, so a deploy anywhere shows up at once.
 */
export function DeploymentsPanel({ flowId, live, canDeploy, onRolledBack }: { flowId: string; live: FlowLive; canDeploy: boolean; onRolledBack?: () => void | Promise<void> }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.flows.deployments.queryOptions({ id: flowId, limit: 50 }));
  const rollback = useMutation(trpc.flows.rollback.mutationOptions());
  const [error, setError] = useState<string | null>(null);
  const [now] = useState(() => Date.now());
  const current = list.data?.deployments[0]?.id;

  async function onRollback(deploymentId: string) {
    setError(null);
    try {
      const result = await live.markOwnAction(() => rollback.mutateAsync({ id: flowId, deployment_id: deploymentId }));
      live.patchRuntime({ state: result.deployment.state, error: null, deployedRevision: result.deployment.revision });
      await queryClient.invalidateQueries({ queryKey: trpc.flows.deployments.queryKey() });
      await onRolledBack?.();
    } catch (err) {
      setError(errorInfo(err).message);
    }
  }

  return (
    <section className="deployments-panel" role="region" aria-label="Deployments">
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {list.isPending ? (
        <p className="muted">Loading…</p>
      ) : list.isError ? (
        <p className="error" role="alert">
          {errorInfo(list.error).message}
        </p>
      ) : list.data.deployments.length === 0 ? (
        <p className="muted">Not deployed yet.</p>
      ) : (
        <ol className="deployment-list">
          {list.data.deployments.map((d) => {
            const c = d.changes;
            const none = c.added.length + c.changed.length + c.removed.length === 0;
            return (
              <li key={d.id} className={d.id === current ? "current" : undefined} data-testid="deployment">
                <div className="deployment-head">
                  <strong>Revision {d.revision}</strong>
                  {d.id === current && <span className="badge ok">current</span>}
                  {d.rolled_back_from && <span className="badge">rollback</span>}
                </div>
                <div className="muted">
                  {d.deployed_by_name ?? "a former member"} · <time dateTime={d.deployed_at} title={new Date(d.deployed_at).toLocaleString()}>{relative(d.deployed_at, now)}</time>
                </div>
                <ul className="deployment-changes" aria-label={`Changes in revision ${d.revision}`}>
                  {none ? (
                    <li className="muted">No node changes</li>
                  ) : (
                    <>
                      <NodeList label="added" sign="+" nodes={c.added} />
                      <NodeList label="changed" sign="~" nodes={c.changed} />
                      <NodeList label="removed" sign="−" nodes={c.removed} />
                    </>
                  )}
                </ul>
                {canDeploy && d.id !== current && (
                  <button type="button" className="small secondary" disabled={rollback.isPending} onClick={() => onRollback(d.id)}>
                    Roll back
                  </button>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
