"use client";

import { useMemo } from "react";
import { DASHBOARD_WIDGET_TYPES } from "@/shared/dashboard";
import { useEditor } from "@/features/editor/editor-api";
import { useConfigNodeList } from "@/features/editor/config-nodes/use-config-nodes";
import { dashboardHref, useOrgSlug } from "@/features/editor/sidebar/dashboard-tab";

const WIDGETS = new Set<string>(DASHBOARD_WIDGET_TYPES);

/**
 * "Open dashboard" in the toolbar of a flow with dashboard widgets: the page of its first widget's
 * group (ui-group → ui-page → path), in a new tab. The page shows what is deployed.
 */
export function OpenDashboardLink() {
  const { nodes } = useEditor();
  const slug = useOrgSlug();
  const widget = nodes.find((n) => WIDGETS.has(n.data.type));
  const { nodes: config } = useConfigNodeList();
  const path = useMemo(() => {
    if (!widget || !config) return null;
    const groupId = widget.data.config.group;
    const group = config.find((c) => c.id === groupId && c.type === "ui-group");
    const page = config.find((c) => c.type === "ui-page" && (group ? c.id === group.config.page : true));
    return page && typeof page.config.path === "string" ? page.config.path : "/";
  }, [widget, config]);
  if (!widget || !slug || path === null) return null;
  return (
    <a className="button secondary small open-dashboard" href={dashboardHref(slug, path)} target="_blank" rel="noopener">
      Open dashboard
    </a>
  );
}
