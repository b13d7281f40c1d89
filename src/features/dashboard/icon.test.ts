import { describe, expect, it } from "vitest";
import { iconClass } from "./widgets/icon";

describe("iconClass (Material Design Icons, Dashboard 2.0's)", () => {
  it("takes MDI names with or without mdi-, Dashboard 1's fa- and underscore names; nothing that is not a name", () => {
    expect(iconClass("home")).toBe("mdi mdi-home");
    expect(iconClass("mdi-book-open")).toBe("mdi mdi-book-open");
    expect(iconClass("fa-home")).toBe("mdi mdi-home");
    expect(iconClass("open_in_browser")).toBe("mdi mdi-open-in-browser");
    expect(iconClass("Power")).toBe("mdi mdi-power");
    for (const bad of ["", "home x", 'a"b', "mdi-home;color:red", "<img>"]) expect(iconClass(bad), bad).toBeNull();
  });
});
