"use client";

import { useEditor } from "@/features/editor/editor-api";
import type { SidebarTab } from "@/features/editor/sidebar/tab";
import { useTRPCClient } from "@/trpc/react";
import { DeploymentsPanel } from "../deployments-panel";
import { useLiveTabs } from "./live-tabs-context";

/** The flow's deployments, with rollback. */
function DeploymentsTab() {
  const api = useEditor();
  const client = useTRPCClient();
  const { live, canDeploy } = useLiveTabs();
  return (
    <DeploymentsPanel
      flowId={api.flowId}
      live={live}
      canDeploy={canDeploy}
      onRolledBack={async () => {
        api.refreshDeployed();
        // A rollback changes what runs, not the saved flow; an untouched editor shows the server's flow again.
        if (!api.dirty) api.replaceGraph((await client.flows.get.query({ id: api.flowId })).flow);
      }}
    />
  );
}

export const deploymentsTab: SidebarTab = { id: "deployments", label: "Deployments", component: DeploymentsTab };
