"use client";

import { memo, useContext } from "react";
import { Handle, Position, type NodeProps } from "@xyflow/react";
import type { EditorNode } from "../model";
import { NodeMarksContext } from "../runtime-context";

/** A junction (SPEC §16): a small dot with one input and one output that wires pass through. */
function JunctionView({ selected }: NodeProps<EditorNode>) {
  const marks = useContext(NodeMarksContext);
  return (
    <div className={`fp-junction${selected ? " selected" : ""}`} title="junction">
      <Handle type="target" position={Position.Left} id="in" isConnectable={!marks.readOnly} />
      <Handle type="source" position={Position.Right} id="o0" isConnectable={!marks.readOnly} />
    </div>
  );
}

export const JunctionNodeComponent = memo(JunctionView);
