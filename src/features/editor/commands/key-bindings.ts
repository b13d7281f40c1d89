/**
 * The editor's shortcuts, one table (SPEC §10): the first row that matches a key press runs its
 * command. React Flow's own delete key is off, so every delete goes through undo.
 * - `mod`: Ctrl or Cmd held (true), not held (false), either (absent); `shift` likewise.
 * - `anywhere`: also while focus is in a field, a dialog is open or the quick-add menu is.
 * - `readOnly`: also on a read-only flow.
 * - `keepDefault`: the browser's own action happens too (copy).
 * - `where`: only with focus on a canvas node (`node`) or inside the canvas (`canvas`).
 * A new shortcut is a row here plus its command in the editor's `commands` (the type asks for it).
 */
export interface KeyBinding {
  key: string;
  mod?: boolean;
  shift?: boolean;
  command: string;
  anywhere?: boolean;
  readOnly?: boolean;
  keepDefault?: boolean;
  where?: "node" | "canvas";
}

export const KEY_BINDINGS = [
  { key: "s", mod: true, command: "save", anywhere: true, readOnly: true },
  { key: "f", mod: true, command: "find", anywhere: true, readOnly: true },
  { key: "enter", command: "editFocused", readOnly: true, where: "node" },
  { key: "c", mod: true, command: "copy", readOnly: true, keepDefault: true },
  { key: "delete", command: "delete" },
  { key: "backspace", command: "delete" },
  { key: "z", mod: true, shift: true, command: "redo" },
  { key: "z", mod: true, shift: false, command: "undo" },
  { key: "y", mod: true, command: "redo" },
  { key: "v", mod: true, command: "paste" },
  { key: "a", mod: true, command: "selectAll", where: "canvas" },
  { key: "g", mod: true, shift: true, command: "group" },
  { key: "u", mod: true, shift: true, command: "ungroup" },
] as const satisfies readonly KeyBinding[];

export type EditorCommandId = (typeof KEY_BINDINGS)[number]["command"];
/** A command gets the focused element (the node for `editFocused`). */
export type EditorCommands = Record<EditorCommandId, (active: Element | null) => void>;

/** Focus in a field, an editor or an open dialog: the canvas's shortcuts stay out of the way. */
export const isEditable = (el: Element | null) =>
  !!el && (el.closest("input, textarea, select, [contenteditable='true'], .cm-editor") !== null || el.closest("dialog[open]") !== null);

/** The id of the canvas node that has the focus, if one has. */
export function focusedNodeId(active: Element | null): string | null {
  const el = active as HTMLElement | null;
  return el?.classList?.contains("react-flow__node") ? (el.dataset?.id ?? null) || null : null;
}

/** The first binding a key press matches, given where the focus is. */
export function bindingFor(e: Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "shiftKey">, active: Element | null, { readOnly, paused }: { readOnly: boolean; paused: boolean }): KeyBinding | null {
  const key = e.key.toLowerCase();
  const mod = e.ctrlKey || e.metaKey;
  const blocked = isEditable(active) || paused;
  for (const b of KEY_BINDINGS as readonly KeyBinding[]) {
    if (b.key !== key || (b.mod !== undefined && b.mod !== mod) || (b.shift !== undefined && b.shift !== e.shiftKey)) continue;
    if (!b.anywhere && blocked) return null;
    if (readOnly && !b.readOnly) continue;
    if (b.where === "node" && !focusedNodeId(active)) continue;
    if (b.where === "canvas" && !active?.closest(".react-flow")) continue;
    return b;
  }
  return null;
}
