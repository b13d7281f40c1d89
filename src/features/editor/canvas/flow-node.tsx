"use client";

import { memo, useContext, useEffect, useRef } from "react";
import { Handle, Position, useUpdateNodeInternals, type NodeProps } from "@xyflow/react";
import { SUBFLOW_ICON, UNKNOWN_ICON, categoryColors, labelShown, portTop, type EditorNode } from "../model";
import { AppearanceIcon } from "../appearance-icon";
import { NodeMarksContext, useEditorRuntime } from "../runtime-context";
import { DecorationsContext } from "./decorations";
import { nodeLabel } from "@/shared/node-labels";

/**
 * The one canvas node: category colour and icon, the name (the type when unnamed), an input on the
 * left, one output per port on the right (a switch node's follow its rules). Its appearance (Node-RED's
 * Appearance tab) may hide the label (the icon alone; the label stays its accessible name), name
 * another icon and label its ports (their tooltips, as in Node-RED). Disabled nodes are
 * faded and dashed, unknown ones striped with their Node-RED type. Memoized: while one node is
 * dragged, the others do not render again. Canvas decorations (decorations.tsx) add their class,
 * badge, note (over the node) and detail (a popover while the node is hovered or focused).
 */
function FlowNodeView({ id, data, selected }: NodeProps<EditorNode>) {
  const updateNodeInternals = useUpdateNodeInternals();
  const marks = useContext(NodeMarksContext);
  const runtime = useEditorRuntime();
  const decoration = useContext(DecorationsContext).nodes.get(id);
  const { outputs, inputs } = data;
  // React Flow measures handles on mount; only a change of ports afterwards needs telling.
  const ports = useRef(`${inputs}/${outputs}`);
  useEffect(() => {
    if (ports.current === `${inputs}/${outputs}`) return;
    ports.current = `${inputs}/${outputs}`;
    updateNodeInternals(id);
  }, [id, outputs, inputs, updateNodeInternals]);
  const changed = marks.changed.get(id);
  const status = runtime.statusFor?.(id);
  const classes = [
    "fp-node",
    data.disabled ? "disabled" : "",
    data.type === "unknown" ? "unknown" : "",
    selected ? "selected" : "",
    marks.found.has(id) ? "found" : "",
    marks.highlighted === id ? "highlighted" : "",
    labelShown(data) ? "" : "label-hidden",
    decoration?.className ?? "",
  ].join(" ");
  // Port labels (Node-RED's inputLabels / outputLabels): each port's tooltip.
  const inputLabel = data.appearance?.input_labels?.[0] || undefined;
  const outputLabel = (i: number) => data.appearance?.output_labels?.[i] || undefined;
  // Unnamed: what Node-RED's editor writes there ([get] /hello, delay 5s, set msg.payload), else the type.
  const label = !data.name && data.subflowName ? data.subflowName : nodeLabel(data);
  return (
    <div className={classes} style={{ ["--cat" as string]: data.color ?? categoryColors[data.category] ?? "#ddd" }} title={data.unknownType ? `Unknown type ${data.unknownType}` : labelShown(data) ? undefined : label}>
      {inputs > 0 ? <Handle type="target" position={Position.Left} id="in" isConnectable={!marks.readOnly} title={inputLabel} /> : null}
      <span className="fp-node-icon" aria-hidden="true">
        {data.subflowName && !data.appearance?.icon ? SUBFLOW_ICON : <AppearanceIcon icon={data.appearance?.icon} svg={data.icon} fallback={data.subflowName ? SUBFLOW_ICON : UNKNOWN_ICON} />}
      </span>
      <span className="fp-node-label">
        {label}
        {data.unknownType ? <span className="fp-node-sub">{data.unknownType}</span> : null}
        {data.subflowName && data.name ? <span className="fp-node-sub subflow">{data.subflowName}</span> : null}
      </span>
      {changed ? (
        <span className={`fp-node-changed ${changed}`} title={changed === "added" ? "Added since the last deploy" : "Changed since the last deploy"}>
          <span className="visually-hidden">{changed === "added" ? "added since deploy" : "changed since deploy"}</span>
        </span>
      ) : null}
      {data.disabled ? <span className="visually-hidden">(disabled)</span> : null}
      {decoration?.badge ? (
        <span className="fp-node-badge" title={decoration.badgeLabel}>
          <span aria-hidden="true">{decoration.badge}</span>
          {decoration.badgeLabel ? <span className="visually-hidden">{decoration.badgeLabel}</span> : null}
        </span>
      ) : null}
      {decoration?.note ? (
        <span className="fp-node-note" data-testid="node-note">
          {decoration.note}
        </span>
      ) : null}
      {decoration?.detail ? (
        <div className="fp-node-detail nodrag nowheel" role="tooltip" data-testid="node-detail">
          {decoration.detail}
        </div>
      ) : null}
      {runtime.renderNodeAction ? <span className="fp-node-action nodrag">{runtime.renderNodeAction({ id, data } as EditorNode)}</span> : null}
      {Array.from({ length: outputs }, (_, i) => (
        <Handle key={i} type="source" position={Position.Right} id={`o${i}`} style={{ top: portTop(i, outputs) }} isConnectable={!marks.readOnly} title={outputLabel(i)} />
      ))}
      {status ? (
        <span className={`fp-node-status ${status.fill ?? ""}`} data-testid="node-status">
          <span className={`dot ${status.shape ?? "dot"}`} aria-hidden="true" />
          {status.text}
        </span>
      ) : null}
    </div>
  );
}

export const FlowNodeComponent = memo(FlowNodeView);
