import { describe, expect, it } from "vitest";
import { nodeAppearanceSchema, normalizeAppearance } from "./flow-graph";
import { fontAwesomeClass } from "./mdi-icons";

describe("node appearance", () => {
  it("keeps what is set and drops what is empty: trailing empty port labels, all-empty lists, an empty icon", () => {
    expect(normalizeAppearance(undefined)).toBeUndefined();
    expect(normalizeAppearance({ icon: "", input_labels: [""], output_labels: ["", ""] })).toBeUndefined();
    expect(normalizeAppearance({ show_label: false })).toEqual({ show_label: false });
    expect(normalizeAppearance({ output_labels: ["", "b", ""] })).toEqual({ output_labels: ["", "b"] });
  });

  it("takes Node-RED's icon references and refuses markup, quotes and control characters", () => {
    const icon = (v: string) => nodeAppearanceSchema.shape.icon.safeParse(v).success;
    expect(icon("font-awesome/fa-car")).toBe(true);
    expect(icon("node-red/light.svg")).toBe(true);
    expect(icon("node-red-contrib-foo/icons/a b.png")).toBe(true);
    expect(icon("<svg onload=alert(1)>")).toBe(false);
    expect(icon('x" onerror="y')).toBe(false);
    expect(icon("a\nb")).toBe(false);
    expect(icon("")).toBe(false);
  });

  it("draws a Font Awesome icon with MDI's glyph of that meaning", () => {
    expect(fontAwesomeClass("font-awesome/fa-car")).toBe("mdi mdi-car");
    expect(fontAwesomeClass("font-awesome/fa-envelope-o")).toBe("mdi mdi-email-outline");
    expect(fontAwesomeClass("font-awesome/fa-clock-o")).toBe("mdi mdi-clock-outline");
    expect(fontAwesomeClass("node-red/light.svg")).toBeNull();
    expect(fontAwesomeClass("font-awesome/fa-car; color:red")).toBeNull();
  });
});
