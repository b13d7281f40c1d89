import { describe, expect, it } from "vitest";
import { uiFormNode } from "./definition";

describe("ui-form from Node-RED (Dashboard 2.0)", () => {
  it("keeps its fields as Dashboard 2.0's editor writes them (rows: null on a one-line field); they were all dropped", () => {
    // The shape of Dashboard 2.0's docs example (group-dialog-type.json).
    const props = {
      name: "",
      group: "g1",
      label: "New User",
      order: 1,
      width: 0,
      height: 0,
      options: [
        { label: "Name", key: "name", type: "text", required: true, rows: null },
        { label: "Notes", key: "notes", type: "multiline", required: false, rows: 4 },
        { label: "Admin", key: "isAdmin", type: "switch", required: false, rows: null },
      ],
      formValue: { name: "", notes: "", isAdmin: false },
      payload: "",
      submit: "Add",
      cancel: "clear",
      resetOnSubmit: true,
      topic: "topic",
      topicType: "msg",
      splitLayout: "",
      className: "",
      passthru: false,
      dropdownOptions: [],
    };
    const config = uiFormNode.configSchema.parse(uiFormNode.nodeRed!.fromNodeRed(props)) as { options: Array<Record<string, unknown>> };
    expect(config.options.map((o) => [o.key, o.type, o.rows])).toEqual([
      ["name", "text", null],
      ["notes", "multiline", 4],
      ["isAdmin", "switch", null],
    ]);
    // Exported back as it came.
    expect(uiFormNode.nodeRed!.toNodeRed(config as never).options).toEqual(props.options);
  });
});
