import { describe, expect, it } from "vitest";
import { segmentOf, tileText } from "./widgets/gauge";

describe("ui-gauge segments (Dashboard 2.0's getSegment and tile text)", () => {
  const segs = [
    { from: 0, color: "green", text: "No", textType: "str" },
    { from: 800, color: "yellow", textType: "value" },
    { from: 1000, color: "red", text: "Open a window", textType: "str" },
    { from: 1500, color: "black", textType: "none" },
    { from: 1800, color: "purple" },
  ];

  it("a value is in the last segment whose from it reaches; below them all, in the first", () => {
    expect([-5, 0, 799, 800, 1000, 1499, 1500, 5000].map((v) => segmentOf(v, segs).color)).toEqual(["green", "green", "green", "yellow", "red", "red", "black", "purple"]);
  });

  it("a tile shows its segment's text by its type: str the text, value the value, none nothing, label (or none given) the title", () => {
    expect([10, 900, 1200, 1600, 1900].map((v) => tileText(segmentOf(v, segs), "CO2", `${v} ppm`))).toEqual(["No", "900 ppm", "Open a window", "", "CO2"]);
  });
});
