import { completeNode } from "./definition";
import { defineBehaviour } from "../types";

/** The engine sends completed messages out of complete nodes itself (FlowEngine.routeToComplete): nothing to do here. */
export const completeBehaviour = defineBehaviour(completeNode, () => ({}));
