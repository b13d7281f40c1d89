import { describe, expect, it } from "vitest";
import { gaugeFormat, translateDashboard1 } from "./dashboard1";

describe("Dashboard 1's gauge format", () => {
  it.each([
    ["{{value}}", {}],
    ["", {}],
    ["{{value | number:2}}", { decimals: 2 }],
    ["{{value|number:0}}", { decimals: 0 }],
    ["{{value | number}}", { decimals: 3 }],
    ["{{value}} W", { suffix: " W" }],
    ["{{value}}°C", { suffix: "°C" }],
    ["≈ {{value | number:1}} kWh", { prefix: "≈ ", suffix: " kWh", decimals: 1 }],
    // The payload the widget shows is its value.
    ["{{msg.payload}}", {}],
    ["{{ msg.payload | number:1 }} bar", { suffix: " bar", decimals: 1 }],
    // Another property moves Dashboard 1's needle (ui_gauge.js convert): the gauge's Value.
    ["{{msg.amps}}", { value: "amps" }],
    ["{{msg}}", {}],
    ["{{payload.ch4}}", { value: "payload.ch4" }],
    ["{{msg.payload.value}}", { value: "payload.value" }],
    ["{{ msg.payload.readings[0].t | number:1 }} °C", { suffix: " °C", decimals: 1, value: "payload.readings[0].t" }],
  ])("%j becomes the gauge's own properties", (format, props) => {
    expect(gaugeFormat(format)).toEqual(props);
  });

  // Text glued to another property without a filter names a property no message has in Dashboard 1 ("payload.totalloadW").
  it.each(["{{value | currency}}", "<b>{{value}}</b>", "{{value * 2}}", "{{value}} / {{msg.max}}", "{{msg.payload.totalload}}W", "T {{payload.t}}", "{{payload.t}} °C"])("%j is not one: reported as not carried", (format) => {
    expect(gaugeFormat(format)).toBeNull();
  });

  it("an imported gauge keeps {{value | number:2}} as two decimals and says nothing; another format is reported", () => {
    const items = [
      { id: "tab1", type: "ui_tab", name: "Home" },
      { id: "grp1", type: "ui_group", name: "Boiler", tab: "tab1", width: "6" },
      { id: "f1", type: "tab", label: "Flow" },
      { id: "g1", type: "ui_gauge", z: "f1", group: "grp1", name: "", gtype: "gage", title: "Temperature", label: "°C", format: "{{value | number:2}}", min: 0, max: "100", wires: [] },
      { id: "g2", type: "ui_gauge", z: "f1", group: "grp1", name: "", gtype: "gage", title: "Load", label: "%", format: "{{value | percent}}", min: 0, max: "100", wires: [] },
    ];
    const result = translateDashboard1(items);
    const gauge = (id: string) => result.items.find((n) => n.id === id)!;
    expect(gauge("g1")).toMatchObject({ type: "ui-gauge", decimals: 2, units: "°C", title: "Temperature" });
    expect(result.notes.get("g1")!.note).not.toContain("format");
    expect(result.notes.get("g2")!.note).toContain("its value format (format) is not carried");
  });

  it("a Dashboard 1 numeric keeps the text around {{value}} around its field (a unit); another format is reported", () => {
    const items = [
      { id: "tab1", type: "ui_tab", name: "Home" },
      { id: "grp1", type: "ui_group", name: "Boiler", tab: "tab1", width: "6" },
      { id: "f1", type: "tab", label: "Flow" },
      { id: "n1", type: "ui_numeric", z: "f1", group: "grp1", label: "Setpoint", format: "{{value}} °C", min: 0, max: "30", step: 0.5, wires: [[]] },
      { id: "n2", type: "ui_numeric", z: "f1", group: "grp1", label: "Ratio", format: "{{value | number:1}}", min: 0, max: "1", step: 0.1, wires: [[]] },
    ];
    const result = translateDashboard1(items);
    expect(result.items.find((n) => n.id === "n1")).toMatchObject({ type: "ui-number-input", suffix: "°C", min: 0, max: 30, step: 0.5 });
    expect(result.notes.get("n1")!.note).not.toContain("format");
    expect(result.notes.get("n2")!.note).toContain("its value format (format) is not carried");
  });

  it("a group keeps whether it can be collapsed (only with its title shown, as Dashboard 1 offers it) and its class", () => {
    const items = [
      { id: "tab1", type: "ui_tab", name: "Home" },
      { id: "grp1", type: "ui_group", name: "Boiler", tab: "tab1", width: "6", disp: true, collapse: true, className: "boiler" },
      { id: "grp2", type: "ui_group", name: "Pump", tab: "tab1", width: "6", disp: false, collapse: true },
      { id: "grp3", type: "ui_group", name: "Valve", tab: "tab1", width: "6", disp: true, collapse: false },
    ];
    const result = translateDashboard1(items);
    const group = (id: string) => result.items.find((n) => n.id === id)!;
    expect(group("grp1")).toMatchObject({ type: "ui-group", showTitle: true, collapse: true, className: "boiler" });
    expect(group("grp2")).toMatchObject({ showTitle: false, collapse: false });
    expect(group("grp3")).toMatchObject({ showTitle: true, collapse: false });
    expect(group("grp3")).not.toHaveProperty("className");
    expect(result.notes.get("grp1")!.note).toBe("Dashboard 1's ui_group imported as ui-group (its tab is its page)");
  });
});
