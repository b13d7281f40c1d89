import type { NodeFactory } from "../../runtime/types";

/** Messages arrive from link-out and link-call nodes (FlowEngine.deliverLink) and leave as they came. */
export const linkInBehaviour: NodeFactory = () => ({
  input(msg, send, done) {
    send(msg);
    done();
  },
});
