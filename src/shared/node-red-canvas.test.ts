import { describe, expect, it } from "vitest";
import { canvasBox, fromNodeRedPosition, ICON_NODE_WIDTH, JUNCTION_BOX, labelShownOf, NODE_HEIGHT, NODE_WIDTH, toNodeRedPosition } from "./node-red-canvas";

describe("positions between Node-RED's canvas and ours", () => {
  it("gives back Node-RED's whole numbers after the round trip, for nodes of every size and junctions", () => {
    const boxes = [canvasBox({}), canvasBox({ junction: true }), canvasBox({ labelShown: false }), canvasBox({ outputs: 5 }), canvasBox({ labelShown: false, outputs: 3 })];
    for (let x = -50; x <= 2000; x += 7) {
      for (const y of [-20, 0, 1, 33, 40, 59, 60, 61, 100, 999, 1001]) {
        for (const box of boxes) expect(toNodeRedPosition(fromNodeRedPosition(x, y, box), box)).toEqual({ x, y });
      }
    }
  });

  it("centres a box of any size on Node-RED's centre: a link node's icon, a switch with four outputs", () => {
    const centreOf = (p: { x: number; y: number }, box: { width: number; height: number }) => ({ x: p.x + box.width / 2, y: p.y + box.height / 2 });
    const icon = canvasBox({ labelShown: false });
    expect(icon.width).toBe(ICON_NODE_WIDTH);
    const tall = canvasBox({ outputs: 4 });
    expect(tall.height).toBeGreaterThan(NODE_HEIGHT);
    for (const box of [icon, tall, canvasBox({})]) expect(centreOf(fromNodeRedPosition(120, 80, box), box)).toEqual({ x: 180, y: 107 });
  });

  it("keeps a node's centre where Node-RED has it, scaled, so boxes at Node-RED's spacing do not overlap", () => {
    // inject → function → debug as Node-RED lays them out: 180 px apart, rows 40 px apart.
    const a = fromNodeRedPosition(120, 80);
    const b = fromNodeRedPosition(300, 80);
    const below = fromNodeRedPosition(120, 120);
    expect(b.x - a.x).toBeGreaterThanOrEqual(NODE_WIDTH + 80);
    expect(below.y - a.y).toBeGreaterThan(NODE_HEIGHT);
    expect({ x: a.x + NODE_WIDTH / 2, y: a.y + NODE_HEIGHT / 2 }).toEqual({ x: 180, y: 107 });
    // A junction's dot is centred on the same point as a node's box.
    const j = fromNodeRedPosition(120, 80, JUNCTION_BOX);
    expect({ x: j.x + 8, y: j.y + 8 }).toEqual({ x: 180, y: 107 });
  });

  it("reads what is not a number as 0, as before", () => {
    expect(fromNodeRedPosition(undefined, "abc")).toEqual(fromNodeRedPosition(0, 0));
    expect(fromNodeRedPosition("240", "60")).toEqual(fromNodeRedPosition(240, 60));
  });

  it("shows a label as the node's appearance says, else as its type's default (link in and out hide theirs)", () => {
    expect([labelShownOf(undefined, undefined), labelShownOf(undefined, false), labelShownOf(undefined, true)]).toEqual([true, true, false]);
    expect([labelShownOf(true, true), labelShownOf(false, false), labelShownOf(false, undefined)]).toEqual([true, false, false]);
  });
});
