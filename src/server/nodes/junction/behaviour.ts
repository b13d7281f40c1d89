import { junctionNode } from "./definition";
import { defineBehaviour } from "../types";

/** Passes every message on unchanged, as Node-RED's junction does. */
export const junctionBehaviour = defineBehaviour(junctionNode, () => ({
  input(msg, send, done) {
    send(msg);
    done();
  },
}));
