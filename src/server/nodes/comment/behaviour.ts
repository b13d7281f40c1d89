import { commentNode } from "./definition";
import { defineBehaviour } from "../types";

/** A note on the canvas: it has no behaviour. */
export const commentBehaviour = defineBehaviour(commentNode, () => ({}));
