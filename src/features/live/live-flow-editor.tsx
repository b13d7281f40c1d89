"use client";

import { useMemo } from "react";
import { FlowEditor, type FlowEditorProps } from "@/features/editor/flow-editor";
import { useEditor } from "@/features/editor/editor-api";
import type { EditorRuntime } from "@/features/editor/runtime-context";
import { useTRPCClient } from "@/trpc/react";
import { LiveProvider, useLiveUserId } from "./live-context";
import { OfflineBanner } from "./offline-banner";
import { useFlowLive, type FlowLive } from "./use-flow-live";
import { useDebugFeed, type DebugFeed } from "./use-debug-feed";
import { DeployControl } from "./flow-state";
import { InjectButton } from "./node-live";
import { DebugPanel } from "./debug-panel";
import { DeploymentsPanel } from "./deployments-panel";
import { ContextPanel } from "./context-panel";
import { PresenceAvatars } from "./presence-avatars";
import { RemoteChangeNotice } from "./remote-change-notice";
import type { EditorBridge } from "./editor-bridge";
import { VariablesPanel, useVariableUsage } from "./variables-panel";

/** The editor's nodes as the variable hints read them. */
function useNodeRefs() {
  const api = useEditor();
  return useMemo(() => api.nodes.map((n) => ({ id: n.id, type: n.data.type, name: n.data.name, config: n.data.config })), [api.nodes]);
}

export interface LiveFlowEditorProps extends Omit<FlowEditorProps, "toolbar" | "sidebarTabs" | "runtime"> {
  canDeploy: boolean;
  canInject: boolean;
  /** Members and above set and delete context keys (the Context tab). */
  canEditContext?: boolean;
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
  };
}

function LiveToolbar({ live, canDeploy }: { live: FlowLive; canDeploy: boolean }) {
  const editor = useBridge();
  const api = useEditor();
  const me = useLiveUserId();
  const { usage, loaded } = useVariableUsage(api.flowId, useNodeRefs());
  const undefinedVariables = loaded ? usage.filter((u) => !u.definition).map((u) => u.name) : [];
  return (
    <>
      <DeployControl editor={editor} live={live} canDeploy={canDeploy} undefinedVariables={undefinedVariables} />
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

function DebugTab({ feed }: { feed: DebugFeed }) {
  const api = useEditor();
  const nodes = useMemo(() => api.nodes.map((n) => ({ id: n.id, type: n.data.type, name: n.data.name })), [api.nodes]);
  return (
    <DebugPanel
      feed={feed}
      nodes={nodes}
      onSelectNode={(id) => {
        if (!api.nodes.some((n) => n.id === id)) return;
        api.selectNode(id);
        api.highlightNode(id);
      }}
    />
  );
}

function VariablesTab() {
  const api = useEditor();
  const nodes = useNodeRefs();
  return (
    <VariablesPanel
      flowId={api.flowId}
      nodes={nodes}
      onSelectNode={(id) => {
        api.selectNode(id);
        api.highlightNode(id);
      }}
    />
  );
}

function DeploymentsTab({ live, canDeploy }: { live: FlowLive; canDeploy: boolean }) {
  const api = useEditor();
  const client = useTRPCClient();
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

function LiveEditor({ canDeploy, canInject, canEditContext = false, ...props }: LiveFlowEditorProps) {
  const live = useFlowLive(props.flow.id);
  const feed = useDebugFeed(props.flow.id);
  const { statuses, runtime: flowRuntime } = live;
  const runtime = useMemo<EditorRuntime>(
    () => ({
      statusFor: (nodeId) => {
        const s = statuses.get(nodeId);
        return s && (s.text || s.fill) ? { fill: s.fill, shape: s.shape, text: s.text ?? "" } : null;
      },
      renderNodeAction: (node) => (node.data.type === "inject" ? <InjectButton nodeId={node.id} runtime={flowRuntime} canInject={canInject} /> : null),
    }),
    [statuses, flowRuntime, canInject],
  );
  const sidebarTabs = [
    { id: "debug", label: "Debug", render: () => <DebugTab feed={feed} /> },
    { id: "deployments", label: "Deployments", render: () => <DeploymentsTab live={live} canDeploy={canDeploy} /> },
    { id: "context", label: "Context", render: () => <ContextPanel flowId={props.flow.id} canEdit={canEditContext} /> },
    { id: "variables", label: "Variables", render: () => <VariablesTab /> },
  ];
  return (
    <FlowEditor {...props} toolbar={<LiveToolbar live={live} canDeploy={canDeploy} />} sidebarTabs={sidebarTabs} runtime={runtime} />
  );
}

/**
 * The flow editor made live (issue 12): Deploy and the flow's state in the toolbar, presence and
 * "changed elsewhere" notices, Inject on inject nodes, node statuses under nodes, and the Debug and
 * Deployments sidebar tabs, all fed by one WebSocket.
 */
export function LiveFlowEditor(props: LiveFlowEditorProps) {
  return (
    <LiveProvider>
      <LiveEditor {...props} />
    </LiveProvider>
  );
}
