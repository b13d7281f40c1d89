import type { NodeTypes } from "@xyflow/react";
import { FlowNodeComponent } from "./flow-node";
import { JunctionNodeComponent } from "./junction-node";

/**
 * The canvas's node components by React Flow node type. A new kind of canvas element drawn as a
 * React Flow node (a junction's dot, a group's box) is one file in canvas/ and one line here; its
 * editor node carries that `type`. At module scope: a new object on every render would remount
 * every node.
 */
export const nodeTypes: NodeTypes = {
  flow: FlowNodeComponent,
  junction: JunctionNodeComponent,
};
