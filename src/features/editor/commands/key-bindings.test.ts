import { describe, expect, it } from "vitest";
import { bindingFor, focusedNodeId } from "./key-bindings";

const key = (k: string, mods: { ctrl?: boolean; meta?: boolean; shift?: boolean } = {}) => ({ key: k, ctrlKey: !!mods.ctrl, metaKey: !!mods.meta, shiftKey: !!mods.shift });
// A stand-in for document.activeElement: what the table reads of it.
const el = (opts: { classes?: string[]; id?: string; inside?: string[] } = {}) =>
  ({
    classList: { contains: (c: string) => (opts.classes ?? []).includes(c) },
    dataset: opts.id ? { id: opts.id } : {},
    closest: (sel: string) => (sel.split(",").some((s) => (opts.inside ?? []).includes(s.trim())) ? {} : null),
  }) as unknown as Element;

const edit = { readOnly: false, paused: false };
const view = { readOnly: true, paused: false };
const cmd = (b: ReturnType<typeof bindingFor>) => b?.command ?? null;

describe("the editor's shortcut table", () => {
  it("maps the documented keys to their commands", () => {
    expect(cmd(bindingFor(key("s", { ctrl: true }), null, edit))).toBe("save");
    expect(cmd(bindingFor(key("S", { meta: true, shift: true }), null, edit))).toBe("save");
    expect(cmd(bindingFor(key("f", { ctrl: true }), null, edit))).toBe("find");
    expect(cmd(bindingFor(key("Delete"), null, edit))).toBe("delete");
    expect(cmd(bindingFor(key("Backspace"), null, edit))).toBe("delete");
    expect(cmd(bindingFor(key("z", { ctrl: true }), null, edit))).toBe("undo");
    expect(cmd(bindingFor(key("Z", { ctrl: true, shift: true }), null, edit))).toBe("redo");
    expect(cmd(bindingFor(key("y", { meta: true }), null, edit))).toBe("redo");
    expect(cmd(bindingFor(key("v", { ctrl: true }), null, edit))).toBe("paste");
    expect(bindingFor(key("c", { ctrl: true }), null, edit)).toMatchObject({ command: "copy", keepDefault: true });
    expect(bindingFor(key("z"), null, edit)).toBeNull();
  });

  it("Enter edits the focused node, and Ctrl/Cmd+A selects all only inside the canvas", () => {
    expect(cmd(bindingFor(key("Enter"), el({ classes: ["react-flow__node"], id: "n1" }), edit))).toBe("editFocused");
    expect(bindingFor(key("Enter"), el({ classes: ["react-flow__node"] }), edit)).toBeNull();
    expect(bindingFor(key("Enter"), el(), edit)).toBeNull();
    expect(focusedNodeId(el({ classes: ["react-flow__node"], id: "n1" }))).toBe("n1");
    expect(cmd(bindingFor(key("a", { ctrl: true }), el({ inside: [".react-flow"] }), edit))).toBe("selectAll");
    expect(bindingFor(key("a", { ctrl: true }), el(), edit)).toBeNull();
  });

  it("in a field, a dialog or the quick-add menu only save and find are the editor's", () => {
    const field = el({ inside: ["input"] });
    expect(bindingFor(key("Delete"), field, edit)).toBeNull();
    expect(bindingFor(key("z", { ctrl: true }), el({ inside: ["dialog[open]"] }), edit)).toBeNull();
    expect(bindingFor(key("v", { ctrl: true }), null, { readOnly: false, paused: true })).toBeNull();
    expect(cmd(bindingFor(key("s", { ctrl: true }), field, edit))).toBe("save");
    expect(cmd(bindingFor(key("f", { ctrl: true }), field, edit))).toBe("find");
  });

  it("a read-only flow keeps copy, find and Enter, and nothing that edits", () => {
    expect(cmd(bindingFor(key("c", { ctrl: true }), null, view))).toBe("copy");
    expect(cmd(bindingFor(key("Enter"), el({ classes: ["react-flow__node"], id: "n1" }), view))).toBe("editFocused");
    for (const k of [key("Delete"), key("z", { ctrl: true }), key("y", { ctrl: true }), key("v", { ctrl: true }), key("a", { ctrl: true })]) {
      expect(bindingFor(k, el({ inside: [".react-flow"] }), view)).toBeNull();
    }
  });
});
