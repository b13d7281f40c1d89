import { describe, expect, it } from "vitest";
import { groupImportWarnings } from "./import-warnings";

describe("the import dialog's warnings", () => {
  it("renames that share a reason are one line with the renames behind it, after the warnings that stand alone", () => {
    const lines = groupImportWarnings([
      "node 87bd706a.aec93 was renamed 29af8fb5b02f3b7b: ids here are 1-64 letters, digits, _ or -",
      "node 7f10afe.b1faa5 was renamed ac97602d4a16835d: ids here are 1-64 letters, digits, _ or -",
      "configuration node page1 (ui-page): the path /home is taken by page Home; imported as /home-2",
      "node inject1 was renamed 5a89ce70db6d5aaa: its id is already used in this organization",
    ]);
    expect(lines).toEqual([
      { text: "configuration node page1 (ui-page): the path /home is taken by page Home; imported as /home-2", items: [] },
      { text: "node inject1 was renamed 5a89ce70db6d5aaa: its id is already used in this organization", items: [] },
      { text: "2 nodes were given new ids (wires and references follow): ids here are 1-64 letters, digits, _ or -", items: ["87bd706a.aec93 → 29af8fb5b02f3b7b", "7f10afe.b1faa5 → ac97602d4a16835d"] },
    ]);
  });

  it("keeps everything else as it is, in order", () => {
    expect(groupImportWarnings(["b", "a"])).toEqual([
      { text: "b", items: [] },
      { text: "a", items: [] },
    ]);
    expect(groupImportWarnings([])).toEqual([]);
  });
});
