import type { NodeFactory } from "../../runtime/types";

/** Passes every message on unchanged, as Node-RED's junction does. */
export const junctionBehaviour: NodeFactory = () => ({
  input(msg, send, done) {
    send(msg);
    done();
  },
});
