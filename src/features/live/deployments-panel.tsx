"use client";

import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { errorInfo, useTRPC } from "@/trpc/react";
import { describeDeployments } from "./deployment-history";
import type { FlowLive } from "./use-flow-live";

interface NodeRef {
  id: string;
  type: string;
  name: string;
}

function relative(iso: string, now: number): string {
  // Never "in 3 seconds": `now` is when the panel opened, and a deploy since then is newer.
  const s = Math.max(0, Math.round((now - new Date(iso).getTime()) / 1000));
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
  if (s < 45) return rtf.format(-s, "second");
  if (s < 45 * 60) return rtf.format(-Math.round(s / 60), "minute");
  if (s < 36 * 3600) return rtf.format(-Math.round(s / 3600), "hour");
  return rtf.format(-Math.round(s / 86400), "day");
}

/** The moment itself (to the second: redeploys of one revision can be a minute apart or less). */
function absolute(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
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
 * The `Deployments` panel: each deployment's revision, who, when (to the second, since one revision
 * can be deployed many times), whether it is the current one, a redeploy or a rollback, what it
 * changed against the one before (nodes added / changed / removed), and `Roll back` for members on
 * every deployment but the current one. Refreshed by
 * `flow.deployed` events, so a deploy anywhere shows up at once.
 */
export function DeploymentsPanel({ flowId, live, canDeploy, onRolledBack }: { flowId: string; live: FlowLive; canDeploy: boolean; onRolledBack?: () => void | Promise<void> }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.flows.deployments.queryOptions({ id: flowId, limit: 50 }));
  const rollback = useMutation(trpc.flows.rollback.mutationOptions());
  const [error, setError] = useState<string | null>(null);
  const [now] = useState(() => Date.now());
  const infos = list.data ? describeDeployments(list.data.deployments, canDeploy) : [];

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
          {list.data.deployments.map((d, i) => {
            const info = infos[i]!;
            const c = d.changes;
            const none = c.added.length + c.changed.length + c.removed.length === 0;
            const when = absolute(d.deployed_at);
            return (
              <li key={d.id} className={info.current ? "current" : undefined} data-testid="deployment" aria-current={info.current ? "true" : undefined}>
                <div className="deployment-head">
                  <strong>Revision {d.revision}</strong>
                  {info.current && (
                    <span className="badge ok" title="The deployment this flow runs now">
                      current
                    </span>
                  )}
                  {d.rolled_back_from && <span className="badge">rollback</span>}
                  {info.redeploy && (
                    <span className="badge" title="The same revision as the deployment before it, deployed again">
                      redeploy
                    </span>
                  )}
                </div>
                <div className="muted">
                  Deployed <time dateTime={d.deployed_at}>{when}</time> ({relative(d.deployed_at, now)}) by {d.deployed_by_name ?? "a former member"}
                </div>
                {d.rolled_back_from && (
                  <div className="muted">
                    Rolled back to {info.rolledBackTo ? <>the deployment of {absolute(info.rolledBackTo.deployed_at)}</> : "an earlier deployment"}
                  </div>
                )}
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
                {info.canRollBack && (
                  <button
                    type="button"
                    className="small secondary"
                    aria-label={`Roll back to revision ${d.revision}, deployed ${when}`}
                    disabled={rollback.isPending}
                    onClick={() => onRollback(d.id)}
                  >
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
