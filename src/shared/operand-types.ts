/**
 * The operand types of Node-RED's "typed input", shared by the server's operand model
 * (server/runtime/operands.ts) and the editor's typed input (features/editor/typed-input.tsx).
 * A node config names an operand with two sibling properties: `<name>` (the value, a string) and
 * `<name>_type` (one of these types).
 */
export const OPERAND_TYPES = ["msg", "flow", "global", "env", "str", "num", "bool", "json", "date", "bin", "re", "jsonata"] as const;
export type OperandType = (typeof OPERAND_TYPES)[number];

/** What the editor shows for each type (and switch's own "prev", the previous message's value). */
export const OPERAND_TYPE_TITLES: Record<OperandType | "prev", string> = {
  msg: "msg.",
  flow: "flow.",
  global: "global.",
  env: "env variable",
  str: "string",
  num: "number",
  bool: "boolean",
  json: "JSON",
  date: "timestamp",
  bin: "buffer",
  re: "regular expression",
  jsonata: "JSONata expression",
  prev: "previous value",
};

/** Node-RED's date formats without a moment.js picture ("" is milliseconds since the epoch); any other text is one. */
export const DATE_FORMATS: Array<{ value: string; title: string }> = [
  { value: "", title: "milliseconds since epoch" },
  { value: "iso", title: "ISO 8601 string" },
  { value: "object", title: "JavaScript Date object" },
];

/** The type half of a pair: `<name>_type` whose schema is an enum of operand types. */
export function isOperandTypeList(values: readonly unknown[] | undefined): boolean {
  return Array.isArray(values) && values.length > 0 && values.every((v) => typeof v === "string" && v in OPERAND_TYPE_TITLES);
}
