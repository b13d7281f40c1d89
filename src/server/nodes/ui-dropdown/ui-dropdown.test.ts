import { describe, expect, it } from "vitest";
import { uiDropdownConfig, uiDropdownNode } from "./definition";

describe("ui-dropdown from Node-RED (Dashboard 2.0)", () => {
  it("keeps a long list of options (a published flow's 597: every hour of a week and more); they were all dropped above 500", () => {
    const options = Array.from({ length: 597 }, (_, i) => ({ label: `${i}`, value: i, type: "num" }));
    const refused: string[] = [];
    const config = uiDropdownConfig.parse(uiDropdownNode.nodeRed!.fromNodeRed!({ group: "g1", label: "Hour", options }, refused));
    expect(refused).toEqual([]);
    expect(config.options).toHaveLength(597);
    expect(config.options[596]).toEqual({ label: "596", value: 596, type: "num" });
    // A bound still stands, and is said.
    const tooMany = Array.from({ length: 2001 }, (_, i) => ({ label: `${i}`, value: i }));
    const said: string[] = [];
    expect(uiDropdownConfig.parse(uiDropdownNode.nodeRed!.fromNodeRed!({ group: "g1", options: tooMany }, said)).options).toEqual([]);
    expect(said).toEqual(["options"]);
  });
});
