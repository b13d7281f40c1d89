import { linkInNode } from "./definition";
import { defineBehaviour } from "../types";

/** Messages arrive from link-out and link-call nodes (FlowEngine.deliverLink) and leave as they came. */
export const linkInBehaviour = defineBehaviour(linkInNode, () => ({
  input(msg, send, done) {
    send(msg);
    done();
  },
}));
