import { describe, expect, it } from "vitest";
import { iconClass } from "./widgets/icon";

describe("iconClass (Material Design Icons, Dashboard 2.0's)", () => {
  it("takes MDI names with or without mdi-, Dashboard 1's fa- and underscore names; nothing that is not a name", () => {
    expect(iconClass("home")).toBe("mdi mdi-home");
    expect(iconClass("mdi-book-open")).toBe("mdi mdi-book-open");
    expect(iconClass("fa-home")).toBe("mdi mdi-home");
    expect(iconClass("open_in_browser")).toBe("mdi mdi-open-in-new");
    expect(iconClass("arrow_back")).toBe("mdi mdi-arrow-back");
    expect(iconClass("Power")).toBe("mdi mdi-power");
    // Dashboard 1's tab default and other Angular Material / Font Awesome names MDI spells otherwise.
    expect(iconClass("dashboard")).toBe("mdi mdi-view-dashboard");
    expect(iconClass("settings")).toBe("mdi mdi-cog");
    expect(iconClass("fa-tachometer")).toBe("mdi mdi-speedometer");
    for (const bad of ["", "home x", 'a"b', "mdi-home;color:red", "<img>"]) expect(iconClass(bad), bad).toBeNull();
  });
});
