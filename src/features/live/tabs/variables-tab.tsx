"use client";

import { useEditor } from "@/features/editor/editor-api";
import type { SidebarTab } from "@/features/editor/sidebar/tab";
import { VariablesPanel } from "../variables-panel";
import { useNodeRefs } from "./node-refs";

/** The variables and secrets this flow uses (SPEC §14). */
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

export const variablesTab: SidebarTab = { id: "variables", label: "Variables", component: VariablesTab };
