import type { NodeFactory } from "../../runtime/types";

/** A note on the canvas: it has no behaviour. */
export const commentBehaviour: NodeFactory = () => ({});
