"use client";

import { useMemo, useState } from "react";
import { FlowEditor, type FlowEditorProps } from "@/features/editor/flow-editor";
import { useEditor } from "@/features/editor/editor-api";
import type { EditorRuntime } from "@/features/editor/runtime-context";
import { useTRPCClient } from "@/trpc/react";
import { LiveProvider, useLiveUserId } from "./live-context";
import { OfflineBanner } from "./offline-banner";
import { useFlowLive, type FlowLive } from "./use-flow-live";
import { useDebugFeed } from "./use-debug-feed";
import { DeployControl, type DeviceState } from "./flow-state";
import { DebugButton, InjectButton } from "./node-live";
import { PresenceAvatars } from "./presence-avatars";
import { RemoteChangeNotice } from "./remote-change-notice";
import type { EditorBridge } from "./editor-bridge";
import { useVariableUsage } from "./variables-panel";
import { LIVE_TABS } from "./tabs/registry";
import { LiveTabsContext, type LiveTabs } from "./tabs/live-tabs-context";
import { useNodeRefs } from "./tabs/node-refs";
import { OpenDashboardLink } from "./open-dashboard";
import { TargetControl, type DeviceChoice, type FlowTarget } from "./target-control";

export interface LiveFlowEditorProps extends Omit<FlowEditorProps, "toolbar" | "sidebarTabs" | "runtime"> {
  canDeploy: boolean;
  canInject: boolean;
  /** Members and above set and delete context keys (the Context tab). */
  canEditContext?: boolean;
  /** Members and above replay executions (the Executions tab). */
  canReplay?: boolean;
  /** Where the flow runs (SPEC §22), and the devices it may target; absent: the selector is not shown. */
  target?: { value: FlowTarget; devices: DeviceChoice[]; canWrite: boolean; states?: DeviceState[] };
}

/** The editor's API as the live parts use it. */
function useBridge(): EditorBridge {
  const api = useEditor();
  const client = useTRPCClient();
  return {
    flowId: api.flowId,
    revision: api.revision,
    dirty: api.dirty,
    changedSinceDeploy: api.changedSinceDeploy,
    refreshDeployed: api.refreshDeployed,
    save: async () => ({ ok: await api.save() }),
    adoptRevision: api.adoptRevision,
    reload: async () => api.replaceGraph((await client.flows.get.query({ id: api.flowId })).flow),
    highlightNode: (id) => {
      api.selectNode(id);
      api.highlightNode(id);
    },
    nodeName: (id) => {
      const node = api.nodes.find((n) => n.id === id);
      return node ? node.data.name || node.data.type : null;
    },
  };
}

function LiveToolbar({ live, canDeploy, target }: { live: FlowLive; canDeploy: boolean; target?: LiveFlowEditorProps["target"] }) {
  const editor = useBridge();
  const api = useEditor();
  const me = useLiveUserId();
  const { usage, loaded } = useVariableUsage(api.flowId, useNodeRefs());
  const undefinedVariables = loaded ? usage.filter((u) => !u.definition).map((u) => u.name) : [];
  return (
    <>
      {target ? <TargetControl editor={editor} target={target.value} devices={target.devices} canWrite={target.canWrite} /> : null}
      <DeployControl editor={editor} live={live} canDeploy={canDeploy} undefinedVariables={undefinedVariables} devices={target?.states} />
      <OpenDashboardLink />
      <PresenceAvatars users={live.presence} me={me} />
      <div className="live-toolbar-notice">
        <OfflineBanner />
        <RemoteChangeNotice
          change={live.remote}
          editor={editor}
          people={live.presence}
          me={me}
          onDismiss={() => {
            live.dismissRemote();
            if (live.remote?.kind === "deployed") api.refreshDeployed();
          }}
        />
      </div>
    </>
  );
}

function LiveEditor({ canDeploy, canInject, canEditContext = false, canReplay = false, target, ...props }: LiveFlowEditorProps) {
  const live = useFlowLive(props.flow.id);
  const feed = useDebugFeed(useMemo(() => ({ kind: "flow" as const, flowId: props.flow.id }), [props.flow.id]));
  const { statuses, runtime: flowRuntime } = live;
  const runtime = useMemo<EditorRuntime>(
    () => ({
      statusFor: (nodeId) => {
        const s = statuses.get(nodeId);
        return s && (s.text || s.fill) ? { fill: s.fill, shape: s.shape, text: s.text ?? "" } : null;
      },
      renderNodeAction: (node) =>
        node.data.type === "inject" ? (
          <InjectButton nodeId={node.id} runtime={flowRuntime} canInject={canInject} />
        ) : node.data.type === "debug" ? (
          <DebugButton node={node} runtime={flowRuntime} canSwitch={canDeploy} />
        ) : null,
    }),
    [statuses, flowRuntime, canInject, canDeploy],
  );
  const [selectedExecutionId, selectExecution] = useState<string | null>(null);
  const tabs = useMemo<LiveTabs>(
    () => ({ live, feed, canDeploy, canEditContext, canReplay, selectedExecutionId, selectExecution }),
    [live, feed, canDeploy, canEditContext, canReplay, selectedExecutionId],
  );
  return (
    <LiveTabsContext.Provider value={tabs}>
      <FlowEditor {...props} toolbar={<LiveToolbar live={live} canDeploy={canDeploy} target={target} />} sidebarTabs={LIVE_TABS} runtime={runtime} />
    </LiveTabsContext.Provider>
  );
}

/**
 * The flow editor made live (issue 12): Deploy and the flow's state in the toolbar, presence and
 * "changed elsewhere" notices, Inject on inject nodes, node statuses under nodes, and the sidebar
 * tabs of tabs/registry.ts (Debug, Executions, Deployments, Context, Variables), all fed by one WebSocket.
 */
export function LiveFlowEditor(props: LiveFlowEditorProps) {
  return (
    <LiveProvider>
      <LiveEditor {...props} />
    </LiveProvider>
  );
}
