/** What the Deployments panel needs of one deployment (newest first, as flows.deployments lists them). */
export interface DeploymentLike {
  id: string;
  revision: number;
  deployed_at: string;
  rolled_back_from: string | null;
}

export interface DeploymentEntryInfo {
  /** The deployment the flow runs now: the newest, since every deploy and rollback makes a new one current. */
  current: boolean;
  /** Roll back is offered on every deployment but the one running (rolling back to it would change nothing). */
  canRollBack: boolean;
  /** A rollback: the deployment it restored, when it is on this page of the history. */
  rolledBackTo: DeploymentLike | null;
  /** The same revision deployed again (a subflow or configuration node it uses changed, or Deploy pressed twice). */
  redeploy: boolean;
}

/** Per deployment of a newest-first list: which is current, which may be rolled back to, and which are redeploys or rollbacks. */
export function describeDeployments(deployments: readonly DeploymentLike[], canDeploy: boolean): DeploymentEntryInfo[] {
  const byId = new Map(deployments.map((d) => [d.id, d]));
  return deployments.map((d, i) => {
    const current = i === 0;
    const before = deployments[i + 1];
    return {
      current,
      canRollBack: canDeploy && !current,
      rolledBackTo: d.rolled_back_from ? (byId.get(d.rolled_back_from) ?? null) : null,
      redeploy: !d.rolled_back_from && before !== undefined && before.revision === d.revision,
    };
  });
}
