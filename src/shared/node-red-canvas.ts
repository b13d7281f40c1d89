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
/** A node whose label is hidden (Node-RED's `l: false`, a link in or out by default): its icon alone. */
export const ICON_NODE_WIDTH = 40;
/** A junction's dot (SPEC §16), placed by its corner too. */
export const JUNCTION_SIZE = 16;
/** The distance between two output ports: a node with many grows taller. */
export const PORT_GAP = 16;
export const nodeHeight = (outputs: number) => Math.max(NODE_HEIGHT, 12 + outputs * PORT_GAP);

const SCALE_X = 1.5;
const SCALE_Y = 4 / 3;

export interface CanvasPoint {
  x: number;
  y: number;
}

/** The size of what is placed: a node's box, or a junction's dot. */
export interface CanvasBox {
  width: number;
  height: number;
}

/** A node with its label and one output. */
export const DEFAULT_BOX: CanvasBox = { width: NODE_WIDTH, height: NODE_HEIGHT };
export const JUNCTION_BOX: CanvasBox = { width: JUNCTION_SIZE, height: JUNCTION_SIZE };

/**
 * Whether a node is drawn with its label: as its appearance says (Node-RED's `l`), else as its
 * type's default (a link in or out hides it). One rule for the editor and the import's layout.
 */
export const labelShownOf = (showLabel: boolean | undefined, typeHidesLabel: boolean | undefined): boolean => showLabel ?? typeHidesLabel !== true;

/**
 * The box the editor draws a node in: a junction's dot; else as wide as its label (or its icon
 * alone when the label is hidden) and as tall as its outputs need. Node-RED's position is the
 * box's centre whatever its size, so a link node or a switch with four outputs sits where Node-RED
 * has it only if it is placed by its own box.
 */
export function canvasBox(node: { junction?: boolean; labelShown?: boolean; outputs?: number }): CanvasBox {
  if (node.junction) return JUNCTION_BOX;
  return { width: node.labelShown === false ? ICON_NODE_WIDTH : NODE_WIDTH, height: nodeHeight(node.outputs ?? 1) };
}

/** Node-RED's `x`, `y` (a centre; anything not a number reads as 0) → our position of a box that size. */
export function fromNodeRedPosition(x: unknown, y: unknown, box: CanvasBox = DEFAULT_BOX): CanvasPoint {
  return { x: Math.round((Number(x ?? 0) || 0) * SCALE_X - box.width / 2), y: Math.round((Number(y ?? 0) || 0) * SCALE_Y - box.height / 2) };
}

/** Our position of a box that size → Node-RED's `x`, `y` (the centre, in Node-RED's spacing). */
export function toNodeRedPosition(position: CanvasPoint, box: CanvasBox = DEFAULT_BOX): CanvasPoint {
  return { x: Math.round((position.x + box.width / 2) / SCALE_X), y: Math.round((position.y + box.height / 2) / SCALE_Y) };
}
