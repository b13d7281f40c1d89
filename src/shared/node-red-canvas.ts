/**
 * Node-RED's canvas and ours. Node-RED places a node by its centre and draws it 100 px wide or
 * more (as wide as its label) and 30 px high; ours places a node by its top-left corner and draws
 * it NODE_WIDTH × NODE_HEIGHT (180 × 40). Node-RED's numbers taken as ours drew its flows with the
 * boxes on top of each other: of the node pairs on one tab of Node-RED's own examples
 * (src/test/fixtures/node-red-examples), 277 overlapped; scaled as below, 2 do.
 *
 * So a position crosses between the two, both ways, scaled (x × 1.5, y × 4/3: our boxes are that
 * much larger) and moved from centre to corner. The round trip gives back the same whole numbers,
 * so a flow imported and exported again keeps Node-RED's layout, and a flow drawn here exports
 * with Node-RED's spacing.
 */

/** A node's box on our canvas (the editor draws a node with its label this size; more outputs make it taller). */
export const NODE_WIDTH = 180;
export const NODE_HEIGHT = 40;
/** A junction's dot (SPEC §16), placed by its corner too. */
export const JUNCTION_SIZE = 16;

const SCALE_X = 1.5;
const SCALE_Y = 4 / 3;

export interface CanvasPoint {
  x: number;
  y: number;
}

/** Half of what is placed: a node's box, or a junction's dot. */
const half = (junction: boolean): CanvasPoint => (junction ? { x: JUNCTION_SIZE / 2, y: JUNCTION_SIZE / 2 } : { x: NODE_WIDTH / 2, y: NODE_HEIGHT / 2 });

/** Node-RED's `x`, `y` (a centre; anything not a number reads as 0) → our position. */
export function fromNodeRedPosition(x: unknown, y: unknown, junction = false): CanvasPoint {
  const h = half(junction);
  return { x: Math.round((Number(x ?? 0) || 0) * SCALE_X - h.x), y: Math.round((Number(y ?? 0) || 0) * SCALE_Y - h.y) };
}

/** Our position → Node-RED's `x`, `y` (the centre, in Node-RED's spacing). */
export function toNodeRedPosition(position: CanvasPoint, junction = false): CanvasPoint {
  const h = half(junction);
  return { x: Math.round((position.x + h.x) / SCALE_X), y: Math.round((position.y + h.y) / SCALE_Y) };
}
