"use client";

import { memo, useCallback, useSyncExternalStore } from "react";
import type { DashboardWidgetView } from "@/shared/dashboard";
import { useDashboard } from "./dashboard-context";
import { initialWidgetState, effectiveProps } from "./widget-state";
import { autoRows, WIDGET_COMPONENTS } from "./widgets";
import { str } from "./widgets/widget";

/**
 * One widget on the grid: subscribes to its own state, so an update re-renders it alone. Places it
 * as Dashboard 2.0's Group.vue does (`width` 0 = the group's width; `height` rows of at least
 * --widget-row-height: content taller than its rows grows them, as Dashboard 2.0's auto rows do,
 * never overflows into the next widget), with its tooltip, class and the `enabled` / `visible`
 * dynamic properties. Its element carries Dashboard 2.0's hooks for CSS (`nrdb-ui-widget`,
 * `nrdb-<type>`, the node's class, the id `nrdb-ui-widget-<id>`), as the group's and page's do.
 */
export const WidgetHost = memo(function WidgetHost({ widget, groupWidth, groupDisabled, placement }: { widget: DashboardWidgetView; groupWidth: number; groupDisabled: boolean; placement?: "app-bar" }) {
  const { store, interactive, sendInput, upload: uploadTo } = useDashboard();
  const subscribe = useCallback((cb: () => void) => store.subscribeWidget(widget.id, cb), [store, widget.id]);
  const state = useSyncExternalStore(subscribe, () => store.getState(widget.id), () => store.getState(widget.id)) ?? initialWidgetState(widget);
  const send = useCallback((event: string, msg: Record<string, unknown>) => void sendInput(widget.id, event, msg), [sendInput, widget.id]);
  const upload = useCallback((file: File, onProgress?: (fraction: number) => void) => uploadTo(widget.id, file, onProgress), [uploadTo, widget.id]);
  const setLocal = useCallback((payload: unknown) => store.setLocalValue(widget.id, payload), [store, widget.id]);
  const Component = WIDGET_COMPONENTS[widget.type];
  if (!Component) return null;
  const props = effectiveProps(widget, state);
  if (props.visible === false) return null;
  const enabled = props.enabled !== false && !groupDisabled;
  const width = widget.width > 0 ? Math.min(widget.width, groupWidth) : groupWidth;
  const height = widget.height > 0 ? widget.height : autoRows(widget.type, props);
  const className = [`db-widget`, "nrdb-ui-widget", `nrdb-${widget.type}`, str(props, "className"), str(props, "class")].filter(Boolean).join(" ");
  return (
    <div
      id={`nrdb-ui-widget-${widget.id}`}
      className={className}
      data-widget-id={widget.id}
      data-widget-type={widget.type}
      title={str(props, "tooltip") || undefined}
      style={{ gridColumnEnd: `span min(${width}, var(--layout-columns))`, gridRowEnd: `span ${height}`, ...(widget.height > 0 ? { gridTemplateRows: `repeat(${height}, minmax(var(--widget-row-height), auto))` } : {}) }}
    >
      <Component widget={widget} props={props} state={state} interactive={interactive && enabled} send={send} upload={upload} setLocal={setLocal} inputId={`w-${widget.id}`} placement={placement} />
    </div>
  );
});
