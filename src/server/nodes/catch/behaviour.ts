import { catchNode } from "./definition";
import { defineBehaviour } from "../types";

/** The engine routes errors out of catch nodes itself (see FlowEngine.handleError): nothing to do here. */
export const catchBehaviour = defineBehaviour(catchNode, () => ({}));
