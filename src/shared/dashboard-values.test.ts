import { describe, expect, it } from "vitest";
import { DASHBOARD_LIMITS } from "./dashboard";
import { ledColor, ledColorTable, sameValue, tableRowsAfter } from "./dashboard-values";

/**
 * ui-led's colour (FlowFuse's Dashboard 2.0 LED and node-red-contrib-ui-led, which imports as it):
 * the first state whose typed value equals the payload, grey (null) without one; equality as
 * Node-RED's RED.util.compareObjects.
 */
const D2_DEFAULT = [
  { color: "#FF0000", value: false, valueType: "bool" },
  { color: "#00FF00", value: true, valueType: "bool" },
];

describe("ledColor", () => {
  const cases: Array<[string, unknown, unknown, string | null]> = [
    ["Dashboard 2.0's default: true", D2_DEFAULT, true, "#00FF00"],
    ["Dashboard 2.0's default: false", D2_DEFAULT, false, "#FF0000"],
    ["the text \"true\" is no boolean", D2_DEFAULT, "true", null],
    ["Dashboard 1's num values are numbers", [{ color: "red", value: "0", valueType: "num" }, { color: "green", value: "1", valueType: "num" }], 1, "green"],
    ["… so the text \"1\" (an MQTT payload) matches none", [{ color: "green", value: "1", valueType: "num" }], "1", null],
    ["str values are text", [{ color: "#808080", value: "0", valueType: "str" }, { color: "#008000", value: "1", valueType: "str" }], "1", "#008000"],
    ["Dashboard 1's bool values are text", [{ color: "red", value: "false", valueType: "bool" }, { color: "green", value: "true", valueType: "bool" }], false, "red"],
    ["json by content, any key order", [{ color: "blue", value: '{"a":1,"b":[1,2]}', valueType: "json" }], { b: [1, 2], a: 1 }, "blue"],
    ["json: not a subset", [{ color: "blue", value: '{"a":1}', valueType: "json" }], { a: 1, b: 2 }, null],
    ["bin against a Buffer's JSON", [{ color: "teal", value: "[1,2,3]", valueType: "bin" }], { type: "Buffer", data: [1, 2, 3] }, "teal"],
    ["the first match wins", [{ color: "a", value: "x", valueType: "str" }, { color: "b", value: "x", valueType: "str" }], "x", "a"],
    ["no payload", D2_DEFAULT, undefined, null],
    ["no states", undefined, true, null],
  ];
  it.each(cases)("%s", (_name, states, payload, color) => {
    expect(ledColor(states, payload)).toBe(color);
  });

  it("a message's table (Dashboard 1's colorForValue) replaces the states: a list by value, an object by the payload as a property name", () => {
    expect(ledColor(D2_DEFAULT, true, [{ value: true, color: "gold" }])).toBe("gold");
    expect(ledColor(D2_DEFAULT, false, [{ value: true, color: "gold" }])).toBeNull();
    expect(ledColor(D2_DEFAULT, "on", { on: "green", off: "red" })).toBe("green");
    expect(ledColor(D2_DEFAULT, 1, { "1": "green" })).toBe("green");
    expect(ledColor(D2_DEFAULT, true, { true: "green" })).toBe("green");
    expect(ledColor(D2_DEFAULT, { a: 1 }, { "[object Object]": "green" })).toBeNull();
    expect(ledColor(D2_DEFAULT, "toString", { on: "green" })).toBeNull();
  });
});

describe("ledColorTable", () => {
  it("takes a list of { value, color } or an object of value: colour; anything else, or too much, is no table", () => {
    expect(ledColorTable([{ value: 1, color: "red" }, { color: "blue" }])).toEqual([{ value: 1, color: "red" }, { value: null, color: "blue" }]);
    expect(ledColorTable({ on: "green" })).toEqual({ on: "green" });
    expect(ledColorTable("red")).toBeUndefined();
    expect(ledColorTable(null)).toBeUndefined();
    expect(ledColorTable([{ value: 1 }])).toBeUndefined();
    expect(ledColorTable([{ value: 1, color: "x".repeat(65) }])).toBeUndefined();
    expect(ledColorTable({ on: 3 })).toBeUndefined();
    expect(ledColorTable(Array.from({ length: 101 }, (_, i) => ({ value: i, color: "red" })))).toBeUndefined();
  });
});

describe("sameValue", () => {
  it("is strict for scalars and by content for arrays and objects", () => {
    expect(sameValue(1, 1)).toBe(true);
    expect(sameValue(1, "1")).toBe(false);
    expect(sameValue(null, undefined)).toBe(false);
    expect(sameValue([1, { a: 2 }], [1, { a: 2 }])).toBe(true);
    expect(sameValue([1], { 0: 1 })).toBe(false);
    expect(sameValue({ a: undefined }, { b: undefined })).toBe(false);
  });
});

describe("tableRowsAfter: one rule for the server's table, a viewer's own rows and the page", () => {
  it("adds a message's rows (an array or one row), replaces them when the payload is empty or an action says so, keeps the newest", () => {
    expect(tableRowsAfter([{ a: 1 }], [{ a: 2 }, { a: 3 }])).toEqual({ rows: [{ a: 1 }, { a: 2 }, { a: 3 }], replaced: false });
    expect(tableRowsAfter([{ a: 1 }], { a: 2 })).toEqual({ rows: [{ a: 1 }, { a: 2 }], replaced: false });
    expect(tableRowsAfter([{ a: 1 }], [])).toEqual({ rows: [], replaced: true });
    expect(tableRowsAfter([{ a: 1 }], [{ a: 2 }], { msg: "replace" }).rows).toEqual([{ a: 2 }]);
    expect(tableRowsAfter([{ a: 1 }], [{ a: 2 }], { node: "replace" }).rows).toEqual([{ a: 2 }]);
    expect(tableRowsAfter([{ a: 1 }], [{ a: 2 }], { node: "replace", msg: "append" }).rows).toEqual([{ a: 1 }, { a: 2 }]);
    const max = DASHBOARD_LIMITS.tableMaxRows;
    const full = Array.from({ length: max }, (_, i) => i);
    const after = tableRowsAfter(full, [max, max + 1]).rows;
    expect(after).toHaveLength(max);
    expect(after.at(0)).toBe(2);
    expect(after.at(-1)).toBe(max + 1);
  });
});
