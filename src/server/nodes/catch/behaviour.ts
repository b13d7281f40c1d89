import type { NodeFactory } from "../../runtime/types";

/** The engine routes errors out of catch nodes itself (see FlowEngine.handleError): nothing to do here. */
export const catchBehaviour: NodeFactory = () => ({});
