import { statusNode } from "./definition";
import { defineBehaviour } from "../types";

/** The engine sends the statuses out of status nodes itself (FlowEngine.routeToStatus): nothing to do here. */
export const statusBehaviour = defineBehaviour(statusNode, () => ({}));
